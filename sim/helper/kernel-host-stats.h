// SPDX-License-Identifier: Apache-2.0
/**
 * @file
 * @ingroup offload
 * A kernel host's statistics for the results: its cores' load and the
 * mechanism figures (NAPI polls, GRO merges, frames per skb, frames GRO
 * could not validate, software checksum bytes, ring and CPU drops, frames
 * the eSwitch switched) and the kernel model's counters.
 */
#pragma once

#include <vector>

#include "ns3/linux-host.h"
#include "ns3/topology.h"

namespace ns3 {

/** `guests`: the VMs' or applications' cores on this host; `span`: the window in seconds. */
HostStats KernelHostStats(Ptr<LinuxHost> lh, Ptr<OffloadNetDevice> nic,
                          const std::vector<Ptr<CpuModel>>& guests, double span);

}  // namespace ns3
