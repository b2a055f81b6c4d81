// SPDX-License-Identifier: Apache-2.0
/**
 * @file
 * @ingroup offload
 * A device under test between the two ends of a tester: host 0 is the
 * tester, host 1 a Linux kernel host that forwards (openvswitch.ko or a
 * bridge, out of the NIC it came in on) whatever the tester sends back to
 * it, as a TRex or pktgen loopback measures a DUT. The tester is a packet
 * generator with a receiving counter, or a kernel host whose socket pairs
 * run TCP through the DUT (application i sends to application N+i).
 */
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ns3/guest-pairs.h"
#include "ns3/linux-host.h"
#include "ns3/topology.h"

namespace ns3 {

class GeneratorTester;

class LoopbackHelper : public Topology {
 public:
  /** Throws offlab::Error naming the field for a bad loopback scenario. */
  explicit LoopbackHelper(const TunnelScenario& s);
  ~LoopbackHelper() override;
  void Install(Time start, Time stop) override;
  void ResetStats() override;
  double GetGoodput() const override;
  HostStats GetHostStats(uint32_t host) const override;
  Ptr<OffloadNetDevice> GetNic(uint32_t host) const override;
  std::vector<std::string> GetEvents() const override;

 private:
  HostStats KernelStats(Ptr<LinuxHost> h, uint32_t host) const;

  TunnelScenario m_s;
  offlab::kernel::KernelVersion m_kv;
  Ptr<OffloadNetDevice> m_nic[2];
  Ptr<LinuxHost> m_host[2];  // [0] null with a generator
  std::unique_ptr<GeneratorTester> m_gen;
  GuestPairs m_apps;
  Time m_statsStart;
};

}  // namespace ns3
