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

void VmTunnelHelper::Install(Time start, Time stop) {
  // vhost-user offers the guest TSO only with userspace-tso-enable
  // (OVS d6a632a9b lib/netdev-dpdk.c:6416-6485,
  // netdev_dpdk_vhost_client_reconfigure: HOST_TSO4/6 unsupported).
  m_guests.Create(m_s, m_s.guestTso && m_s.userspaceTso);
  Ptr<OffloadChannel> wire = MakeWire(m_s);
  for (uint32_t h = 0; h < 2; h++) {
    m_nic[h] = MakeWiredNic(m_s, wire);
    m_nic[h]->SetAttribute("Gro", BooleanValue(m_s.gro));
    Ptr<Node> host = m_nic[h]->GetNode();
    m_switch[h] = CreateObject<OvsSwitch>();
    m_switch[h]->SetAttribute("UdpTunnelCsum", BooleanValue(m_s.udpTunnelCsum));
    m_switch[h]->SetAttribute("PartialGso", BooleanValue(m_s.partialGso));
    m_switch[h]->SetAttribute("HwOffload", BooleanValue(m_s.hwOffload));
    m_switch[h]->SetAttribute("UserspaceTso", BooleanValue(m_s.userspaceTso));
    host->AggregateObject(m_switch[h]);
    for (uint32_t i = 0; i < m_s.pmdThreads; i++) {
      m_switch[h]->AddPmd(MakeCpu(m_s.cost.pmd));
    }
    // The underlay MTU: the switch's phy port refuses longer frames.
    m_nic[h]->SetMtu(static_cast<uint16_t>(m_s.mtu));
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
      const std::string name = "vm" + std::to_string(i);
      sw->AddVhostPort(name, m_guests.Get(h, i));
      sw->AddFlow("in_port=" + name + ",actions=output:" + out);
      sw->AddFlow("in_port=" + out + ",ip,nw_dst=" + GuestIp(h, i) + ",actions=output:" + name);
    }
  }
  m_guests.InstallApps(start, stop);
}

void VmTunnelHelper::ResetStats() {
  m_statsStart = Simulator::Now();
  m_guests.ResetStats();
  for (uint32_t h = 0; h < 2; h++) {
    m_counterBase[h].clear();
    for (const auto& [k, v] : m_switch[h]->GetCounters().values()) {
      m_counterBase[h][k] = v;
    }
    for (uint32_t i = 0; i < m_switch[h]->GetNPmds(); i++) {
      m_switch[h]->GetPmd(i)->ResetStats();
    }
  }
}

double VmTunnelHelper::GetGoodput() const {
  const double span = (Simulator::Now() - m_statsStart).GetSeconds();
  if (span <= 0) {
    return 0;
  }
  return m_guests.ReceivedBytes() * 8 / span;
}

HostStats VmTunnelHelper::GetHostStats(uint32_t host) const {
  HostStats st;
  Ptr<OvsSwitch> sw = m_switch[host];
  const double span = (Simulator::Now() - m_statsStart).GetSeconds();
  for (uint32_t i = 0; i < sw->GetNPmds(); i++) {
    st.pmds.push_back(LoadOf(sw->GetPmd(i), span));
    st.pmdUtilisation.push_back(st.pmds.back().utilisation);
  }
  for (uint32_t i = 0; i < m_guests.GetN(); i++) {
    st.guests.push_back(LoadOf(m_guests.Get(host, i)->GetCpu(), span));
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
