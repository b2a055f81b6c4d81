// SPDX-License-Identifier: Apache-2.0
#include "loopback-helper.h"

#include "ns3/boolean.h"
#include "ns3/generator-tester.h"
#include "ns3/kernel-host-config.h"
#include "ns3/kernel-host-stats.h"
#include "ns3/offload-channel.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"
#include "offlab/net/error.h"

namespace ns3 {

namespace {

// The tester's own scenario: a kernel host with socket applications and no
// tunnel, its NIC set as the scenario's tester says.
TunnelScenario TesterScenario(const TunnelScenario& s) {
  TunnelScenario t = s;
  t.kernel.datapath = "routed";
  t.kernel.attach = "socket";
  t.kernel.eswitchOffload = false;
  t.kernel.ethtoolOff = s.testerEthtoolOff;
  t.kernel.remcsumTx = t.kernel.remcsumRx = false;
  return t;
}

}  // namespace

LoopbackHelper::LoopbackHelper(const TunnelScenario& s) : m_s(s) {
  m_kv = offlab::kernel::ParseKernelVersion(s.kernel.version);
  if (s.hostKind != "kernel") {
    throw offlab::Error("topology loopback needs host kind kernel for the device under test");
  }
  if (s.tunnel != "none") {
    throw offlab::Error("topology loopback forwards plain frames: tunnel must be none");
  }
  if (s.kernel.datapath != "ovs" && s.kernel.datapath != "bridge") {
    throw offlab::Error("topology loopback: host.datapath must be ovs or bridge");
  }
  if (s.kernel.rxQueues < 1 || s.kernel.rxQueues > 64) {
    throw offlab::Error("host.rx_queues must be between 1 and 64");
  }
  if (s.vms < 1 || s.vms > 64) {
    throw offlab::Error("vms must be between 1 and 64");
  }
  TunnelScenario dut = s;
  dut.kernel.attach = "forward";
  KernelHostConfig(dut, m_kv, 1, nullptr, nullptr);  // bad NIC or feature names
  KernelHostConfig(TesterScenario(s), m_kv, 0, nullptr, nullptr);
  if (s.generator.enabled) {
    GeneratorTester::Check(s);
  }
}

LoopbackHelper::~LoopbackHelper() = default;

void LoopbackHelper::Install(Time start, Time stop) {
  Ptr<OffloadChannel> wire = MakeWire(m_s);
  for (uint32_t h = 0; h < 2; h++) {
    m_nic[h] = MakeWiredNic(m_s, wire);
    // A burst of small frames is many descriptors: the ring holds what a
    // line-rate generator puts in flight.
    m_nic[h]->SetAttribute("TxQueueLimit", UintegerValue(1 << 20));
  }
  const KernelHostOptions& k = m_s.kernel;
  TunnelScenario dut = m_s;
  dut.kernel.attach = "forward";
  const TunnelScenario tester = TesterScenario(m_s);
  for (uint32_t h = 0; h < 2; h++) {
    if (h == 0 && m_s.generator.enabled) {
      continue;
    }
    m_host[h] = CreateObject<LinuxHost>();
    const offlab::NicProfile& nic = m_nic[h]->GetProfile();
    m_host[h]->SetAttribute("RxRingSize", UintegerValue(RxRing(k, nic, !m_s.generator.enabled)));
    const double irq =
        k.irqDelayUs >= 0 ? k.irqDelayUs : DefaultIrqDelayUs(nic.kernel ? nic.kernel->driver : "");
    m_host[h]->SetAttribute("IrqDelay", TimeValue(NanoSeconds(static_cast<int64_t>(irq * 1e3))));
    m_host[h]->SetAttribute("RssUdpPorts", BooleanValue(k.rssUdpPorts));
    m_host[h]->SetConfig(KernelHostConfig(h == 0 ? tester : dut, m_kv, h, m_nic[h], m_nic[1 - h]));
    m_host[h]->SetKernelCosts(MakeCpu(m_s.cost.kernel));
    m_nic[h]->GetNode()->AggregateObject(m_host[h]);
    m_host[h]->SetNic(m_nic[h]);
    // The tester should not be what limits: it gets its own queues.
    const uint32_t queues = h == 0 ? m_s.testerRxQueues : k.rxQueues;
    for (uint32_t q = 0; q < queues; q++) {
      m_host[h]->AddRxQueue(MakeCpu(m_s.cost.kernel));
    }
  }
  if (m_s.generator.enabled) {
    m_gen = std::make_unique<GeneratorTester>(m_s, m_nic[0]);
    m_gen->Install(start, stop);
    return;
  }
  m_apps.Create(tester, m_s.guestTso && m_s.guestCsum);
  for (uint32_t side = 0; side < 2; side++) {
    for (uint32_t i = 0; i < m_s.vms; i++) {
      m_host[0]->AddSocketApp(m_apps.Get(side, i));
    }
  }
  m_apps.InstallApps(start, stop);
}

void LoopbackHelper::ResetStats() {
  m_statsStart = Simulator::Now();
  if (m_gen) {
    m_gen->ResetStats();
  } else {
    m_apps.ResetStats();
  }
  for (uint32_t h = 0; h < 2; h++) {
    if (m_host[h]) {
      m_host[h]->ResetStats();
    }
  }
}

double LoopbackHelper::GetGoodput() const {
  if (m_gen) {
    return m_gen->GetRxBps();
  }
  const double span = (Simulator::Now() - m_statsStart).GetSeconds();
  return span > 0 ? m_apps.ReceivedBytes() * 8 / span : 0;
}

HostStats LoopbackHelper::GetHostStats(uint32_t host) const {
  const double span = (Simulator::Now() - m_statsStart).GetSeconds();
  if (host == 0 && m_gen) {
    return m_gen->GetStats(span);
  }
  std::vector<Ptr<CpuModel>> apps;
  for (uint32_t side = 0; host == 0 && side < 2; side++) {
    for (uint32_t i = 0; i < m_apps.GetN(); i++) {
      apps.push_back(m_apps.Get(side, i)->GetCpu());
    }
  }
  HostStats st = KernelHostStats(m_host[host], m_nic[host], apps, span);
  st.kind = host == 0 ? "tester" : "kernel";
  return st;
}

Ptr<OffloadNetDevice> LoopbackHelper::GetNic(uint32_t host) const { return m_nic[host]; }

std::vector<std::string> LoopbackHelper::GetEvents() const {
  std::vector<std::string> all;
  for (uint32_t h = 0; h < 2; h++) {
    for (const std::string& e : m_host[h] ? m_host[h]->GetEvents() : std::vector<std::string>()) {
      all.push_back((h ? "dut: " : "tester: ") + e);
    }
  }
  return all;
}

}  // namespace ns3
