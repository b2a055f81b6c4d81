// SPDX-License-Identifier: Apache-2.0
#include "kernel-tunnel-helper.h"

#include <numeric>

#include "ns3/boolean.h"
#include "ns3/offload-channel.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"
#include "offlab/linux/features.h"
#include "offlab/net/addr.h"
#include "offlab/net/error.h"
#include "offlab/nic/nic_profile.h"

namespace ns3 {

namespace {

// `ethtool -K DEV NAME off` for the NIC: a feature's full name, or one of
// ethtool's short names for a group (tx, sg, tso, gro).
void FeatureOff(const std::string& name, offlab::kernel::KernelHost& h) {
  namespace netif = offlab::kernel::netif;
  if (name == "gro" || name == "rx-gro" || name == "generic-receive-offload") {
    h.gro = false;
  } else if (name == "tx" || name == "tx-checksumming") {
    h.nic_dev.features &= ~(netif::kCsumMask);
    // An ibmveth partition without checksum offload sends full checksums,
    // so its peer's descriptors no longer say IBMVETH_RXQ_CSUM_GOOD.
    h.rx_meta.ibmveth_csum_good = false;
  } else if (name == "sg" || name == "scatter-gather") {
    h.nic_dev.features &= ~netif::kSg;
  } else if (name == "tso" || name == "tcp-segmentation-offload") {
    h.nic_dev.features &= ~(netif::kTso | offlab::kernel::FeatureFromName("tx-tcp6-segmentation"));
  } else {
    h.nic_dev.features &= ~offlab::kernel::FeatureFromName(name);
  }
}

std::array<uint8_t, 16> Addr(const std::string& text) {
  bool v6 = false;
  return offlab::ParseIp(text, &v6);
}

}  // namespace

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
  namespace kn = offlab::kernel;
  const KernelHostOptions& k = m_s.kernel;
  kn::KernelHost c = kn::MakeKernelHost(offlab::BuiltinProfile(m_s.nic), m_kv);
  c.gro = m_s.gro;
  for (const std::string& f : k.ethtoolOff) {
    FeatureOff(f, c);
  }
  c.mtu = m_s.mtu;
  c.nic_dev.mtu = m_s.mtu;
  if (m_nic[0]) {
    Mac48Address::ConvertFrom(m_nic[h]->GetAddress()).CopyTo(c.route.src_mac.data());
    Mac48Address::ConvertFrom(m_nic[1 - h]->GetAddress()).CopyTo(c.route.dst_mac.data());
  }
  c.sw = k.datapath == "ovs"      ? kn::HostSwitch::kOvs
         : k.datapath == "bridge" ? kn::HostSwitch::kBridge
                                  : kn::HostSwitch::kRouted;
  c.attach = k.attach == "tap" ? kn::HostAttach::kTap : kn::HostAttach::kSocket;
  c.tap_offloads = m_s.guestCsum ? kn::tun_f::kCsum : 0;
  if (m_s.guestCsum && m_s.guestTso) {
    c.tap_offloads |= kn::tun_f::kTso4 | kn::tun_f::kTso6 | kn::tun_f::kTsoEcn;
  }
  c.mss = GuestMss(m_s);
  if (m_s.tunnel == "vxlan") {
    const bool v6 = m_s.ipv6Underlay;
    const std::string a = v6 ? "fd00::1" : "172.16.0.1";
    const std::string b = v6 ? "fd00::2" : "172.16.0.2";
    kn::VxlanConfig v;
    v.vni = 42;
    v.ipv6 = v6;
    v.local = Addr(h == 0 ? a : b);
    v.remote = Addr(h == 0 ? b : a);
    v.udp_csum = m_s.outerCsum;
    v.udp6_zero_csum_tx = v6 && !m_s.outerCsum;
    v.udp6_zero_csum_rx = v6 && !m_s.outerCsum;
    v.remcsum_tx = k.remcsumTx;
    v.remcsum_rx = k.remcsumRx;
    c.vxlan = v;
    if (c.sw == kn::HostSwitch::kOvs) {
      // set(tunnel(dst=..., tun_id=42, csum)) then the vxlan vport.
      kn::OvsTunnelKey t;
      t.ipv6 = v6;
      t.src = v.local;
      t.dst = v.remote;
      t.tun_id = 42;
      t.csum = m_s.outerCsum;
      c.ovs_tunnel = t;
    }
  }
  return c;
}

