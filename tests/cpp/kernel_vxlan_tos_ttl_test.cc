// vxlan_xmit_one's outer TOS, TTL and DF from the inner packet (v6.18
// drivers/net/vxlan/vxlan_core.c): `tos inherit` takes the inner DS field
// (ip_tunnel_get_dsfield), INET_ECN_encapsulate copies the inner ECN bits
// except CE, sent as ECT(0); `ttl inherit` takes the inner TTL or hop limit
// (ip_tunnel_get_ttl), 0 for other protocols, which falls back to the route's
// hop limit; `df inherit` sets DF for an inner IPv6 packet or an IPv4 one with
// DF, `df set` always. A frame too short for its inner IP header is dropped (PKT_TOO_SMALL).
// Frames are built here (kernel_test_skb.h).
#include <gtest/gtest.h>

#include <string>

#include "kernel_test_skb.h"
#include "offlab/linux/vxlan.h"
#include "offlab/net/counters.h"

namespace offlab::kernel {
namespace {

using testing::Ipv4Frame;
using testing::Ipv6Frame;
using testing::NetworkSkb;

const std::string kUdp = "1f900035000c000000010203";

VxlanConfig Cfg() {
  VxlanConfig c;
  c.name = "vx0";
  c.vni = 42;
  c.dstport = 4789;
  c.local = {10, 1, 0, 2};
  c.remote = {10, 1, 0, 1};
  return c;
}

// An IPv4 inner frame with DS field `tos`, TTL `ttl`, flags word `frag`.
Bytes Inner4(uint8_t tos, uint8_t ttl, uint16_t frag = 0x4000) {
  Bytes f = Ipv4Frame(17, kUdp, frag);
  f[15] = tos;
  f[22] = ttl;
  testing::Put16(f, 24, 0);
  testing::Put16(f, 24, static_cast<uint16_t>(~testing::OracleSum(&f[14], 20)));
  return f;
}

// An IPv6 inner frame with traffic class `tc` and hop limit `hlim`.
Bytes Inner6(uint8_t tc, uint8_t hlim) {
  Bytes f = Ipv6Frame(17, "", kUdp);
  f[14] = static_cast<uint8_t>(0x60 | (tc >> 4));
  f[15] = static_cast<uint8_t>(tc << 4);
  f[21] = hlim;
  return f;
}

// The outer IPv4 header's TOS, TTL and flags word of what vx0 sends.
struct Outer {
  uint8_t tos, ttl;
  uint16_t frag;
};
Outer Send(const Bytes& inner, const VxlanConfig& cfg) {
  UnderlayRoute rt;
  rt.hop_limit = 64;
  VxlanXmitResult r = VxlanXmit(NetworkSkb(inner, IpSummed::kNone), cfg, rt);
  EXPECT_TRUE(r.sent) << r.reason;
  const Bytes& b = r.skb.pkt.bytes();
  return {b[15], b[22], testing::Be16(b, 20)};
}

TEST(KernelVxlanTosTtl, TosInheritAndEcnEncapsulation) {
  VxlanConfig inherit = Cfg();
  inherit.tos = 1;
  EXPECT_EQ(Send(Inner4(0xb9, 64), inherit).tos, 0xb9);  // DSCP and ECT(1) as they are
  EXPECT_EQ(Send(Inner4(0xbb, 64), inherit).tos, 0xba);  // CE leaves as ECT(0)
  EXPECT_EQ(Send(Inner6(0xb9, 64), inherit).tos, 0xb9);  // the IPv6 traffic class
  EXPECT_EQ(Send(Inner6(0x03, 64), inherit).tos, 0x02);
  // A fixed TOS keeps its DSCP and takes the inner ECN bits.
  VxlanConfig fixed = Cfg();
  fixed.tos = 0x20;
  EXPECT_EQ(Send(Inner4(0x01, 64), fixed).tos, 0x21);
  EXPECT_EQ(Send(Inner6(0x03, 64), fixed).tos, 0x22);
  EXPECT_EQ(Send(Inner4(0xfc, 64), fixed).tos, 0x20);
}

TEST(KernelVxlanTosTtl, TtlInheritAndDfInherit) {
  VxlanConfig c = Cfg();
  c.ttl_inherit = true;
  EXPECT_EQ(Send(Inner4(0, 17), c).ttl, 17);
  EXPECT_EQ(Send(Inner6(0, 33), c).ttl, 33);
  // Not IP (an ARP ethertype): no TTL to inherit, the route's hop limit.
  Bytes arp = Inner4(0, 17);
  arp[12] = 0x08;
  arp[13] = 0x06;
  EXPECT_EQ(Send(arp, c).ttl, 64);
  // Without inherit: the route's.
  EXPECT_EQ(Send(Inner4(0, 17), Cfg()).ttl, 64);

  VxlanConfig df = Cfg();
  df.df = VxlanDf::kInherit;
  EXPECT_EQ(Send(Inner4(0, 64, 0x4000), df).frag & 0x4000, 0x4000);
  EXPECT_EQ(Send(Inner4(0, 64, 0x0000), df).frag & 0x4000, 0);
  EXPECT_EQ(Send(Inner6(0, 64), df).frag & 0x4000, 0x4000);
  EXPECT_EQ(Send(Inner6(0, 64), Cfg()).frag & 0x4000, 0);
  // `df set` (VXLAN_DF_SET): DF whatever the inner packet says.
  VxlanConfig set = Cfg();
  set.df = VxlanDf::kSet;
  EXPECT_EQ(Send(Inner4(0, 64, 0x0000), set).frag & 0x4000, 0x4000);
  EXPECT_EQ(Send(Inner6(0, 64), set).frag & 0x4000, 0x4000);
}

TEST(KernelVxlanTosTtl, Before46ANonPartialSkbIsSentChecksumNone) {
  // torvalds/linux v4.5 net/ipv4/ip_tunnel_core.c iptunnel_handle_offloads:
  // "else if (skb->ip_summed != CHECKSUM_PARTIAL) skb->ip_summed =
  // CHECKSUM_NONE;": a forwarded frame the NIC had verified
  // (UNNECESSARY) leaves the vxlan device with nothing promised.
  SkBuff in = NetworkSkb(Inner4(0, 64), IpSummed::kUnnecessary);
  UnderlayRoute rt;
  VxlanXmitResult r = VxlanXmit(in, Cfg(), rt, KernelVersion{4, 5});
  ASSERT_TRUE(r.sent) << r.reason;
  EXPECT_EQ(r.skb.ip_summed, IpSummed::kNone);
}

TEST(KernelVxlanTosTtl, InnerTooShortIsDropped) {
  for (size_t keep : {size_t{14 + 19}, size_t{14 + 39}}) {
    Bytes f = keep < 40 ? Inner4(0, 64) : Inner6(0, 64);
    f.resize(keep);
    Counters k;
    UnderlayRoute rt;
    VxlanXmitResult r = VxlanXmit(NetworkSkb(f, IpSummed::kNone), Cfg(), rt, kLabKernel, &k);
    EXPECT_FALSE(r.sent);
    EXPECT_EQ(r.reason, "PKT_TOO_SMALL");
    EXPECT_EQ(k.Get("vx0:tx_dropped"), 1u);
  }
  // skb_vlan_inet_prepare pulls only the MAC header for another ethertype:
  // an ARP-typed frame of nothing but its 14-byte header is sent, and one
  // byte shorter is dropped.
  for (size_t len : {size_t{14}, size_t{13}}) {
    Bytes f = FromHex("0200000000020200000000010806");
    f.resize(len);
    Counters k;
    UnderlayRoute rt;
    VxlanXmitResult r = VxlanXmit(NetworkSkb(f, IpSummed::kNone), Cfg(), rt, kLabKernel, &k);
    EXPECT_EQ(r.sent, len == 14) << len;
    EXPECT_EQ(k.Get("vx0:tx_dropped"), len == 14 ? 0u : 1u) << len;
  }
}

}  // namespace
}  // namespace offlab::kernel
