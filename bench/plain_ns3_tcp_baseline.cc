// SPDX-License-Identifier: Apache-2.0
// The per-frame reference for sim_speed_bench.py: the traffic of the
// simulator's VXLAN scenario (one bulk TCP flow, 1398-byte segments on a
// 10 Gbit/s wire) built from stock ns-3 parts only: a point-to-point link
// that carries every frame as its own event, ns-3 TCP Cubic with the same
// buffers. The link's inter-frame gap stands for the bytes a VXLAN frame
// carries beyond a point-to-point one (outer Ethernet, IPv4, UDP and VXLAN
// headers, inner Ethernet, preamble, FCS and gap), so both wires give the
// same goodput.
//
//   plain_ns3_tcp_baseline SECONDS WARMUP_SECONDS SOCKET_BUFFER_BYTES [SEGMENTS_PER_PACKET]
// prints: goodput_gbps=<x> wall_seconds=<y>
//
// SEGMENTS_PER_PACKET k > 1 makes each TCP packet k segments long (MSS
// k * 1398, the wire time of k VXLAN frames): ns-3's TCP at the granularity
// the simulator's guests run at (64 KB TSO packets), with no per-frame work
// at all. Its wall time is a floor for any simulator whose guests run ns-3's
// TCP.
//
// The socket buffer matters to the wall time, not to the goodput: ns-3's TCP
// send buffer walks its list of segments in flight on every ACK, so the
// simulator's 16 MB (about 12000 segments of 1398 bytes in flight) costs
// plain ns-3 far more than 256 KB does.
#include <chrono>
#include <cstdio>
#include <cstdlib>

// Single headers, not the *-module.h umbrellas: ns-3 3.37's singleton.h does
// not compile as C++20.
#include "ns3/bulk-send-helper.h"
#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/inet-socket-address.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/packet-sink-helper.h"
#include "ns3/packet-sink.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

using namespace ns3;

namespace {

constexpr uint32_t kMss = 1398;  // the simulator's guest MSS over VXLAN (MTU 1450)
// Wire bytes per segment: the VXLAN frame (14+20+8+8+14+20+32 header bytes
// + payload) plus 24 of preamble, FCS and gap; point-to-point sends PPP (2)
// + IPv4 (20) + TCP with timestamps (32) + payload.
constexpr uint32_t kVxlanWireExtra = (14 + 20 + 8 + 8 + 14 + 20 + 32 + 24) - (2 + 20 + 32);

uint64_t g_rx = 0;

void CountRx(Ptr<const Packet> p, const Address&) { g_rx += p->GetSize(); }

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4 && argc != 5) {
    std::fprintf(stderr,
                 "usage: plain_ns3_tcp_baseline SECONDS WARMUP_SECONDS SOCKET_BUFFER_BYTES "
                 "[SEGMENTS_PER_PACKET]\n");
    return 2;
  }
  const double seconds = std::atof(argv[1]);
  const double warmup = std::atof(argv[2]);
  const long buffer = std::atol(argv[3]);
  const long k = argc == 5 ? std::atol(argv[4]) : 1;
  if (!(seconds > 0 && warmup >= 0 && warmup < seconds) || buffer < 65536 || buffer > (1L << 30) ||
      k < 1 || k * kMss + 20 + 32 > 65535) {
    std::fprintf(stderr,
                 "plain_ns3_tcp_baseline: need SECONDS > WARMUP_SECONDS >= 0, a buffer of "
                 "64 KB to 1 GB and 1 to 46 segments per packet\n");
    return 2;
  }
  const uint32_t mss = static_cast<uint32_t>(k) * kMss;
  const auto wall0 = std::chrono::steady_clock::now();
  const double rateBps = 10e9;
  Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mss));
  Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(static_cast<uint32_t>(buffer)));
  Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(static_cast<uint32_t>(buffer)));
  Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
  Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue("ns3::TcpCubic"));

  NodeContainer nodes;
  nodes.Create(2);
  PointToPointHelper p2p;
  p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(static_cast<uint64_t>(rateBps))));
  p2p.SetDeviceAttribute("Mtu", UintegerValue(mss + 20 + 32));
  // k VXLAN frames carry k times the extra bytes, and k - 1 more PPP, IPv4
  // and TCP headers than the one k-segment point-to-point frame.
  const double gapBytes = static_cast<double>(k * kVxlanWireExtra + (k - 1) * (2 + 20 + 32));
  p2p.SetDeviceAttribute("InterframeGap", TimeValue(Seconds(gapBytes * 8 / rateBps)));
  // The simulator's wire: 5 us of cable plus the hosts' datapaths.
  p2p.SetChannelAttribute("Delay", TimeValue(MicroSeconds(5)));
  p2p.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("8192p"));
  NetDeviceContainer devs = p2p.Install(nodes);
  InternetStackHelper stack;
  stack.Install(nodes);
  Ipv4AddressHelper addr;
  addr.SetBase("10.0.0.0", "255.255.255.0");
  Ipv4InterfaceContainer ifs = addr.Assign(devs);

  const uint16_t port = 5001;
  PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
  ApplicationContainer s = sink.Install(nodes.Get(1));
  s.Start(Seconds(0));
  BulkSendHelper src("ns3::TcpSocketFactory", InetSocketAddress(ifs.GetAddress(1), port));
  src.SetAttribute("MaxBytes", UintegerValue(0));
  src.SetAttribute("SendSize", UintegerValue(k == 1 ? 64000 : mss));
  src.Install(nodes.Get(0)).Start(Seconds(0));
  DynamicCast<PacketSink>(s.Get(0))->TraceConnectWithoutContext("Rx", MakeCallback(&CountRx));

  uint64_t base = 0;
  Simulator::Schedule(Seconds(warmup), [&base]() { base = g_rx; });
  Simulator::Stop(Seconds(seconds));
  Simulator::Run();
  const double goodput = static_cast<double>(g_rx - base) * 8 / (seconds - warmup);
  Simulator::Destroy();
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  std::printf("goodput_gbps=%.6f wall_seconds=%.3f\n", goodput / 1e9, wall);
  return 0;
}