void KernelTunnelHelper::Install(Time start, Time stop) {
  const KernelHostOptions& k = m_s.kernel;
  m_guests.Create(m_s, m_s.guestTso && m_s.guestCsum);
  Ptr<OffloadChannel> wire = CreateObject<OffloadChannel>();
  wire->SetAttribute("Delay", TimeValue(MicroSeconds(m_s.delayUs)));
  for (uint32_t h = 0; h < 2; h++) {
    Ptr<Node> node = CreateObject<Node>();
    m_nic[h] = CreateObject<OffloadNetDevice>();
    m_nic[h]->SetProfile(m_s.nic);
    if (m_s.linkGbps > 0) {
      m_nic[h]->SetAttribute("DataRate",
                             DataRateValue(DataRate(static_cast<uint64_t>(m_s.linkGbps * 1e9))));
    }
    m_nic[h]->SetAttribute("TrainMode", BooleanValue(m_s.trainMode));
    node->AddDevice(m_nic[h]);
    m_nic[h]->Attach(wire);
  }
  for (uint32_t h = 0; h < 2; h++) {
    m_host[h] = CreateObject<LinuxHost>();
    if (k.ringSize) {
      m_host[h]->SetAttribute("RxRingSize", UintegerValue(k.ringSize));
    }
    if (k.irqDelayUs >= 0) {
      m_host[h]->SetAttribute("IrqDelay", TimeValue(MicroSeconds(k.irqDelayUs)));
    }
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
  HostStats st;
  st.kind = "kernel";
  Ptr<LinuxHost> lh = m_host[host];
  const double span = (Simulator::Now() - m_statsStart).GetSeconds();
  for (uint32_t q = 0; q < lh->GetNRxQueues(); q++) {
    st.softirqs.push_back(LoadOf(lh->GetSoftirqCpu(q), span));
  }
  for (uint32_t i = 0; i < m_guests.GetN(); i++) {
    st.guests.push_back(LoadOf(m_guests.Get(host, i)->GetCpu(), span));
    st.guestUtilisation.push_back(st.guests.back().utilisation);
    if (Ptr<CpuModel> v = lh->GetVhostCpu(i)) {
      st.vhosts.push_back(LoadOf(v, span));
    }
  }
  const LinuxHost::Stats& k = lh->GetStats();
  const double per = span > 0 ? 1 / span : 0;
  double busy = 0;
  for (const CoreLoad& l : st.softirqs) {
    busy += l.utilisation;
  }
  st.kernel["softirq_busy_pct"] = st.softirqs.empty() ? 0 : 100 * busy / st.softirqs.size();
  st.kernel["napi_polls_per_s"] = static_cast<double>(k.polls) * per;
  st.kernel["rx_frames_per_s"] = static_cast<double>(k.rxFrames) * per;
  st.kernel["gro_merges_per_s"] = static_cast<double>(k.groMerged) * per;
  st.kernel["skbs_up_per_s"] = static_cast<double>(k.skbsUp) * per;
  st.kernel["skbs_to_switch_per_s"] = static_cast<double>(k.skbsFinal) * per;
  st.kernel["frames_per_skb"] =
      k.skbsFinal ? static_cast<double>(k.rxFrames) / static_cast<double>(k.skbsFinal) : 0;
  st.kernel["sw_csum_bytes_per_s"] = static_cast<double>(k.swCsumBytes) * per;
  st.kernel["copy_bytes_per_s"] = static_cast<double>(k.copyBytes) * per;
  st.kernel["sw_segments_per_s"] = static_cast<double>(k.swSegments) * per;
  st.kernel["rx_ring_drops"] = static_cast<double>(k.ringDrops);
  st.kernel["cpu_drops"] = static_cast<double>(k.cpuDrops);
  st.kernel["hw_switched_per_s"] = static_cast<double>(k.hwSwitched) * per;
  uint64_t notValidated = 0;
  for (const auto& [why, n] : k.notValidated) {
    st.kernel["not_validated_per_s:" + why] = static_cast<double>(n) * per;
    notValidated += n;
  }
  st.kernel["not_validated_per_s"] = static_cast<double>(notValidated) * per;
  for (const auto& [name, v] : lh->GetCounters().values()) {
    if (v) {
      st.counters[name] = v;
    }
  }
  st.txFrames = m_nic[host]->GetTxFrames();
  st.rxFrames = m_nic[host]->GetRxFrames();
  st.trains = m_nic[host]->GetTrains();
  st.txDrops = m_nic[host]->GetTxDrops();
  st.groIn = k.rxFrames;
  st.groOut = k.skbsFinal;
  st.groNotValidated = notValidated;
  return st;
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
