// geneve_xmit_skb's outer TTL and DF from the inner packet (torvalds/linux
// v6.18 drivers/net/geneve.c): with `ttl inherit`, ttl =
// ip_tunnel_get_ttl(ip_hdr(skb), skb) (include/net/ip_tunnels.h: the IPv4
// TTL, the IPv6 hop limit, 0 for any other protocol), then "ttl = ttl ? :
// ip4_dst_hoplimit(&rt->dst)"; with `df inherit`, DF for an inner
// ETH_P_IPV6 frame or an ETH_P_IP one whose frag_off has IP_DF, nothing
// for other protocols; with `tos inherit` (tos 1, geneve_get_dsfield), the
// inner TOS or traffic class (ip_tunnel_get_dsfield) through
// ip_tunnel_ecn_encap (include/net/inet_ecn.h INET_ECN_encapsulate: the inner
// ECN bits copied, CE sent as ECT(0)). Frames are built here
// (kernel_test_skb.h).
#include <gtest/gtest.h>

#include <string>

#include "kernel_test_skb.h"
#include "offlab/linux/geneve.h"

namespace offlab::kernel {
namespace {

using testing::Be16;
using testing::Ipv4Frame;
using testing::Ipv6Frame;
using testing::OracleSum;
using testing::Put16;

const std::string kUdp = "1f900035000c000000010203";

GeneveConfig Cfg() {
  GeneveConfig c;
  c.vni = 7;
  c.local = {10, 1, 0, 2};
  c.remote = {10, 1, 0, 1};
  return c;
}

Bytes Inner4(uint8_t ttl, uint16_t frag) {
  Bytes f = Ipv4Frame(17, kUdp, frag);
  f[22] = ttl;
  Put16(f, 24, 0);
  Put16(f, 24, static_cast<uint16_t>(~OracleSum(&f[14], 20)));
  return f;
}
Bytes Inner6(uint8_t hlim) {
  Bytes f = Ipv6Frame(17, "", kUdp);
  f[21] = hlim;
  return f;
}
Bytes Arp() {
  Bytes f = Ipv4Frame(17, kUdp);
  f[12] = 0x08, f[13] = 0x06;
  return f;
}

// The outer IPv4 TOS, TTL and flags word of what the device sends.
struct Outer {
  uint8_t ttl;
  uint16_t frag;
  uint8_t tos;
};
Outer Send(const Bytes& inner, const GeneveConfig& cfg) {
  SkBuff s;
  s.pkt = Packet(inner);
  UnderlayRoute rt;
  rt.hop_limit = 64;
  GeneveXmitResult r = GeneveXmit(s, cfg, rt);
  EXPECT_TRUE(r.sent) << r.reason;
  const Bytes& b = r.skb.pkt.bytes();
  return {b[22], Be16(b, 20), b[15]};
}

TEST(KernelGeneveTtlDf, TtlInheritTakesTheInnerTtlOrHopLimit) {
  GeneveConfig c = Cfg();
  c.ttl_inherit = true;
  EXPECT_EQ(Send(Inner4(29, 0x4000), c).ttl, 29);  // not 17, the protocol byte next to it
  EXPECT_EQ(Send(Inner6(9), c).ttl, 9);
  // Not IP: 0, so the route's hop limit.
  EXPECT_EQ(Send(Arp(), c).ttl, 64);
  // Without inherit: the configured TTL.
  c.ttl_inherit = false;
  c.ttl = 33;
  EXPECT_EQ(Send(Inner4(29, 0x4000), c).ttl, 33);
}

TEST(KernelGeneveTtlDf, DfInheritFollowsTheInnerPacket) {
  GeneveConfig c = Cfg();
  c.df = GeneveDf::kInherit;
  EXPECT_EQ(Send(Inner4(64, 0x4000), c).frag & 0x4000, 0x4000);
  EXPECT_EQ(Send(Inner4(64, 0x0000), c).frag & 0x4000, 0);
  EXPECT_EQ(Send(Inner6(64), c).frag & 0x4000, 0x4000);
  EXPECT_EQ(Send(Arp(), c).frag & 0x4000, 0);
  // df unset: never, whatever the inner packet says.
  c.df = GeneveDf::kUnset;
  EXPECT_EQ(Send(Inner4(64, 0x4000), c).frag & 0x4000, 0);
}

Bytes Inner4Tos(uint8_t tos) {
  Bytes f = Inner4(64, 0x4000);
  f[15] = tos;
  Put16(f, 24, 0);
  Put16(f, 24, static_cast<uint16_t>(~OracleSum(&f[14], 20)));
  return f;
}
// IPv6 traffic class `tc`: its high nibble in the version byte's low nibble,
// its low nibble in the next byte's high one.
Bytes Inner6Tc(uint8_t tc) {
  Bytes f = Inner6(64);
  f[14] = static_cast<uint8_t>(0x60 | (tc >> 4));
  f[15] = static_cast<uint8_t>((tc & 0x0f) << 4 | (f[15] & 0x0f));
  return f;
}

TEST(KernelGeneveTtlDf, TosInheritTakesTheInnerDsFieldWithItsEcnEncapsulated) {
  GeneveConfig c = Cfg();
  c.tos = 1;  // inherit
  // DSCP 46 (0xb8) with ECT(1), ECT(0), Not-ECT and CE: CE goes out as ECT(0).
  EXPECT_EQ(Send(Inner4Tos(0xb9), c).tos, 0xb9);
  EXPECT_EQ(Send(Inner4Tos(0xba), c).tos, 0xba);
  EXPECT_EQ(Send(Inner4Tos(0xb8), c).tos, 0xb8);
  EXPECT_EQ(Send(Inner4Tos(0xbb), c).tos, 0xba);
  // The same traffic classes over IPv6, split across the nibbles.
  EXPECT_EQ(Send(Inner6Tc(0xb9), c).tos, 0xb9);
  EXPECT_EQ(Send(Inner6Tc(0x2a), c).tos, 0x2a);
  EXPECT_EQ(Send(Inner6Tc(0x4b), c).tos, 0x4a);
  // Not IP: no DS field, 0.
  EXPECT_EQ(Send(Arp(), c).tos, 0);
  // A configured TOS keeps its DSCP and takes the inner ECN bits.
  c.tos = 0x20;
  EXPECT_EQ(Send(Inner4Tos(0xb9), c).tos, 0x21);
  EXPECT_EQ(Send(Inner6Tc(0x03), c).tos, 0x22);
}

}  // namespace
}  // namespace offlab::kernel
