// SPDX-License-Identifier: Apache-2.0
/**
 * @file
 * @ingroup offload
 * The tester end of a loopback as a traffic generator (TRex, pktgen,
 * testpmd txonly): a PacketGenerator puts its trains on the tester's NIC and
 * a FrameSink counts what the device under test sends back. The generator
 * is an appliance: it costs no modelled CPU.
 */
#pragma once

#include "ns3/frame-sink.h"
#include "ns3/packet-generator.h"
#include "ns3/topology.h"

namespace ns3 {

class GeneratorTester {
 public:
  /** Throws offlab::Error naming the field for a bad generator (rate above the line rate, ...). */
  static void Check(const TunnelScenario& s);
  GeneratorTester(const TunnelScenario& s, Ptr<OffloadNetDevice> nic);
  void Install(Time start, Time stop);
  void ResetStats();
  /** What came back, in L1 bit/s (frames + preamble, FCS and gap), over the window. */
  double GetRxBps() const;
  HostStats GetStats(double span) const;

 private:
  TunnelScenario m_s;
  Ptr<OffloadNetDevice> m_nic;
  Ptr<PacketGenerator> m_gen;
  Ptr<FrameSink> m_sink;
  uint64_t m_txBase = 0;
  Time m_txStart;
};

}  // namespace ns3
