// SPDX-License-Identifier: Apache-2.0
#include "vm-tunnel-helper.h"

#include <cmath>

#include "ns3/boolean.h"
#include "ns3/bulk-send-helper.h"
#include "ns3/config.h"
#include "ns3/double.h"
#include "ns3/inet-socket-address.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/ipv4-interface.h"
#include "ns3/ipv4-l3-protocol.h"
#include "ns3/ipv4.h"
#include "ns3/offload-channel.h"
#include "ns3/packet-sink-helper.h"
#include "ns3/packet-sink.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/uinteger.h"
#include "offlab/net/error.h"
#include "offlab/nic/nic_profile.h"
#include "offlab/ovs/egress.h"
#include "offlab/ovs/flow.h"

namespace ns3 {

namespace {

std::string Ip(uint32_t host, uint32_t vm) {
  return "10.0.0." + std::to_string(host == 0 ? 1 + vm : 101 + vm);
}

offlab::TunnelType TunnelTypeOf(const std::string& t) {
  if (t == "vxlan") {
    return offlab::TunnelType::kVxlan;
  }
  if (t == "geneve") {
    return offlab::TunnelType::kGeneve;
  }
  if (t == "gre") {
    return offlab::TunnelType::kGre;
  }
  throw offlab::Error("unknown tunnel type '" + t + "' (known: vxlan, geneve, gre, none)");
}

// The overlay MTU that leaves room for the encapsulation on the underlay.
uint16_t GuestMtu(const TunnelScenario& s) {
  if (s.tunnel == "none") {
    return static_cast<uint16_t>(s.mtu);
  }
  const uint16_t ip = s.ipv6Underlay ? 40 : 20;
  const uint16_t encap = s.tunnel == "gre" ? 4 + 4 : 8 + 8;  // GRE+key / UDP+VXLAN or Geneve
  return static_cast<uint16_t>(s.mtu - ip - encap - 14);
}

}  // namespace

VmTunnelHelper::VmTunnelHelper(const TunnelScenario& s) : m_s(s) {
  offlab::BuiltinProfile(s.nic);  // throws for an unknown NIC
  if (s.tunnel != "none") {
    TunnelTypeOf(s.tunnel);
  }
  if (s.vms < 1 || s.vms > 64) {
    throw offlab::Error("vms must be between 1 and 64");
  }
  if (s.pmdThreads < 1 || s.pmdThreads > 64) {
    throw offlab::Error("pmd_threads must be between 1 and 64");
  }
  offlab::CheckEgressOptions({.udp_tunnel_csum = s.udpTunnelCsum, .partial_gso = s.partialGso});
  if (s.hwOffload && offlab::BuiltinProfile(s.nic).driver != "net_mlx5") {
    // rte_flow VXLAN/Geneve encap and decap actions with VF representors
    // (OVS Documentation/howto/dpdk.rst "Hardware offload"); modelled for the
    // mlx5 eSwitch only.
    throw offlab::Error(
        "ovs.hw_offload needs a NIC with an eSwitch (mlx5: connectx5, "
        "connectx6dx, bluefield2), not " +
        s.nic);
  }
  if (s.mtu < 1280 || s.mtu > 9000) {
    throw offlab::Error("mtu must be between 1280 and 9000");
  }
  const uint32_t mss = GuestMtu(s) - 20 - 32;
  if (s.packetSize > mss) {
    throw offlab::Error("guest.packet_size " + std::to_string(s.packetSize) +
                        " is larger than the guests' MSS " + std::to_string(mss));
  }
  if (!(s.linkGbps >= 0 && s.linkGbps <= 1000)) {
    throw offlab::Error("link_gbps must be between 0 and 1000");
  }
  if (!(s.delayUs >= 0 && s.delayUs <= 1e6)) {
    throw offlab::Error("delay_us must be between 0 and 1000000");
  }
}

Ptr<CpuModel> VmTunnelHelper::MakeCpu(const CoreCosts& c) const {
  Ptr<CpuModel> cpu = CreateObject<CpuModel>();
  cpu->SetAttribute("ClockHz", DoubleValue(c.clockHz));
  cpu->SetAttribute("CyclesPerPacket", DoubleValue(c.perPacket));
  cpu->SetAttribute("CyclesPerRxFrame", DoubleValue(c.perRxFrame));
  cpu->SetAttribute("CyclesPerTxFrame", DoubleValue(c.perTxFrame));
  cpu->SetAttribute("CyclesPerSegment", DoubleValue(c.perSegment));
  cpu->SetAttribute("CyclesPerCsumByte", DoubleValue(c.perCsumByte));
  cpu->SetAttribute("CyclesPerCopyByte", DoubleValue(c.perCopyByte));
  return cpu;
}

void VmTunnelHelper::Install(Time start, Time stop) {
  const uint16_t guestMtu = GuestMtu(m_s);
  // The guest stack's segment: one 64 KB TSO frame of whole MSS segments.
  const uint16_t mss = guestMtu - 20 - 32;
  // A packet size below the MSS: every write is one segment (no Nagle).
  const bool guestTso = m_s.guestTso && m_s.userspaceTso;
  const uint32_t segment =
      m_s.packetSize > 0 ? m_s.packetSize : (guestTso ? (64000 / mss) * mss : mss);
  Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(segment));
  Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(16 << 20));
  // The receive window bounds what is in flight, so queues stay within the
  // cores' backlog and the flow runs at its bottleneck without loss.
  Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(16 << 20));
  Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
  Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue("ns3::TcpCubic"));

  Ptr<OffloadChannel> wire = CreateObject<OffloadChannel>();
  wire->SetAttribute("Delay", TimeValue(MicroSeconds(m_s.delayUs)));
  InternetStackHelper stack;
  for (uint32_t h = 0; h < 2; h++) {
    Ptr<Node> host = CreateObject<Node>();
    m_nic[h] = CreateObject<OffloadNetDevice>();
    m_nic[h]->SetProfile(m_s.nic);
    if (m_s.linkGbps > 0) {
      m_nic[h]->SetAttribute("DataRate",
                             DataRateValue(DataRate(static_cast<uint64_t>(m_s.linkGbps * 1e9))));
    }
    m_nic[h]->SetAttribute("TrainMode", BooleanValue(m_s.trainMode));
    m_nic[h]->SetAttribute("Gro", BooleanValue(m_s.gro));
    host->AddDevice(m_nic[h]);
    m_nic[h]->Attach(wire);
    m_switch[h] = CreateObject<OvsSwitch>();
    m_switch[h]->SetAttribute("UdpTunnelCsum", BooleanValue(m_s.udpTunnelCsum));
    m_switch[h]->SetAttribute("PartialGso", BooleanValue(m_s.partialGso));
    m_switch[h]->SetAttribute("HwOffload", BooleanValue(m_s.hwOffload));
    m_switch[h]->SetAttribute("UserspaceTso", BooleanValue(m_s.userspaceTso));
    host->AggregateObject(m_switch[h]);
    for (uint32_t i = 0; i < m_s.pmdThreads; i++) {
      m_switch[h]->AddPmd(MakeCpu(m_s.cost.pmd));
    }
    m_switch[h]->AddPhyPort("phy", m_nic[h]);
  }
  for (uint32_t h = 0; h < 2; h++) {
    const uint32_t peer = 1 - h;
    Ptr<OvsSwitch> sw = m_switch[h];
    std::string out = "phy";
    if (m_s.tunnel != "none") {
      offlab::TunnelConfig t;
      t.type = TunnelTypeOf(m_s.tunnel);
      t.ipv6 = m_s.ipv6Underlay;
      Mac48Address::ConvertFrom(m_nic[h]->GetAddress()).CopyTo(t.eth_src.data());
      Mac48Address::ConvertFrom(m_nic[peer]->GetAddress()).CopyTo(t.eth_dst.data());
      bool v6 = false;
      const std::string a = m_s.ipv6Underlay ? "fd00::1" : "172.16.0.1";
      const std::string b = m_s.ipv6Underlay ? "fd00::2" : "172.16.0.2";
      t.ip_src = offlab::ParseIp(h == 0 ? a : b, &v6);
      t.ip_dst = offlab::ParseIp(h == 0 ? b : a, &v6);
      t.key = 42;
      t.csum = m_s.outerCsum;
      sw->AddTunnelPort("tun", t, "phy");
      out = "tun";
      const std::string l3 = m_s.ipv6Underlay ? "ipv6" : "ip";
      if (m_s.tunnel == "gre") {
        sw->AddFlow("in_port=phy," + l3 + ",nw_proto=47,actions=tnl_pop:tun");
      } else {
        const std::string port = m_s.tunnel == "vxlan" ? "4789" : "6081";
        sw->AddFlow("in_port=phy," + std::string(m_s.ipv6Underlay ? "udp6" : "udp") +
                    ",tp_dst=" + port + ",actions=tnl_pop:tun");
      }
    }
    for (uint32_t i = 0; i < m_s.vms; i++) {
      Ptr<Node> vm = CreateObject<Node>();
      Ptr<VirtioNetDevice> dev = CreateObject<VirtioNetDevice>();
      // vhost-user offers the guest TSO only with userspace-tso-enable
      // (OVS d6a632a9b lib/netdev-dpdk.c:6416-6485,
      // netdev_dpdk_vhost_client_reconfigure: HOST_TSO4/6 unsupported).
      dev->SetAttribute("Tso", BooleanValue(m_s.guestTso && m_s.userspaceTso));
      dev->SetAttribute("CsumOffload", BooleanValue(m_s.guestCsum));
      dev->SetAttribute("GuestMtu", UintegerValue(guestMtu));
      dev->SetCpu(MakeCpu(m_s.cost.guest));
      vm->AddDevice(dev);
      stack.Install(vm);
      Ptr<Ipv4> ipv4 = vm->GetObject<Ipv4>();
      const int32_t ifc = ipv4->AddInterface(dev);
      ipv4->AddAddress(ifc, Ipv4InterfaceAddress(Ipv4Address(Ip(h, i).c_str()), "255.255.255.0"));
      ipv4->SetUp(ifc);
      m_guests[h].push_back(dev);
      const std::string name = "vm" + std::to_string(i);
      sw->AddVhostPort(name, dev);
      sw->AddFlow("in_port=" + name + ",actions=output:" + out);
      sw->AddFlow("in_port=" + out + ",ip,nw_dst=" + Ip(h, i) + ",actions=output:" + name);
    }
  }
  for (uint32_t i = 0; i < m_s.vms; i++) {
    m_guests[0][i]->SetPeerAddress(Mac48Address::ConvertFrom(m_guests[1][i]->GetAddress()));
    m_guests[1][i]->SetPeerAddress(Mac48Address::ConvertFrom(m_guests[0][i]->GetAddress()));
    const uint16_t port = 5001;
    PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer s = sink.Install(m_guests[1][i]->GetNode());
    s.Start(start);
    s.Stop(stop);
    m_sinks.Add(s);
    BulkSendHelper src("ns3::TcpSocketFactory",
                       InetSocketAddress(Ipv4Address(Ip(1, i).c_str()), port));
    src.SetAttribute("MaxBytes", UintegerValue(0));
    src.SetAttribute("SendSize", UintegerValue(segment));
    ApplicationContainer c = src.Install(m_guests[0][i]->GetNode());
    c.Start(start + MicroSeconds(10 * i));
    c.Stop(stop);
  }
  m_sinkBase.assign(m_s.vms, 0);
}

