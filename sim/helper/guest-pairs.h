// SPDX-License-Identifier: Apache-2.0
/**
 * @file
 * @ingroup offload
 * The VMs of a two-host topology: on each host N guests, each a
 * VirtioNetDevice under ns-3's TCP/IP, VM i on host 0 sending bulk TCP to
 * VM i on host 1 over `streams` connections. The hosts' datapaths (OVS-DPDK
 * or kernel) attach the devices; this only makes the guests and their
 * traffic, and measures the goodput.
 */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ns3/application-container.h"
#include "ns3/topology.h"
#include "ns3/virtio-net-device.h"

namespace ns3 {

/** The overlay MTU that leaves room for the encapsulation on the underlay. */
uint16_t GuestMtu(const TunnelScenario& s);
/** The guests' TCP MSS at that MTU (IPv4, TCP with timestamps). */
uint16_t GuestMss(const TunnelScenario& s);
/** The address of VM `vm` on `host`. */
std::string GuestIp(uint32_t host, uint32_t vm);

class GuestPairs {
 public:
  /**
   * Makes `s.vms` guests per host with their IP stacks; `tso` is what the
   * host offers them (VIRTIO_NET_F_HOST_TSO4).
   */
  void Create(const TunnelScenario& s, bool tso);
  Ptr<VirtioNetDevice> Get(uint32_t host, uint32_t vm) const;
  uint32_t GetN() const;
  /** Bulk senders on host 0, sinks on host 1; call after the hosts attach the guests. */
  void InstallApps(Time start, Time stop);
  void ResetStats();
  /** Bytes the sinks received since ResetStats(). */
  double ReceivedBytes() const;

 private:
  TunnelScenario m_s;
  uint32_t m_segment = 0;
  std::vector<Ptr<VirtioNetDevice>> m_guests[2];
  ApplicationContainer m_sinks;
  std::vector<uint64_t> m_sinkBase;
};

}  // namespace ns3
