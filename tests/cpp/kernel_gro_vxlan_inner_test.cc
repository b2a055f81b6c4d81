// GRO past the VXLAN header: eth_gro_receive on the inner Ethernet header
// (too short, not IP, IPv6), udp_gro_receive's flow match on the outer UDP
// header and its one-tunnel-level rule.
//
// Sources (torvalds/linux v6.18): net/ethernet/eth.c eth_gro_receive
// (flush = 1 until the header is there and gro_find_receive_by_type found
// a handler; skb_gro_flush_final) and eth_gro_complete (the inner type's
// gro_complete: ipv6_gro_complete fixes payload_len, tcp6_gro_complete the
// pseudo-header check); net/ipv4/udp_offload.c udp_gro_receive: "Match
// ports and either checksums are either both zero or nonzero" else
// same_flow = 0, and NAPI_GRO_CB(skb)->encap_mark set -> goto out (flush).
// Frames and expected bytes: kernel_gro_test_frames.h (plain-loop sums).
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

constexpr size_t kInner = 50;  // inner Ethernet header: 14 + 20 + 8 + 8

GroConfig VxlanCfg() {
  GroConfig c;
  c.vxlan.push_back({});
  return c;
}

TEST(KernelGroVxlanInner, TooShortForAnInnerEthernetHeaderIsNotHeld) {
  GroCell g(VxlanCfg());
  const Bytes f = VxlanFrame(Outer{}, FromHex("02000000000202000000"));
  EXPECT_EQ(g.Receive(DriverSkb(f, IpSummed::kUnnecessary)), GroResult::kNormal);
  EXPECT_EQ(g.held(), 0u);
}

TEST(KernelGroVxlanInner, InnerArpHasNoGroHandler) {
  GroCell g(VxlanCfg());
  const Bytes arp =
      FromHex(H("ffffffffffff 020000000001 0806 0001 0800 06 04 0001 020000000001 0a000001"
                "000000000000 0a000002"));
  const Bytes f = VxlanFrame(Outer{}, arp);
  EXPECT_EQ(g.Receive(DriverSkb(f, IpSummed::kUnnecessary)), GroResult::kNormal);
  EXPECT_EQ(g.last_reason(), "inner_not_ip");
  EXPECT_EQ(g.held(), 0u);
}

TEST(KernelGroVxlanInner, InnerIpv6TcpIsMergedAndCompleted) {
  Seg s;
  s.ipv6 = true;
  const auto inner = SegTrain(3, s);
  Outer o;
  std::vector<Bytes> frames;
  for (const Bytes& f : inner) {
    frames.push_back(VxlanFrame(o, f));
    o.id++;
  }
  GroCell g(VxlanCfg());
  for (const Bytes& f : frames) g.Receive(DriverSkb(f, IpSummed::kUnnecessary));
  auto out = g.Flush();
  ASSERT_EQ(out.size(), 1u);
  // Outer headers of the first frame, the merged inner packet (IPv6
  // payload_len and TCP pseudo-header check fixed), outer lengths fixed.
  Bytes want(frames[0].begin(), frames[0].begin() + kInner);
  const Bytes in = ExpectedMerged(inner, 54, 20);
  want.insert(want.end(), in.begin(), in.end());
  Put16(want, 16, static_cast<uint16_t>(want.size() - 14));
  FixIpv4Csum(want, 14);
  const uint32_t ulen = static_cast<uint32_t>(want.size() - 34);
  Put16(want, 38, static_cast<uint16_t>(ulen));
  Put16(want, 40, PseudoFold4(&want[26], &want[30], 17, ulen));
  EXPECT_EQ(out[0].pkt.bytes(), want);
  EXPECT_EQ(out[0].gso_type, kernel::gso::kTcpv6 | kernel::gso::kUdpTunnelCsum);
  EXPECT_EQ(out[0].pkt.inner_l3_ofs, kInner + 14);
  EXPECT_EQ(out[0].pkt.inner_l4_ofs, kInner + 54);
  EXPECT_EQ(out[0].gso_segs, 3);
}

TEST(KernelGroVxlanInner, OuterPortsAndChecksumPresenceSplitFlows) {
  const auto inner = SegTrain(2);
  Outer a, b;
  b.id = 8;
  b.sport = 55556;  // another outer source port
  Outer c = a;
  c.id = 8;
  c.udp_csum = false;  // same ports, no outer checksum
  for (const Outer& second : {b, c}) {
    GroCell g(VxlanCfg());
    g.Receive(DriverSkb(VxlanFrame(a, inner[0])));
    g.Receive(DriverSkb(VxlanFrame(second, inner[1])));
    EXPECT_EQ(g.Flush().size(), 2u) << second.sport << " " << second.udp_csum;
    EXPECT_EQ(g.stats().merged, 0u);
  }
  // Control: the same two with one outer flow merge.
  Outer d = a;
  d.id = 8;
  GroCell g(VxlanCfg());
  g.Receive(DriverSkb(VxlanFrame(a, inner[0])));
  g.Receive(DriverSkb(VxlanFrame(d, inner[1])));
  EXPECT_EQ(g.Flush().size(), 1u);
}

TEST(KernelGroVxlanInner, VxlanInsideVxlanStopsAtTheSecondTunnel) {
  Outer in;
  in.src[3] = 3, in.dst[3] = 4;
  const Bytes nested = VxlanFrame(Outer{}, VxlanFrame(in, TcpFrame(Seg{})));
  GroCell g(VxlanCfg());
  EXPECT_EQ(g.Receive(DriverSkb(nested, IpSummed::kUnnecessary)), GroResult::kNormal);
  EXPECT_EQ(g.last_reason(), "udp_tunnel_nested");
}

TEST(KernelGroVxlanInner, AnotherInnerEthernetHeaderIsAnotherFlow) {
  // eth_gro_receive: compare_ether_header on the inner destination, source
  // and type; a segment whose inner MAC differs is not merged, with the held
  // packet first in the list or behind one of another flow.
  const auto inner = SegTrain(2);
  Outer a;
  Outer b = a;
  b.id = 8;
  for (size_t mac_byte : {size_t{5}, size_t{11}}) {  // destination, then source
    Bytes second = inner[1];
    second[mac_byte] ^= 0x01;
    GroCell g(VxlanCfg());
    g.Receive(DriverSkb(VxlanFrame(a, inner[0])));
    g.Receive(DriverSkb(VxlanFrame(b, second)));
    EXPECT_EQ(g.Flush().size(), 2u) << mac_byte;
    EXPECT_EQ(g.stats().merged, 0u);
  }
  // A held packet of another outer flow first: the second one still compares
  // the inner header with every held packet of its own flow.
  Outer other = a;
  other.sport = 55556;
  Bytes second = inner[1];
  second[5] ^= 0x01;
  GroCell g(VxlanCfg());
  g.Receive(DriverSkb(VxlanFrame(other, inner[0])));
  g.Receive(DriverSkb(VxlanFrame(a, inner[0])));
  g.Receive(DriverSkb(VxlanFrame(b, second)));
  EXPECT_EQ(g.Flush().size(), 3u);
}

}  // namespace
}  // namespace offlab::testing
