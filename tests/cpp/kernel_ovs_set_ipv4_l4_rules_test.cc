// When OVS's set(ipv4) leaves the transport checksum alone, and dec_ttl's
// refusals: a non-first IPv4 fragment (but not a first one with MF set), a
// transport header too short to hold the TCP or UDP header, and dec_ttl on
// a hop limit of 1 or a network header cut short.
//
// Source: torvalds/linux v6.18 net/openvswitch/actions.c
// update_ip_l4_checksum: "if (nh->frag_off & htons(IP_OFFSET)) return;"
// (the 13-bit offset only, not MF), then inet_proto_csum_replace4 on the
// TCP check only if transport_len >= sizeof(struct tcphdr), on the UDP
// check only if transport_len >= sizeof(struct udphdr); set_ip_addr always
// fixes the IPv4 header checksum (csum_replace4). execute_dec_ttl:
// skb_ensure_writable(network offset + sizeof(ipv6hdr or iphdr)) failing
// returns its -ENOMEM, "if (nh->hop_limit <= 1) return -EHOSTUNREACH" (and
// the IPv4 TTL likewise), else the field is decremented.
// Expected bytes: the input rewritten by hand with checksums from the
// plain-loop oracle in test_util.h.
#include <gtest/gtest.h>

#include "offlab/linux/ovs_actions.h"
#include "offlab/linux/ovs_dp.h"
#include "test_util.h"

