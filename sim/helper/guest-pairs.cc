// SPDX-License-Identifier: Apache-2.0
#include "guest-pairs.h"

#include <algorithm>

#include "ns3/boolean.h"
#include "ns3/bulk-send-helper.h"
#include "ns3/config.h"
#include "ns3/inet-socket-address.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4.h"
#include "ns3/nstime.h"
#include "ns3/packet-sink-helper.h"
#include "ns3/packet-sink.h"
#include "ns3/string.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/uinteger.h"

namespace ns3 {

uint16_t GuestMtu(const TunnelScenario& s) {
  if (s.tunnel == "none") {
    return static_cast<uint16_t>(s.mtu);
  }
  const uint16_t ip = s.ipv6Underlay ? 40 : 20;
  const uint16_t encap = s.tunnel == "gre" ? 4 + 4 : 8 + 8;  // GRE+key / UDP+VXLAN or Geneve
  return static_cast<uint16_t>(s.mtu - ip - encap - 14);
}

uint16_t GuestMss(const TunnelScenario& s) {
  // IPv4 (20) and TCP with the timestamp option ns-3 uses (32).
  return static_cast<uint16_t>(GuestMtu(s) - 20 - 32);
}

std::string GuestIp(uint32_t host, uint32_t vm) {
  return "10.0." + std::to_string(vm / 100) + "." +
         std::to_string(host == 0 ? 1 + vm % 100 : 101 + vm % 100);
}

void GuestPairs::Create(const TunnelScenario& s, bool tso) {
  m_s = s;
  const uint16_t mss = GuestMss(s);
  // The guest stack's segment: one 64 KB TSO frame of whole MSS segments.
  // A packet size below the MSS: every write is one segment (no Nagle).
  const uint32_t segment = s.packetSize > 0 ? s.packetSize : (tso ? (64000 / mss) * mss : mss);
  m_segment = segment;
  Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(segment));
  Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(16 << 20));
  // The receive window bounds what is in flight, so queues stay within the
  // cores' backlog and the flow runs at its bottleneck without loss.
  Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(16 << 20));
  // Linux starts with ten MSS (TCP_INIT_CWND, include/net/tcp.h); a segment
  // here may be a whole TSO packet, so as many of those as make ten MSS, at
  // least two (one would wait for ns-3's delayed ACK, which Linux's quickack
  // mode at a connection's start does not): many flows starting at once
  // would otherwise each burst 640 KB.
  Config::SetDefault("ns3::TcpSocket::InitialCwnd",
                     UintegerValue(std::max<uint32_t>(2, 10 * mss / segment)));
  // Linux's retransmission timer floor and first SYN timeout (TCP_RTO_MIN,
  // TCP_TIMEOUT_INIT in include/net/tcp.h), not ns-3's 1 s and 3 s: a flow
  // that loses a packet while dozens start together recovers as it would.
  Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(200)));
  Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(Seconds(1)));
  Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue("ns3::TcpCubic"));
  InternetStackHelper stack;
  for (uint32_t h = 0; h < 2; h++) {
    for (uint32_t i = 0; i < s.vms; i++) {
      Ptr<Node> vm = CreateObject<Node>();
      Ptr<VirtioNetDevice> dev = CreateObject<VirtioNetDevice>();
      dev->SetAttribute("Tso", BooleanValue(tso));
      dev->SetAttribute("CsumOffload", BooleanValue(s.guestCsum));
      dev->SetAttribute("GuestMtu", UintegerValue(GuestMtu(s)));
      dev->SetCpu(MakeCpu(s.cost.guest));
      vm->AddDevice(dev);
      stack.Install(vm);
      Ptr<Ipv4> ipv4 = vm->GetObject<Ipv4>();
      const int32_t ifc = ipv4->AddInterface(dev);
      // A /16: guests past the hundredth use the next /24 of it.
      ipv4->AddAddress(ifc,
                       Ipv4InterfaceAddress(Ipv4Address(GuestIp(h, i).c_str()), "255.255.0.0"));
      ipv4->SetUp(ifc);
      m_guests[h].push_back(dev);
    }
  }
  for (uint32_t i = 0; i < s.vms; i++) {
    m_guests[0][i]->SetPeerAddress(Mac48Address::ConvertFrom(m_guests[1][i]->GetAddress()));
    m_guests[1][i]->SetPeerAddress(Mac48Address::ConvertFrom(m_guests[0][i]->GetAddress()));
  }
}

Ptr<VirtioNetDevice> GuestPairs::Get(uint32_t host, uint32_t vm) const {
  return m_guests[host].at(vm);
}

uint32_t GuestPairs::GetN() const { return static_cast<uint32_t>(m_guests[0].size()); }

void GuestPairs::InstallApps(Time start, Time stop) {
  const uint32_t segment = m_segment;
  for (uint32_t i = 0; i < GetN(); i++) {
    for (uint32_t k = 0; k < m_s.streams; k++) {
      const uint16_t port = static_cast<uint16_t>(5001 + k);
      PacketSinkHelper sink("ns3::TcpSocketFactory",
                            InetSocketAddress(Ipv4Address::GetAny(), port));
      ApplicationContainer s = sink.Install(m_guests[1][i]->GetNode());
      s.Start(start);
      s.Stop(stop);
      m_sinks.Add(s);
      BulkSendHelper src("ns3::TcpSocketFactory",
                         InetSocketAddress(Ipv4Address(GuestIp(1, i).c_str()), port));
      src.SetAttribute("MaxBytes", UintegerValue(0));
      src.SetAttribute("SendSize", UintegerValue(segment));
      ApplicationContainer c = src.Install(m_guests[0][i]->GetNode());
      // Staggered, so the flows' slow starts don't all coincide.
      c.Start(start + MicroSeconds(100 * (i * m_s.streams + k)));
      c.Stop(stop);
    }
  }
  m_sinkBase.assign(m_sinks.GetN(), 0);
}

void GuestPairs::ResetStats() {
  for (uint32_t i = 0; i < m_sinks.GetN(); i++) {
    m_sinkBase[i] = DynamicCast<PacketSink>(m_sinks.Get(i))->GetTotalRx();
  }
  for (uint32_t h = 0; h < 2; h++) {
    for (auto& g : m_guests[h]) {
      g->GetCpu()->ResetStats();
    }
  }
}

double GuestPairs::ReceivedBytes() const {
  double bytes = 0;
  for (uint32_t i = 0; i < m_sinks.GetN(); i++) {
    bytes +=
        static_cast<double>(DynamicCast<PacketSink>(m_sinks.Get(i))->GetTotalRx() - m_sinkBase[i]);
  }
  return bytes;
}

}  // namespace ns3
