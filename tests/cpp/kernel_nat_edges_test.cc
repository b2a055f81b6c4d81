// Edges of netfilter NAT's packet rewrite (models/src/linux/
// nf_conntrack_nat.cc): a UDP checksum the update leaves 0 sent as
// CSUM_MANGLED_0, an ICMP echo id rewritten to the tuple's, a TCP header
// of fewer than 8 bytes, and the IPv6 extension-header walk: an extension
// header with fewer than its 2 readable bytes gives the address only, one
// whose length runs past the end makes the L4 rewrite fail.
//
// Source: torvalds/linux v6.18 net/netfilter/nf_nat_proto.c
// udp_manip_pkt ("if (!hdr->check) hdr->check = CSUM_MANGLED_0"),
// icmp_manip_pkt (the id from tuple->src.u.icmp.id), tcp_manip_pkt
// (hdrsize 8 when the full header is not there; skb_ensure_writable),
// nf_nat_ipv6_manip_pkt ("hdroff = ipv6_skip_exthdr(...); if (hdroff < 0)
// goto manip_addr;"), net/ipv6/exthdrs_core.c ipv6_skip_exthdr
// (skb_header_pointer of the 2-byte ipv6_opt_hdr). Checksums worked by
// hand in the comments or summed by test_util.h's plain-loop oracle.
#include <gtest/gtest.h>

#include "kernel_test_skb.h"
#include "offlab/linux/nf_conntrack_nat.h"

namespace offlab::kernel {
namespace {

using testing::Be16;
using testing::Ipv4Frame;
using testing::Ipv6Frame;
using testing::NetworkSkb;
using testing::OracleSum;
using testing::Put16;

NatTarget V4Src(uint8_t last, std::optional<uint16_t> port = std::nullopt) {
  NatTarget t;
  t.manip = NatManip::kSrc;
  t.addr = {10, 0, 0, last};
  t.port = port;
  return t;
}

TEST(KernelNatEdges, AUdpChecksumTheUpdateLeavesZeroIsMangled) {
  // Source 10.0.0.1 -> 10.0.0.2 adds 1 to the pseudo-header sum: check
  // 0x0001 becomes ~(~0x0001 + 1) = ~0xffff = 0; the port "change" to the
  // same port keeps 0; then CSUM_MANGLED_0.
  Bytes f = Ipv4Frame(17, "1f900035001000010102030405060708");
  SkBuff skb = NetworkSkb(f, IpSummed::kNone);
  ASSERT_TRUE(NfNatManipPkt(skb, 14, V4Src(2)));
  EXPECT_EQ(skb.pkt.data()[29], 2);
  EXPECT_EQ(Be16(skb.pkt.bytes(), 40), 0xffff);
}

TEST(KernelNatEdges, AnIcmpEchoIdBecomesTheTuples) {
  // Echo request id 1 -> 0x1234; the ICMP checksum (no pseudo header)
  // follows: it must equal a fresh sum over the rewritten message.
  Bytes f = Ipv4Frame(1, "080000000001000161626364");
  Put16(f, 36, static_cast<uint16_t>(~OracleSum(&f[34], 12)));
  SkBuff skb = NetworkSkb(f, IpSummed::kNone);
  ASSERT_TRUE(NfNatManipPkt(skb, 14, V4Src(9, 0x1234)));
  Bytes g = skb.pkt.bytes();
  EXPECT_EQ(Be16(g, 38), 0x1234);
  const uint16_t got = Be16(g, 36);
  Put16(g, 36, 0);
  EXPECT_EQ(got, static_cast<uint16_t>(~OracleSum(&g[34], 12)));
}

TEST(KernelNatEdges, ATcpHeaderOfFewerThanEightBytesIsDropped) {
  // tcp_manip_pkt: hdrsize 8 when the 20-byte header is not all there,
  // and skb_ensure_writable(skb, hdroff + 8) fails for 7 bytes.
  const Bytes f = Ipv4Frame(6, "d4781451000000");
  SkBuff skb = NetworkSkb(f, IpSummed::kNone);
  EXPECT_FALSE(NfNatManipPkt(skb, 14, V4Src(2)));
  EXPECT_EQ(skb.pkt.bytes(), f);
}

NatTarget V6Src() {
  NatTarget t;
  t.manip = NatManip::kSrc;
  t.ipv6 = true;
  t.addr = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x99};
  t.port = 40000;
  return t;
}

TEST(KernelNatEdges, AnExtensionHeaderWithoutItsTwoBytesGivesTheAddressOnly) {
  // One byte of a hop-by-hop header: ipv6_skip_exthdr returns -1, manip_addr.
  const Bytes f = Ipv6Frame(0, "06", "");
  SkBuff skb = NetworkSkb(f, IpSummed::kNone);
  ASSERT_TRUE(NfNatManipPkt(skb, 14, V6Src()));
  EXPECT_EQ(skb.pkt.data()[37], 0x99);
  EXPECT_EQ(skb.pkt.data()[54], 0x06);
}

TEST(KernelNatEdges, AnExtensionHeaderRunningPastTheEndFailsTheL4Rewrite) {
  // Four bytes of a hop-by-hop header (next TCP, length 8): the walk goes
  // on to TCP at 62, past the 58-byte packet, and tcp_manip_pkt's
  // skb_ensure_writable fails: nf_nat_manip_pkt returns false, nothing
  // written.
  const Bytes f = Ipv6Frame(0, "06000000", "");
  SkBuff skb = NetworkSkb(f, IpSummed::kNone);
  EXPECT_FALSE(NfNatManipPkt(skb, 14, V6Src()));
  EXPECT_EQ(skb.pkt.bytes(), f);
  // A fragment header of 3 bytes cannot give frag_off: address only.
  const Bytes frag = Ipv6Frame(44, "060000", "");
  SkBuff s2 = NetworkSkb(frag, IpSummed::kNone);
  ASSERT_TRUE(NfNatManipPkt(s2, 14, V6Src()));
  EXPECT_EQ(s2.pkt.data()[37], 0x99);
}

}  // namespace
}  // namespace offlab::kernel