namespace offlab::kernel {
namespace {

using testing::Be16;
using testing::H;
using testing::OracleL4Csum;
using testing::OracleSum;
using testing::Put16;

const std::string kEth = "0a8f394fe0738abf7e2f0584";

// Ethernet + IPv4 (frag field `frag`) + `l4` (hex), IP total length and
// header checksum filled in; the transport checksum by the oracle when the
// header is whole (`csum_ofs` inside it).
Bytes Ipv4(uint8_t proto, uint16_t frag, const std::string& l4, size_t csum_ofs) {
  Bytes f = FromHex(H(kEth + "0800 45000000 12340000 4000 0000 0a000001 0a000002" + l4));
  Put16(f, 16, static_cast<uint16_t>(f.size() - 14));
  Put16(f, 20, frag);
  f[23] = proto;
  Put16(f, 24, static_cast<uint16_t>(~OracleSum(&f[14], 20)));
  if (34 + csum_ofs + 2 <= f.size())
    Put16(f, 34 + csum_ofs, OracleL4Csum(f, 14, 34, proto, csum_ofs));
  return f;
}

const std::string kTcp = "d4781451 00000001 00000000 5010 0100 0000 0000";
const std::string kUdp = "1f90 0035 0008 0000";

// The skb after key extraction: network header at 14, transport at 34.
OvsSkb Skb(const Bytes& f) {
  OvsSkb s;
  s.skb.pkt = Packet(f);
  s.skb.pkt.l3_ofs = 14;
  s.skb.pkt.l4_ofs = 34;
  return s;
}

// set(ipv4(src=10.0.0.9)).
Bytes SetSrc(const Bytes& f) {
  OvsSkb s = Skb(f);
  OvsKeyIpv4 key, mask;
  key.src = {10, 0, 0, 9};
  mask.src = {0xff, 0xff, 0xff, 0xff};
  EXPECT_EQ(OvsSetIpv4(s, key, mask), 0);
  return s.skb.pkt.bytes();
}

// `f` with the source 10.0.0.9 and the IPv4 header checksum redone.
Bytes WithSrc9(Bytes f) {
  f[29] = 9;
  Put16(f, 24, 0);
  Put16(f, 24, static_cast<uint16_t>(~OracleSum(&f[14], 20)));
  return f;
}

TEST(KernelOvsSetIpv4L4Rules, NonFirstFragmentKeepsTheTransportChecksum) {
  // Offset 2 (16 bytes in): the bytes at 34 are data, not a TCP header.
  const Bytes later = Ipv4(6, 0x0002, kTcp + "0001020304050607", 16);
  EXPECT_EQ(SetSrc(later), WithSrc9(later));
  // A first fragment (MF, offset 0) has its TCP header: it is updated.
  const Bytes first = Ipv4(6, 0x2000, kTcp + "0001020304050607", 16);
  Bytes want = WithSrc9(first);
  Put16(want, 50, OracleL4Csum(want, 14, 34, 6, 16));
  EXPECT_EQ(SetSrc(first), want);
}

TEST(KernelOvsSetIpv4L4Rules, TcpCheckOnlyWithAWholeTcpHeader) {
  const Bytes whole = Ipv4(6, 0x4000, kTcp, 16);  // transport_len 20
  Bytes want = WithSrc9(whole);
  Put16(want, 50, OracleL4Csum(want, 14, 34, 6, 16));
  EXPECT_EQ(SetSrc(whole), want);
  // 19 bytes: the check field is there but the header is not whole.
  Bytes cut = whole;
  cut.pop_back();
  Put16(cut, 16, 39);
  Put16(cut, 24, 0);
  Put16(cut, 24, static_cast<uint16_t>(~OracleSum(&cut[14], 20)));
  EXPECT_EQ(SetSrc(cut), WithSrc9(cut));
}

TEST(KernelOvsSetIpv4L4Rules, UdpCheckOnlyWithAWholeUdpHeader) {
  const Bytes whole = Ipv4(17, 0x4000, kUdp, 6);  // transport_len 8
  ASSERT_NE(Be16(whole, 40), 0);
  Bytes want = WithSrc9(whole);
  Put16(want, 40, OracleL4Csum(want, 14, 34, 17, 6));
  EXPECT_EQ(SetSrc(whole), want);
  Bytes cut = whole;
  cut.pop_back();
  Put16(cut, 16, 27);
  Put16(cut, 24, 0);
  Put16(cut, 24, static_cast<uint16_t>(~OracleSum(&cut[14], 20)));
  EXPECT_EQ(SetSrc(cut), WithSrc9(cut));
}

// Ethernet + IPv6 (hop limit `hl`) + TCP header, cut to `len` bytes.
Bytes Ipv6(uint8_t hl, size_t len = 74) {
  Bytes f = FromHex(H(kEth + "86dd 60000000 0014 06 00" + "20010db8000000000000000000000001" +
                      "20010db8000000000000000000000002" + kTcp));
  f[21] = hl;
  f.resize(len);
  return f;
}

TEST(KernelOvsDecTtlRules, HopLimitOneIsHostUnreachableTwoBecomesOne) {
  OvsSkb one = Skb(Ipv6(1));
  EXPECT_EQ(OvsDecTtl(one), ovs_err::kHostUnreach);
  EXPECT_EQ(one.skb.pkt.bytes(), Ipv6(1));
  OvsSkb two = Skb(Ipv6(2));
  EXPECT_EQ(OvsDecTtl(two), 0);
  EXPECT_EQ(two.skb.pkt.bytes(), Ipv6(1));
  // IPv4 TTL 2 -> 1, the header checksum redone.
  Bytes v4 = Ipv4(6, 0x4000, kTcp, 16);
  v4[22] = 2;
  Put16(v4, 24, 0);
  Put16(v4, 24, static_cast<uint16_t>(~OracleSum(&v4[14], 20)));
  OvsSkb t = Skb(v4);
  EXPECT_EQ(OvsDecTtl(t), 0);
  Bytes want = v4;
  want[22] = 1;
  Put16(want, 24, 0);
  Put16(want, 24, static_cast<uint16_t>(~OracleSum(&want[14], 20)));
  EXPECT_EQ(t.skb.pkt.bytes(), want);
}

TEST(KernelOvsDecTtlRules, ANetworkHeaderCutShortIsNoMem) {
  // 14 + 39 bytes: one short of an IPv6 header; 14 + 19 of an IPv4 one.
  OvsSkb v6 = Skb(Ipv6(64, 53));
  EXPECT_EQ(OvsDecTtl(v6), ovs_err::kNoMem);
  Bytes v4 = Ipv4(6, 0x4000, kTcp, 16);
  v4.resize(33);
  OvsSkb t = Skb(v4);
  EXPECT_EQ(OvsDecTtl(t), ovs_err::kNoMem);
  EXPECT_EQ(t.skb.pkt.bytes(), v4);
}

}  // namespace
}  // namespace offlab::kernel
