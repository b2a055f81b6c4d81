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
 * The receive ring the scenario gives a host: its `rx_ring`, else for a
 * generator's traffic the driver's default, and for TCP flows one deep
 * enough that the receive window bounds what waits. (The guests' ns-3 TCP
 * retransmits whole TSO packets where Linux's SACK recovers single
 * segments, so ring drops would turn into timeouts no real host sees; the
 * OVS host's CPU backlog is bounded the same way.)
 */
uint32_t RxRing(const KernelHostOptions& k, const offlab::NicProfile& nic, bool tcp);

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
