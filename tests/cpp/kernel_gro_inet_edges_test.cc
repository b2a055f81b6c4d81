// Edges of GRO's network layer (models/src/linux/gro_inet.cc): which IPv4 /
// IPv6 / inner-Ethernet header fields make another flow, UDP having no GRO
// handler before v3.14, the pre-skb_gro_postpull_rcsum IPv6 path for a
// skb that is not COMPLETE, and a VXLAN train with an inner IPv6 header
// completed through eth_gro_complete -> ipv6_gro_complete.
//
// Source: torvalds/linux v6.18 net/ipv4/af_inet.c inet_gro_receive
// ("if ((iph->protocol ^ iph2->protocol) | ((__force u32)iph->saddr ^
// (__force u32)iph2->saddr) | ...) NAPI_GRO_CB(p)->same_flow = 0"),
// net/ipv6/ip6_offload.c ipv6_gro_receive ("first_word & htonl(0xF00FFFFF)",
// addresses, nexthdr) and ipv6_gro_complete (payload_len),
// net/ethernet/eth.c eth_gro_receive (compare_ether_header) and
// eth_gro_complete; b582ef0990d4 (v3.14) added UDP to inet_offloads' GRO.
// Frames: kernel_gro_test_frames.h (plain-loop sums).
#include <gtest/gtest.h>

#include "kernel_gro_test_frames.h"
#include "offlab/linux/gro.h"

namespace offlab::testing {
namespace {

using kernel::GroCell;
using kernel::GroConfig;
using kernel::GroResult;
using kernel::IpSummed;
using kernel::SkBuff;

std::vector<SkBuff> Gro(const GroConfig& c, const std::vector<Bytes>& frames,
                        IpSummed st = IpSummed::kNone) {
  GroCell g(c);
  for (const Bytes& f : frames) g.Receive(DriverSkb(f, st));
  return g.Flush();
}

// a[0], b[0], a[1], b[1], ...
std::vector<Bytes> Interleave(const std::vector<Bytes>& a, const std::vector<Bytes>& b) {
  std::vector<Bytes> out;
  for (size_t i = 0; i < a.size(); i++) out.push_back(a[i]), out.push_back(b[i]);
  return out;
}

void ExpectTwoFlowsOfTwo(const std::vector<SkBuff>& out) {
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].gso_segs, 2);
  EXPECT_EQ(out[1].gso_segs, 2);
}

TEST(KernelGroInetEdges, UdpHasNoGroHandlerBefore314) {
  Outer o;
  o.dport = 9000;
  const Bytes d = VxlanFrame(o, Bytes(600, 1));
  GroConfig c;
  c.kv = {3, 10, false};
  GroCell g(c);
  EXPECT_EQ(g.Receive(DriverSkb(d)), GroResult::kNormal);
  EXPECT_EQ(g.last_reason(), "l4_without_gro");
  // RHEL 7's 3.10 has it: the datagram reaches udp_gro_receive, which finds
  // no socket for port 9000.
  c.kv.rhel7 = true;
  GroCell r(c);
  EXPECT_EQ(r.Receive(DriverSkb(d)), GroResult::kNormal);
  EXPECT_EQ(r.last_reason(), "udp_no_gro_socket");
}

TEST(KernelGroInetEdges, Ipv4AddressesAndProtocolMakeFlows) {
  Seg a;
  Seg other_src = a;
  other_src.src[3] = 9;
  ExpectTwoFlowsOfTwo(Gro({}, Interleave(SegTrain(2, a), SegTrain(2, other_src))));
  Seg other_dst = a;
  other_dst.dst[3] = 9;
  ExpectTwoFlowsOfTwo(Gro({}, Interleave(SegTrain(2, a), SegTrain(2, other_dst))));
}

// `f` (IPv6 at 14) with `bits` set in its first 32-bit word.
Bytes WithWord0(Bytes f, uint32_t bits) {
  const uint32_t w =
      ((uint32_t{f[14]} << 24) | (uint32_t{f[15]} << 16) | (uint32_t{f[16]} << 8) | f[17]) | bits;
  f[14] = static_cast<uint8_t>(w >> 24), f[15] = static_cast<uint8_t>(w >> 16);
  f[16] = static_cast<uint8_t>(w >> 8), f[17] = static_cast<uint8_t>(w);
  return f;
}