void VmTunnelHelper::ResetStats() {
  m_statsStart = Simulator::Now();
  for (uint32_t i = 0; i < m_sinks.GetN(); i++) {
    m_sinkBase[i] = DynamicCast<PacketSink>(m_sinks.Get(i))->GetTotalRx();
  }
  for (uint32_t h = 0; h < 2; h++) {
    m_counterBase[h].clear();
    for (const auto& [k, v] : m_switch[h]->GetCounters().values()) {
      m_counterBase[h][k] = v;
    }
    for (uint32_t i = 0; i < m_switch[h]->GetNPmds(); i++) {
      m_switch[h]->GetPmd(i)->ResetStats();
    }
    for (auto& g : m_guests[h]) {
      g->GetCpu()->ResetStats();
    }
  }
}

double VmTunnelHelper::GetGoodput() const {
  const double span = (Simulator::Now() - m_statsStart).GetSeconds();
  if (span <= 0) {
    return 0;
  }
  double bytes = 0;
  for (uint32_t i = 0; i < m_sinks.GetN(); i++) {
    bytes +=
        static_cast<double>(DynamicCast<PacketSink>(m_sinks.Get(i))->GetTotalRx() - m_sinkBase[i]);
  }
  return bytes * 8 / span;
}

namespace {

CoreLoad LoadOf(Ptr<CpuModel> cpu, double span) {
  CoreLoad l;
  l.utilisation = cpu->GetUtilisation();
  l.drops = cpu->GetDrops();
  if (span > 0) {
    const CpuWork& w = cpu->GetWork();
    l.workPerS.packets = w.packets / span;
    l.workPerS.rxFrames = w.rxFrames / span;
    l.workPerS.txFrames = w.txFrames / span;
    l.workPerS.swSegments = w.swSegments / span;
    l.workPerS.csumBytes = w.csumBytes / span;
    l.workPerS.copyBytes = w.copyBytes / span;
    l.cyclesPerS = cpu->Cycles(l.workPerS);
  }
  return l;
}

}  // namespace

