// Edges of the OVS kernel datapath's set actions (models/src/linux/
// ovs_actions.cc): the refusals of a set on a header the skb does not have
// or does not hold whole (-EINVAL / -ENOMEM from skb_ensure_writable), the
// transport checksum left alone when the transport header is too short or
// the protocol has none to fix, CSUM_MANGLED_0 for a UDP checksum that an
// update leaves 0, and the routing-header walk of set_ipv6 (ipv6_find_hdr
// with IP6_FH_F_SKIP_RH) through destination options and a non-first
// fragment.
//
// Source: torvalds/linux v6.18 net/openvswitch/actions.c (set_eth_addr,
// set_ipv4, update_ip_l4_checksum, set_ipv6, update_ipv6_checksum, set_udp,
// set_sctp, execute_dec_ttl), net/ipv6/exthdrs_core.c ipv6_find_hdr,
// net/core/utils.c inet_proto_csum_replace{4,16}. Checksums: test_util.h's
// plain-loop oracle, or worked by hand where the comment shows it.
#include <gtest/gtest.h>

#include <cstdio>

#include "kernel_test_skb.h"
#include "offlab/linux/ovs_actions.h"
#include "offlab/linux/ovs_dp.h"

namespace offlab::kernel {
namespace {

using testing::Be16;
using testing::H;
using testing::Ipv4Frame;
using testing::Ipv6Frame;
using testing::OracleIpv4HeaderOk;
using testing::OracleL4Csum;
using testing::Put16;

const std::string kTcp = "d478145100000001000000005010010000000000";

OvsSkb Skb(const Bytes& f, uint16_t l3, uint16_t l4, uint8_t proto) {
  OvsSkb s;
  s.skb.pkt = Packet(f);
  s.skb.pkt.l3_ofs = l3;
  s.skb.pkt.l4_ofs = l4;
  s.key.ip_proto = proto;
  return s;
}

OvsKeyIpv4 Ipv4Dst(uint8_t last, OvsKeyIpv4* mask) {
  OvsKeyIpv4 k;
  k.dst = {10, 0, 0, last};
  mask->dst = {0xff, 0xff, 0xff, 0xff};
  return k;
}

TEST(KernelOvsActionsEdges, SetsOnAMissingOrShortHeaderAreRefusedUnchanged) {
  const Bytes v4 = Ipv4Frame(6, kTcp);
  OvsKeyIpv4 m4;
  const OvsKeyIpv4 k4 = Ipv4Dst(9, &m4);
  OvsSkb no_l3 = Skb(v4, kNoOffset, 34, 6);
  EXPECT_EQ(OvsSetIpv4(no_l3, k4, m4), ovs_err::kInval);
  // 33 bytes: the IPv4 header at 14 lacks its last byte.
  OvsSkb short4 = Skb(Bytes(v4.begin(), v4.begin() + 33), 14, kNoOffset, 6);
  EXPECT_EQ(OvsSetIpv4(short4, k4, m4), ovs_err::kNoMem);
  EXPECT_EQ(short4.skb.pkt.bytes(), Bytes(v4.begin(), v4.begin() + 33));

  const Bytes v6 = Ipv6Frame(6, "", kTcp);
  OvsKeyIpv6 k6, m6;
  k6.dst.fill(0x22), m6.dst.fill(0xff);
  OvsSkb no_l3_6 = Skb(v6, kNoOffset, 54, 6);
  EXPECT_EQ(OvsSetIpv6(no_l3_6, k6, m6), ovs_err::kInval);
  OvsSkb short6 = Skb(Bytes(v6.begin(), v6.begin() + 53), 14, kNoOffset, 6);
  EXPECT_EQ(OvsSetIpv6(short6, k6, m6), ovs_err::kNoMem);
  EXPECT_EQ(short6.skb.pkt.bytes(), Bytes(v6.begin(), v6.begin() + 53));

  OvsKeyPorts kp, mp;
  kp.dst = 80, mp.dst = 0xffff;
  OvsSkb tcp = Skb(v4, 14, kNoOffset, 6);
  EXPECT_EQ(OvsSetTcp(tcp, kp, mp), ovs_err::kInval);
  OvsSkb udp = Skb(v4, 14, kNoOffset, 17);
  EXPECT_EQ(OvsSetUdp(udp, kp, mp), ovs_err::kInval);
  OvsSkb sctp = Skb(v4, 14, kNoOffset, 132);
  EXPECT_EQ(OvsSetSctp(sctp, kp, mp), ovs_err::kInval);
  // 34 + 8 = 42 bytes hold a UDP header, 41 do not; SCTP needs 34 + 12.
  OvsSkb udp41 = Skb(Bytes(v4.begin(), v4.begin() + 41), 14, 34, 17);
  EXPECT_EQ(OvsSetUdp(udp41, kp, mp), ovs_err::kNoMem);
  OvsSkb sctp45 = Skb(Bytes(v4.begin(), v4.begin() + 45), 14, 34, 132);
  EXPECT_EQ(OvsSetSctp(sctp45, kp, mp), ovs_err::kNoMem);
  EXPECT_EQ(sctp45.skb.pkt.bytes(), Bytes(v4.begin(), v4.begin() + 45));

  // set_eth_addr: skb_ensure_writable(skb, ETH_HLEN).
  OvsKeyEthernet ke, me;
  me.dst.fill(0xff);
  OvsSkb eth13 = Skb(Bytes(v4.begin(), v4.begin() + 13), kNoOffset, kNoOffset, 0);
  EXPECT_EQ(OvsSetEthAddr(eth13, ke, me), ovs_err::kNoMem);
  EXPECT_EQ(eth13.skb.pkt.bytes(), Bytes(v4.begin(), v4.begin() + 13));
}

TEST(KernelOvsActionsEdges, DecTtlWithoutANetworkHeaderDoesNothing) {
  // Nothing to decrement: 0, the TTL (64) and header checksum unchanged.
  const Bytes f = Ipv4Frame(6, kTcp);
  OvsSkb none = Skb(f, kNoOffset, kNoOffset, 6);
  EXPECT_EQ(OvsDecTtl(none), 0);
  EXPECT_EQ(none.skb.pkt.bytes(), f);
  OvsSkb tiny = Skb(Bytes(f.begin(), f.begin() + 13), 14, kNoOffset, 6);
  EXPECT_EQ(OvsDecTtl(tiny), 0);
  EXPECT_EQ(tiny.skb.pkt.bytes(), Bytes(f.begin(), f.begin() + 13));
}

TEST(KernelOvsActionsEdges, Ipv4AddressWithoutARoomyTransportHeaderFixesOnlyTheIpHeader) {
  // update_ip_l4_checksum: TCP needs transport_len >= 20, UDP >= 8; below
  // that the transport bytes stay as they are. The header checksum still
  // follows (csum_replace4 in set_ip_addr). Same for an skb with no
  // transport header at all.
  for (auto [proto, l4] :
       {std::pair<uint8_t, std::string>{6, "d4781451000000010000"}, {17, "d4781451"}, {6, kTcp}}) {
    const Bytes f = Ipv4Frame(proto, l4);
    const bool no_th = l4.size() == kTcp.size();
    OvsSkb s = Skb(f, 14, no_th ? kNoOffset : 34, proto);
    OvsKeyIpv4 m;
    const OvsKeyIpv4 k = Ipv4Dst(9, &m);
    ASSERT_EQ(OvsSetIpv4(s, k, m), 0);
    const Bytes& g = s.skb.pkt.bytes();
    EXPECT_EQ(g[33], 9);
    EXPECT_TRUE(OracleIpv4HeaderOk(g, 14));
    EXPECT_TRUE(std::equal(f.begin() + 34, f.end(), g.begin() + 34)) << int{proto};
  }
}

TEST(KernelOvsActionsEdges, UdpPortUpdateThatComesOutZeroIsMangled) {
  // set_udp, checksum present and not PARTIAL: inet_proto_csum_replace2
  // (replace4 with the ports zero-extended) turns check 0x0001 for port
  // 0x1234 -> 0x1235 into csum_fold(csum_partial({~0x00001234, 0x00001235},
  // ~0x0001)) = csum_fold(0xffff + 0xedcb + 0x0000 + 0x1235 + 0xfffe) =
  // csum_fold(0x2fffd) = ~0xffff = 0, stored as CSUM_MANGLED_0 (0xffff).
  Bytes f = Ipv4Frame(17, "12340035001000010102030405060708");
  OvsSkb s = Skb(f, 14, 34, 17);
  OvsKeyPorts k, m;
  k.src = 0x1235, m.src = 0xffff;
  ASSERT_EQ(OvsSetUdp(s, k, m), 0);
  EXPECT_EQ(Be16(s.skb.pkt.bytes(), 34), 0x1235);
  EXPECT_EQ(Be16(s.skb.pkt.bytes(), 40), 0xffff);
}

TEST(KernelOvsActionsEdges, Ipv6AddressLeavesShortOrChecksumlessTransportsAlone) {
  // update_ipv6_checksum: TCP < 20, UDP < 8, ICMPv6 < 8 bytes of transport
  // header, or a protocol with no pseudo-header checksum (GRE): the bytes
  // after the IPv6 header are unchanged.
  struct Case {
    uint8_t proto;
    std::string l4;
  } cases[] = {{6, "d4781451000000010000"},
               {17, "d4781451"},
               {58, "80000000"},
               {47, "0000080045000014"},
               {6, ""}};
  for (const Case& c : cases) {
    const Bytes f = Ipv6Frame(c.proto, "", c.l4);
    OvsSkb s = Skb(f, 14, c.l4.empty() ? kNoOffset : 54, c.proto);
    OvsKeyIpv6 k, m;
    k.src.fill(0x33), m.src.fill(0xff);
    ASSERT_EQ(OvsSetIpv6(s, k, m), 0);
    const Bytes& g = s.skb.pkt.bytes();
    EXPECT_EQ(g[22], 0x33);
    EXPECT_TRUE(std::equal(f.begin() + 54, f.end(), g.begin() + 54)) << int{c.proto};
  }
}

TEST(KernelOvsActionsEdges, Ipv6UdpPartialUpdateThatComesOutZeroIsMangled) {
  // PARTIAL: *sum = ~csum_fold(csum_partial(diff, 32, csum_unfold(*sum)))
  // with diff = {~from[0..3], to[0..3]}. From ffff..ffff to :: every diff
  // word is 0 and the field is 0: ~csum_fold(0) = ~0xffff = 0, so
  // "if (!uh->check) uh->check = CSUM_MANGLED_0" stores 0xffff.
  Bytes f = Ipv6Frame(17, "", "1234003500080000");
  std::fill(f.begin() + 22, f.begin() + 38, 0xff);
  OvsSkb s = Skb(f, 14, 54, 17);
  s.skb.ip_summed = IpSummed::kPartial;
  s.skb.csum_start = 54, s.skb.csum_offset = 6;
  OvsKeyIpv6 k, m;
  m.src.fill(0xff);  // key 0: the source becomes ::
  ASSERT_EQ(OvsSetIpv6(s, k, m), 0);
  EXPECT_EQ(s.skb.pkt.bytes()[22], 0);
  EXPECT_EQ(Be16(s.skb.pkt.bytes(), 60), 0xffff);
}

// IPv6 (2001:db8::1 -> ::2) with first next header `ext_type`, the
// extension headers `ext_hex` and 20 bytes of TCP checksummed over the
// header's addresses.
Bytes Ipv6Behind(uint8_t ext_type, const std::string& ext_hex) {
  Bytes f = Ipv6Frame(ext_type, H(ext_hex), kTcp);
  const size_t l4 = f.size() - 20;
  Put16(f, l4 + 16, OracleL4Csum(f, 14, l4, 6, 16));
  return f;
}

// set(ipv6(dst=22..22)) on `f` with the transport header at `l4`.
Bytes SetDst(const Bytes& f) {
  OvsSkb s = Skb(f, 14, static_cast<uint16_t>(f.size() - 20), 6);
  OvsKeyIpv6 key, mask;
  key.dst.fill(0x22), mask.dst.fill(0xff);
  EXPECT_EQ(OvsSetIpv6(s, key, mask), 0);
  return s.skb.pkt.bytes();
}

const std::string kRoutingLeft2 = "0602 0002 00000000 20010db8000000000000000000000009";

TEST(KernelOvsActionsEdges, DestinationOptionsAreWalkedToAnActiveRoutingHeader) {
  // Destination options, hdrlen 1: (1 + 1) * 8 = 16 bytes, next 43; the
  // routing header has 2 segments left: the checksum is not recalculated.
  const Bytes f = Ipv6Behind(60, "2b01 000000000000 0000000000000000" + kRoutingLeft2);
  const Bytes g = SetDst(f);
  EXPECT_EQ(g[38], 0x22);
  EXPECT_EQ(Be16(g, g.size() - 4), Be16(f, f.size() - 4));
  // Hop-by-hop then TCP, no routing header: -ENOENT, recalculated.
  const Bytes h = SetDst(Ipv6Behind(0, "0600 000000000000"));
  EXPECT_EQ(Be16(h, h.size() - 4), OracleL4Csum(h, 14, h.size() - 20, 6, 16));
}

TEST(KernelOvsActionsEdges, ANonFirstFragmentEndsTheRoutingHeaderSearch) {
  // ipv6_find_hdr: a fragment header with a non-zero offset ends the walk
  // with -ENOENT before the routing header behind it, so recalc_csum stays
  // true. (The flow key of a later fragment names NEXTHDR_FRAGMENT, not
  // TCP; the skb is built by hand so that a recalculation shows.)
  const Bytes later = Ipv6Behind(44, "2b00 0008 00000001" + kRoutingLeft2);
  const Bytes g = SetDst(later);
  EXPECT_EQ(Be16(g, g.size() - 4), OracleL4Csum(g, 14, g.size() - 20, 6, 16));
  // Offset 0 (a first fragment) is walked: the active routing header wins.
  const Bytes first = Ipv6Behind(44, "2b00 0000 00000001" + kRoutingLeft2);
  const Bytes h = SetDst(first);
  EXPECT_EQ(Be16(h, h.size() - 4), Be16(first, first.size() - 4));
}

TEST(KernelOvsActionsEdges, ALaterFragmentsFlowKeyProtoHasNoChecksumToFix) {
  // OVS flow extraction (net/openvswitch/flow.c parse_ipv6hdr) names a
  // later fragment's proto NEXTHDR_FRAGMENT; update_ipv6_checksum has no
  // case for it, so a source rewrite leaves the bytes after the IPv6
  // header as they were.
  const Bytes f = Ipv6Behind(44, "0600 0008 00000001");
  SkBuff skb;
  skb.csum_from = 14;
  skb.pkt = Packet(f);
  OvsSkb s = OvsVportReceive(std::move(skb));
  EXPECT_EQ(s.key.ip_proto, 44);
  OvsKeyIpv6 k, m;
  k.src.fill(0x33), m.src.fill(0xff);
  ASSERT_EQ(OvsSetIpv6(s, k, m), 0);
  const Bytes& g = s.skb.pkt.bytes();
  EXPECT_EQ(g[22], 0x33);
  EXPECT_TRUE(std::equal(f.begin() + 54, f.end(), g.begin() + 54));
}

}  // namespace
}  // namespace offlab::kernel
