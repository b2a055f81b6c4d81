// set(ipv6(dst=...)) on the kernel datapath when the routing header sits
// behind a fragment header or an authentication header: the destination in
// the IPv6 header is not the final one while the routing header still has
// segments left, so the transport checksum must not follow the rewrite.
//
// Source: torvalds/linux v6.18 net/openvswitch/actions.c set_ipv6:
// "if (ipv6_ext_hdr(nh->nexthdr)) recalc_csum = (ipv6_find_hdr(skb,
// &offset, NEXTHDR_ROUTING, NULL, &flags) != NEXTHDR_ROUTING);" with
// IP6_FH_F_SKIP_RH; net/ipv6/exthdrs_core.c ipv6_find_hdr walks a first
// fragment header (frag_off 0) as 8 bytes, an AH as ipv6_authlen ((len +
// 2) << 2), and skips a routing header with segments_left 0. Header
// layouts: RFC 8200 sections 4.4/4.5, RFC 4302 section 2.2. Expected
// checksums: test_util.h's plain-loop oracle.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "offlab/linux/ovs_actions.h"
#include "offlab/linux/ovs_dp.h"
#include "test_util.h"

namespace offlab::kernel {
namespace {

using testing::Be16;
using testing::H;
using testing::OracleL4Csum;
using testing::Put16;

// IPv6 (2001:db8::1 -> ::2) whose first next header is `ext_type`, the
// extension headers `ext_hex`, then 20 bytes of TCP with a right checksum
// over the addresses in the IPv6 header.
Bytes Ipv6Behind(uint8_t ext_type, const std::string& ext_hex) {
  const std::string tcp = "d478145100000001000000005010010000000000";
  const Bytes ext = FromHex(H(ext_hex));
  char ip[32];
  std::snprintf(ip, sizeof ip, "60000000%04zx%02x40", ext.size() + tcp.size() / 2, ext_type);
  Bytes f = FromHex(H(std::string("0a8f394fe0738abf7e2f0584 86dd") + ip +
                      "20010db8000000000000000000000001 20010db8000000000000000000000002" +
                      ext_hex + tcp));
  const size_t l4 = 54 + ext.size();
  Put16(f, l4 + 16, OracleL4Csum(f, 14, l4, 6, 16));
  return f;
}

// The frame after set(ipv6(dst=22..22)).
Bytes SetDst(const Bytes& f) {
  SkBuff skb;
  skb.csum_from = 14;
  skb.pkt = Packet(f);
  OvsSkb s = OvsVportReceive(std::move(skb));
  OvsKeyIpv6 key, mask;
  key.dst.fill(0x22);
  mask.dst.fill(0xff);
  EXPECT_EQ(OvsSetIpv6(s, key, mask), 0);
  return s.skb.pkt.bytes();
}

// A routing header (type 0, one address) with `left` segments left, then TCP.
std::string Routing(int left) {
  char rh[40];
  std::snprintf(rh, sizeof rh, "0602 00%02x 00000000", left);
  return std::string(rh) + " 20010db8000000000000000000000009";
}

TEST(KernelOvsSetIpv6Routing, ActiveRoutingHeaderBehindAFirstFragmentKeepsTheChecksum) {
  // Fragment header: next 43, offset 0, M clear, identification 1.
  const Bytes f = Ipv6Behind(44, "2b00 0000 00000001 " + Routing(2));
  const size_t l4 = 54 + 8 + 24;
  const Bytes g = SetDst(f);
  EXPECT_EQ(g[14 + 24], 0x22);
  EXPECT_EQ(Be16(g, l4 + 16), Be16(f, l4 + 16));
  // With no segments left the destination is final: the checksum follows.
  const Bytes done = SetDst(Ipv6Behind(44, "2b00 0000 00000001 " + Routing(0)));
  EXPECT_EQ(Be16(done, l4 + 16), OracleL4Csum(done, 14, l4, 6, 16));
}

TEST(KernelOvsSetIpv6Routing, ActiveRoutingHeaderBehindAnAuthenticationHeaderKeepsTheChecksum) {
  // AH: next 43, payload length 4 -> (4 + 2) * 4 = 24 bytes.
  const std::string ah = "2b04 0000 00000001 00000001 000000000000000000000000 ";
  const Bytes f = Ipv6Behind(51, ah + Routing(1));
  const size_t l4 = 54 + 24 + 24;
  const Bytes g = SetDst(f);
  EXPECT_EQ(Be16(g, l4 + 16), Be16(f, l4 + 16));
  const Bytes done = SetDst(Ipv6Behind(51, ah + Routing(0)));
  EXPECT_EQ(Be16(done, l4 + 16), OracleL4Csum(done, 14, l4, 6, 16));
}

}  // namespace
}  // namespace offlab::kernel