HostStats VmTunnelHelper::GetHostStats(uint32_t host) const {
  HostStats st;
  Ptr<OvsSwitch> sw = m_switch[host];
  const double span = (Simulator::Now() - m_statsStart).GetSeconds();
  for (uint32_t i = 0; i < sw->GetNPmds(); i++) {
    st.pmds.push_back(LoadOf(sw->GetPmd(i), span));
    st.pmdUtilisation.push_back(st.pmds.back().utilisation);
  }
  for (const auto& g : m_guests[host]) {
    st.guests.push_back(LoadOf(g->GetCpu(), span));
    st.guestUtilisation.push_back(st.guests.back().utilisation);
  }
  for (const auto& [k, v] : sw->GetCounters().values()) {
    const auto base = m_counterBase[host].find(k);
    const uint64_t since = v - (base == m_counterBase[host].end() ? 0 : base->second);
    if (since) {
      st.counters[k] = since;
    }
  }
  st.txFrames = m_nic[host]->GetTxFrames();
  st.rxFrames = m_nic[host]->GetRxFrames();
  st.trains = m_nic[host]->GetTrains();
  st.txDrops = m_nic[host]->GetTxDrops();
  st.pmdDrops = sw->GetPmdDrops();
  const offlab::CoalesceStats gro = m_nic[host]->GetGroStats();
  st.groIn = gro.frames_in;
  st.groOut = gro.packets_out;
  st.groNotValidated = gro.not_validated;
  return st;
}

Ptr<OffloadNetDevice> VmTunnelHelper::GetNic(uint32_t host) const { return m_nic[host]; }

Ptr<OvsSwitch> VmTunnelHelper::GetSwitch(uint32_t host) const { return m_switch[host]; }

std::vector<std::string> VmTunnelHelper::GetEvents() const {
  std::vector<std::string> all;
  for (uint32_t h = 0; h < 2; h++) {
    for (const std::string& e : m_switch[h]->GetEvents()) {
      all.push_back("host" + std::to_string(h) + ": " + e);
    }
  }
  return all;
}

}  // namespace ns3
