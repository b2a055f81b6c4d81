// SPDX-License-Identifier: Apache-2.0
/**
 * @file
 * @ingroup offload
 * Builds the standard offload topology: two hosts, each an OvsSwitch with
 * one physical NIC (OffloadNetDevice) and N VMs (VirtioNetDevice + ns-3
 * TCP/IP), the NICs joined by an OffloadChannel, VM i on host A sending a
 * bulk TCP flow to VM i on host B over a VXLAN/Geneve/GRE overlay (or none).
 */
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ns3/cpu-model.h"
#include "ns3/guest-pairs.h"
#include "ns3/node-container.h"
#include "ns3/offload-net-device.h"
#include "ns3/ovs-switch.h"
#include "ns3/topology.h"
#include "ns3/virtio-net-device.h"

namespace ns3 {

class VmTunnelHelper : public Topology {
 public:
  /** Throws offlab::Error for an unknown NIC, tunnel type or a bad value. */
  explicit VmTunnelHelper(const TunnelScenario& s);
  /** Creates nodes, devices, switches, flows and applications. */
  void Install(Time start, Time stop) override;
  /** Starts the measurement window (CPU and goodput counters). */
  void ResetStats() override;
  /** Goodput in bit/s of all flows since ResetStats(). */
  double GetGoodput() const override;
  HostStats GetHostStats(uint32_t host) const override;
  Ptr<OffloadNetDevice> GetNic(uint32_t host) const override;
  Ptr<OvsSwitch> GetSwitch(uint32_t host) const;
  std::vector<std::string> GetEvents() const override;

 private:
  TunnelScenario m_s;
  Ptr<OvsSwitch> m_switch[2];
  Ptr<OffloadNetDevice> m_nic[2];
  GuestPairs m_guests;
  std::map<std::string, uint64_t> m_counterBase[2];
  Time m_statsStart;
};

}  // namespace ns3