TEST(KernelGroInetEdges, Ipv6FlowLabelAndAddressesMakeFlows) {
  // A flow label (0x12345) is part of the flow; the TCP checksum does not
  // cover it, so the same segments with a label are another flow.
  Seg s;
  s.ipv6 = true;
  const auto a = SegTrain(2, s);
  std::vector<Bytes> labelled;
  for (const Bytes& f : a) labelled.push_back(WithWord0(f, 0x00012345));
  ExpectTwoFlowsOfTwo(Gro({}, Interleave(a, labelled)));
  Seg other = s;
  other.dst[3] = 9;
  ExpectTwoFlowsOfTwo(Gro({}, Interleave(a, SegTrain(2, other))));
  // A traffic class change is not another flow: it flushes the held
  // packet (tcp_gro_receive's flush on the IPv6 first word), so the second
  // segment is not merged but starts again.
  const auto tc = Gro({}, {a[0], WithWord0(a[1], 0x00400000)});
  ASSERT_EQ(tc.size(), 2u);
  EXPECT_FALSE(tc[0].is_gso());
}

TEST(KernelGroInetEdges, Linux310Ipv6NotCompleteIsMerged) {
  Seg s;
  s.ipv6 = true;
  const auto segs = SegTrain(2, s);
  GroConfig c;
  c.kv = {3, 10, false};
  const auto out = Gro(c, segs, IpSummed::kUnnecessary);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].pkt.bytes(), ExpectedMerged(segs, 54, 20));
}

GroConfig Vxlan() {
  GroConfig c;
  c.vxlan.push_back({});
  return c;
}

std::vector<Bytes> Wrapped(const std::vector<Bytes>& inner) {
  std::vector<Bytes> out;
  Outer o;
  for (const Bytes& f : inner) {
    out.push_back(VxlanFrame(o, f));
    o.id++;
  }
  return out;
}

TEST(KernelGroInetEdges, InnerEthernetHeadersMakeFlows) {
  // compare_ether_header on the inner MAC header: another destination MAC
  // inside the same VXLAN flow is another flow.
  Seg s;
  Seg other = s;
  other.mac_dst[5] = 0x09;
  const auto a = Wrapped(SegTrain(2, s)), b = Wrapped(SegTrain(2, other));
  ExpectTwoFlowsOfTwo(Gro(Vxlan(), Interleave(a, b)));
}

TEST(KernelGroInetEdges, VxlanFlagsMakeFlows) {
  // vxlan_gro_prepare_receive compares the whole flags word as well as the
  // VNI: a reserved bit set (0x0c instead of 0x08) is another flow here
  // (vxlan_rcv, not GRO, refuses such a header later).
  const auto a = Wrapped(SegTrain(2));
  std::vector<Bytes> b = a;
  for (Bytes& f : b) {
    f[42] = 0x0c;
    FixL4Csum(f, 14, 34, 17, 6);
  }
  ExpectTwoFlowsOfTwo(Gro(Vxlan(), Interleave(a, b)));
}

TEST(KernelGroInetEdges, VxlanWithAnInnerIpv6TcpTrainIsCompletedAsTcpv6) {
  // Inner Ethernet at 50, inner IPv6 at 64, inner TCP at 104. Three
  // 1000-byte segments: the inner payload_len becomes 20 + 3000.
  Seg s;
  s.ipv6 = true;
  const auto out = Gro(Vxlan(), Wrapped(SegTrain(3, s)));
  ASSERT_EQ(out.size(), 1u);
  const SkBuff& m = out[0];
  EXPECT_EQ(m.gso_segs, 3);
  EXPECT_TRUE(m.encapsulation);
  EXPECT_TRUE(m.gso_type & kernel::gso::kTcpv6);
  EXPECT_TRUE(m.gso_type & kernel::gso::kUdpTunnelCsum);
  EXPECT_EQ(m.pkt.inner_l2_ofs, 50);
  EXPECT_EQ(m.pkt.inner_l3_ofs, 64);
  EXPECT_EQ(m.pkt.inner_l4_ofs, 104);
  EXPECT_EQ(Be16(m.pkt.bytes(), 64 + 4), 20 + 3000);
  EXPECT_EQ(m.len(), 104u + 20 + 3000);
}

}  // namespace
}  // namespace offlab::testing
