// SPDX-License-Identifier: Apache-2.0
#include "generator-tester.h"

#include <cmath>
#include <sstream>

#include "ns3/simulator.h"
#include "offlab/net/error.h"
#include "offlab/nic/nic_profile.h"

namespace ns3 {

namespace {

// RFC 2544 counts a frame with its FCS (64 .. 1518 bytes); the generator
// builds frames without it.
constexpr uint32_t kFcs = 4;

GeneratorConfig ConfigOf(const TunnelScenario& s, double lineGbps) {
  const GeneratorOptions& g = s.generator;
  GeneratorConfig c;
  if (g.imix) {
    c.UseImix();
  } else {
    c.frame_sizes.clear();
    for (uint32_t size : g.frameSizes) {
      if (size < 64 || size > 9022) {
        std::ostringstream os;
        os << "generator.frame_size " << size << " is outside [64, 9022] (bytes with FCS)";
        throw offlab::Error(os.str());
      }
      c.frame_sizes.push_back(size - kFcs);
    }
  }
  if (g.rateGbps > 0) {
    c.rate_gbps = g.rateGbps;
  }
  if (g.ratePps > 0) {
    c.rate_pps = g.ratePps;
  }
  if (g.rateGbps > 0 && g.ratePps > 0) {
    throw offlab::Error("generator: give rate_gbps or rate_pps, not both");
  }
  c.line_gbps = lineGbps;
  c.flows = g.flows;
  if (g.burst) {
    c.burst = g.burst;
  }
  return c;
}

double LineGbps(const TunnelScenario& s) {
  return s.linkGbps > 0 ? s.linkGbps : offlab::BuiltinProfile(s.nic).link_gbps;
}

}  // namespace

void GeneratorTester::Check(const TunnelScenario& s) {
  GeneratorConfig c = ConfigOf(s, LineGbps(s));
  try {
    c.Validate();
  } catch (const offlab::Error& e) {
    throw offlab::Error(std::string("generator: ") + e.what());
  }
}

GeneratorTester::GeneratorTester(const TunnelScenario& s, Ptr<OffloadNetDevice> nic)
    : m_s(s), m_nic(nic) {}

void GeneratorTester::Install(Time start, Time stop) {
  GeneratorConfig c = ConfigOf(m_s, m_nic->GetDataRate().GetBitRate() / 1e9);
  c.start = start;
  c.stop = stop;
  m_gen = CreateObject<PacketGenerator>();
  m_gen->SetConfig(c);
  Ptr<OffloadNetDevice> nic = m_nic;
  // The generator's trains go onto the wire as they leave: the NIC
  // serializes them at its line rate (picosecond times, offlab-sim's
  // resolution), so a rate at or below it is kept.
  m_gen->SetSink([nic](std::vector<offlab::Bytes> frames, std::vector<Time>) {
    std::vector<offlab::Sent> sent;
    sent.reserve(frames.size());
    for (offlab::Bytes& f : frames) {
      offlab::Sent s;
      s.port = "phy";
      s.frame = std::move(f);
      sent.push_back(std::move(s));
    }
    nic->SendFrames(std::move(sent));
  });
  m_sink = CreateObject<FrameSink>();
  Ptr<FrameSink> sink = m_sink;
  m_nic->SetTrainHandler([sink](Ptr<FrameTrain> t) { sink->ReceiveTrain(t); });
  m_gen->Start();
}

void GeneratorTester::ResetStats() {
  m_sink->ResetStats();
  m_txBase = m_gen->GetFrames();
  m_txStart = Simulator::Now();
}

double GeneratorTester::GetRxBps() const { return m_sink->GetStats().L1Gbps() * 1e9; }

HostStats GeneratorTester::GetStats(double span) const {
  HostStats st;
  st.kind = "generator";
  const FrameSink::Stats rx = m_sink->GetStats();
  const double sent = static_cast<double>(m_gen->GetFrames() - m_txBase);
  st.kernel["tx_pps"] = span > 0 ? sent / span : 0;
  st.kernel["rx_pps"] = rx.Pps();
  st.kernel["rx_l1_gbps"] = rx.L1Gbps();
  st.kernel["rx_l2_gbps"] = rx.L2Gbps();
  st.kernel["rx_frames"] = static_cast<double>(rx.frames);
  st.kernel["lost"] = static_cast<double>(rx.lost);
  st.kernel["late"] = static_cast<double>(rx.late);
  st.kernel["generator_pps_set"] = m_gen->GetRatePps();
  st.kernel["generator_burst"] = m_gen->GetBurst();
  st.txFrames = m_nic->GetTxFrames();
  st.rxFrames = m_nic->GetRxFrames();
  st.trains = m_nic->GetTrains();
  st.txDrops = m_nic->GetTxDrops();
  return st;
}

}  // namespace ns3
