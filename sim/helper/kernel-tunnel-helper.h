// SPDX-License-Identifier: Apache-2.0
/**
 * @file
 * @ingroup offload
 * Two Linux kernel hosts (LinuxHost) on one wire, each with a physical NIC
 * from a profile's kernel view and either N VMs behind TAPs (vhost-net)
 * attached to openvswitch.ko or a Linux bridge, or the host's own TCP
 * socket over a routed VXLAN device; VM i on host 0 sends bulk TCP to VM i
 * on host 1, over VXLAN or without a tunnel.
 */
#pragma once

#include <string>
#include <vector>

#include "ns3/guest-pairs.h"
#include "ns3/linux-host.h"
#include "ns3/topology.h"

namespace ns3 {

class KernelTunnelHelper : public Topology {
 public:
  /** Throws offlab::Error naming the field for a bad kernel-host scenario. */
  explicit KernelTunnelHelper(const TunnelScenario& s);
  void Install(Time start, Time stop) override;
  void ResetStats() override;
  double GetGoodput() const override;
  HostStats GetHostStats(uint32_t host) const override;
  Ptr<OffloadNetDevice> GetNic(uint32_t host) const override;
  std::vector<std::string> GetEvents() const override;
  Ptr<LinuxHost> GetHost(uint32_t host) const;

 private:
  offlab::kernel::KernelHost HostConfig(uint32_t h) const;

  TunnelScenario m_s;
  offlab::kernel::KernelVersion m_kv;
  Ptr<LinuxHost> m_host[2];
  Ptr<OffloadNetDevice> m_nic[2];
  GuestPairs m_guests;
  Time m_statsStart;
};

}  // namespace ns3
