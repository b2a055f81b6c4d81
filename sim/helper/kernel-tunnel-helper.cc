// SPDX-License-Identifier: Apache-2.0
#include "kernel-tunnel-helper.h"

#include <numeric>

#include "ns3/boolean.h"
#include "ns3/kernel-host-config.h"
#include "ns3/kernel-host-stats.h"
#include "ns3/offload-channel.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"
#include "offlab/linux/features.h"
#include "offlab/net/addr.h"
#include "offlab/net/error.h"
#include "offlab/nic/nic_profile.h"

namespace ns3 {

KernelTunnelHelper::KernelTunnelHelper(const TunnelScenario& s) : m_s(s) {
  const KernelHostOptions& k = s.kernel;
  m_kv = offlab::kernel::ParseKernelVersion(k.version);
  if (s.tunnel != "vxlan" && s.tunnel != "none") {
    throw offlab::Error("a kernel host models VXLAN or no tunnel, not '" + s.tunnel + "'");
  }
  if (k.datapath != "ovs" && k.datapath != "bridge" && k.datapath != "routed") {
    throw offlab::Error("host.datapath must be ovs, bridge or routed, not '" + k.datapath + "'");
  }
  if (k.attach != "tap" && k.attach != "socket") {
    throw offlab::Error("host.attach must be tap or socket, not '" + k.attach + "'");
  }
  if (k.attach == "socket" && (k.datapath != "routed" || s.vms != 1)) {
    throw offlab::Error("host.attach socket needs host.datapath routed and one VM pair");
  }
  if (k.attach == "tap" && k.datapath == "routed") {
    throw offlab::Error("host.datapath routed carries the host's own socket (host.attach socket)");
  }
  if (k.rxQueues < 1 || k.rxQueues > 64) {
    throw offlab::Error("host.rx_queues must be between 1 and 64");
  }
  if (s.hwOffload) {
    throw offlab::Error("ovs.hw_offload applies to the ovs-dpdk host kind");
  }
  if (s.vms < 1 || s.vms > 64) {
    throw offlab::Error("vms must be between 1 and 64");
  }
  if ((k.remcsumTx || k.remcsumRx) && s.tunnel != "vxlan") {
    throw offlab::Error("host.vxlan_remcsum needs tunnel vxlan");
  }
  HostConfig(0);  // an unknown NIC, a profile without a kernel view, a bad feature name
}

offlab::kernel::KernelHost KernelTunnelHelper::HostConfig(uint32_t h) const {
  return KernelHostConfig(m_s, m_kv, h, m_nic[h], m_nic[1 - h]);
}

void KernelTunnelHelper::Install(Time start, Time stop) {
  const KernelHostOptions& k = m_s.kernel;
  m_guests.Create(m_s, m_s.guestTso && m_s.guestCsum);
  Ptr<OffloadChannel> wire = MakeWire(m_s);
  for (uint32_t h = 0; h < 2; h++) {
    m_nic[h] = MakeWiredNic(m_s, wire);
    // The kernel queues skbs, not descriptors: txqueuelen 1000 (the default,
    // net/ethernet/eth.c ether_setup) TSO packets of up to 45 frames each.
    m_nic[h]->SetAttribute("TxQueueLimit", UintegerValue(1000 * 45));
  }
  for (uint32_t h = 0; h < 2; h++) {
    m_host[h] = CreateObject<LinuxHost>();
    const offlab::NicProfile& nic = m_nic[h]->GetProfile();
    m_host[h]->SetAttribute("RxRingSize", UintegerValue(RxRing(k, nic, true)));
    const double irq =
        k.irqDelayUs >= 0 ? k.irqDelayUs : DefaultIrqDelayUs(nic.kernel ? nic.kernel->driver : "");
    m_host[h]->SetAttribute("IrqDelay", TimeValue(NanoSeconds(static_cast<int64_t>(irq * 1e3))));
    m_host[h]->SetAttribute("RssUdpPorts", BooleanValue(k.rssUdpPorts));
    m_host[h]->SetConfig(HostConfig(h));
    m_host[h]->SetKernelCosts(MakeCpu(m_s.cost.kernel));
    m_nic[h]->GetNode()->AggregateObject(m_host[h]);
    m_host[h]->SetNic(m_nic[h]);
    for (uint32_t q = 0; q < k.rxQueues; q++) {
      m_host[h]->AddRxQueue(MakeCpu(m_s.cost.kernel));
    }
    for (uint32_t i = 0; i < m_s.vms; i++) {
      if (k.attach == "tap") {
        m_host[h]->AddTapGuest(m_guests.Get(h, i), MakeCpu(m_s.cost.kernel));
      } else {
        m_host[h]->AddSocketApp(m_guests.Get(h, i));
      }
    }
  }
  m_guests.InstallApps(start, stop);
}

void KernelTunnelHelper::ResetStats() {
  m_statsStart = Simulator::Now();
  m_guests.ResetStats();
  for (uint32_t h = 0; h < 2; h++) {
    m_host[h]->ResetStats();
  }
}

double KernelTunnelHelper::GetGoodput() const {
  const double span = (Simulator::Now() - m_statsStart).GetSeconds();
  return span > 0 ? m_guests.ReceivedBytes() * 8 / span : 0;
}

HostStats KernelTunnelHelper::GetHostStats(uint32_t host) const {
  std::vector<Ptr<CpuModel>> guests;
  for (uint32_t i = 0; i < m_guests.GetN(); i++) {
    guests.push_back(m_guests.Get(host, i)->GetCpu());
  }
  return KernelHostStats(m_host[host], m_nic[host], guests,
                         (Simulator::Now() - m_statsStart).GetSeconds());
}

Ptr<OffloadNetDevice> KernelTunnelHelper::GetNic(uint32_t host) const { return m_nic[host]; }

Ptr<LinuxHost> KernelTunnelHelper::GetHost(uint32_t host) const { return m_host[host]; }

std::vector<std::string> KernelTunnelHelper::GetEvents() const {
  std::vector<std::string> all;
  for (uint32_t h = 0; h < 2; h++) {
    for (const std::string& e : m_host[h]->GetEvents()) {
      all.push_back("host" + std::to_string(h) + ": " + e);
    }
  }
  return all;
}

}  // namespace ns3
