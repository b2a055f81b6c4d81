// SPDX-License-Identifier: Apache-2.0
/**
 * @file
 * @ingroup offload
 * A kernel host's configuration from a scenario: the NIC profile's kernel
 * view for the scenario's kernel version, `ethtool -K` changes, the switch
 * (openvswitch.ko, bridge or routing), the guests' attachment and the VXLAN
 * device, as offlab::kernel::KernelHost.
 */
#pragma once

#include <string>

#include "ns3/offload-net-device.h"
#include "ns3/topology.h"
#include "offlab/linux/host.h"

namespace ns3 {

/** `ethtool -K DEV NAME off` on the host's NIC (throws offlab::Error for an unknown name). */
void FeatureOff(const std::string& name, offlab::kernel::KernelHost& h);

/**
 * The receive ring a driver allocates by default (descriptors per queue),
 * for a profile's kernel `driver` name; 512 for one not listed.
 */
uint32_t DefaultRxRing(const std::string& driver);

/**
 * The interrupt moderation a driver settles at under bulk receive load
 * (adaptive moderation), in microseconds, for a profile's kernel `driver`.
 */
double DefaultIrqDelayUs(const std::string& driver);

/** Host `h` of `s` (0 or 1), its NIC `self` and the peer's `peer` (both may be null). */
offlab::kernel::KernelHost KernelHostConfig(const TunnelScenario& s,
                                            offlab::kernel::KernelVersion kv, uint32_t h,
                                            Ptr<OffloadNetDevice> self, Ptr<OffloadNetDevice> peer);

}  // namespace ns3
