// SPDX-License-Identifier: Apache-2.0
//
// IPv6 address and ND rewrites of models/src/ovs/rewrite.cc:
//  - SetIpv6 finds the L4 checksum through the extension headers before the
//    L4 offset (OVS v3.1.0 lib/packets.c packet_rh_present): Destination
//    Options ((Hdr Ext Len + 1) * 8 bytes, RFC 8200 section 4), AH
//    ((Payload Len + 2) * 4, RFC 4302 section 2.2), a first fragment (offset
//    0, M set) whose checksum covers the datagram; a later fragment carries
//    no L4 header, so nothing is updated; a routing header with segments left
//    stops the walk on itself and neither address changes the L4 bytes (the
//    pseudo-header uses the final destination);
//  - an address set to the value it has changes nothing, not even the status;
//  - SetNd (packet_set_nd) updates the target and the first SLL/TLL option
//    of length 1, stepping over other options and stopping at a zero length,
//    on NS/NA messages only; SetNdExt (packet_set_nd_ext) writes the
//    reserved/RSO word and the first option's type and recomputes the
//    checksum, leaving the option alone in a message without one.
// ND frames: scapy 2.x, Ether(src="02:00:00:00:00:01",dst="33:33:ff:00:00:02")/
// IPv6(hlim=255) NS fe80::1 > ff02::1:ff00:2 or NA fe80::2 > fe80::1, as shown.
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/bytes.h"
#include "offlab/ovs/parse.h"
#include "offlab/ovs/rewrite.h"
#include "test_util.h"

namespace offlab {
namespace {

using testing::H;
using testing::Hex;
using testing::OracleL4Csum;
using testing::OracleL4Ok;

IpAddr Addr6(uint8_t last) {
  IpAddr a{};
  a[0] = 0xfd;
  a[15] = last;
  return a;
}

// fd00::2 > fd00::1, then `ext` (which names its own next headers, the
// first named by `nh`), then UDP 1000 > 2000 with 16 data bytes; the UDP
// checksum computed by the oracle over the bytes present.
Packet V6Udp(uint8_t nh, const std::string& ext) {
  Bytes f =
      FromHex(H("020000000002020000000001 86dd 60000000 0000 00 40"
                "fd000000000000000000000000000002 fd000000000000000000000000000001" +
                ext + "03e8 07d0 0018 0000 000102030405060708090a0b0c0d0e0f"));
  f[20] = nh;
  testing::Put16(f, 18, static_cast<uint16_t>(f.size() - 54));
  const size_t l4 = f.size() - 24;
  testing::Put16(f, l4 + 6, OracleL4Csum(f, 14, l4, 17, 6));
  Packet p(f);
  Parse(p);
  return p;
}

const std::string kDestToAh = "33 00 01 04 00000000";  // Destination Options, next AH
const std::string kAhToUdp = "11 04 0000 00000001 00000001 000000000000000000000000";

void SetBoth(Packet& p) {
  Ipv6Set s;
  s.src = Addr6(5);
  s.dst = Addr6(6);
  EXPECT_TRUE(SetIpv6(p, s));
}

TEST(RewriteIpv6NdEdges, ChecksumFoundThroughDestinationOptionsAndAh) {
  Packet p = V6Udp(60, kDestToAh + kAhToUdp);
  SetBoth(p);
  const Bytes b = p.bytes();
  EXPECT_EQ(b[14 + 23], 5);
  EXPECT_EQ(b[14 + 39], 6);
  EXPECT_TRUE(OracleL4Ok(b, 14, p.l4_ofs, 17));
}

TEST(RewriteIpv6NdEdges, FirstFragmentUpdatedLaterFragmentNot) {
  // Destination Options -> Fragment -> AH -> UDP.
  const std::string dest_to_frag = "2c 00 01 04 00000000";
  Packet first = V6Udp(60, dest_to_frag + "33 00 0001 00000009" + kAhToUdp);
  SetBoth(first);
  EXPECT_TRUE(OracleL4Ok(first.bytes(), 14, first.l4_ofs, 17));

  // Offset 16: what follows the fragment header is data, not a UDP header.
  Packet later = V6Udp(60, dest_to_frag + "33 00 0010 00000009" + kAhToUdp);
  const Bytes before = later.bytes();
  SetBoth(later);
  const Bytes after = later.bytes();
  EXPECT_EQ(after[14 + 23], 5);
  EXPECT_EQ(Bytes(after.begin() + 54, after.end()), Bytes(before.begin() + 54, before.end()));
}

TEST(RewriteIpv6NdEdges, RoutingHeaderWithSegmentsLeftStopsTheUpdate) {
  // Routing type 0, Hdr Ext Len 2 (24 bytes), one address, next UDP.
  const std::string rh = "11 02 00 01 00000000 fd000000000000000000000000000007";
  Packet left = V6Udp(43, rh);
  const Bytes before = left.bytes();
  SetBoth(left);
  const Bytes after = left.bytes();
  EXPECT_EQ(after[14 + 23], 5);
  EXPECT_EQ(after[14 + 39], 6);
  EXPECT_EQ(Bytes(after.begin() + 54, after.end()), Bytes(before.begin() + 54, before.end()));
  // Segments left 0: the destination is final, both addresses are updated.
  Packet done = V6Udp(43, testing::Sub(rh, "11 02 00 01", "11 02 00 00"));
  SetBoth(done);
  EXPECT_TRUE(OracleL4Ok(done.bytes(), 14, done.l4_ofs, 17));
}

TEST(RewriteIpv6NdEdges, SameAddressOrNoL4ChangesNothingElse) {
  Packet p = V6Udp(17, "");
  p.offloads.set_l4(CsumStatus::kGood);
  Ipv6Set same;
  same.src = Addr6(2);
  same.dst = Addr6(1);
  const Bytes before = p.bytes();
  EXPECT_TRUE(SetIpv6(p, same));
  EXPECT_EQ(p.bytes(), before);
  EXPECT_EQ(p.offloads.l4(), CsumStatus::kGood);
  // Without an L4 offset the address alone is written.
  p.l4_ofs = kNoOffset;
  SetBoth(p);
  EXPECT_EQ(p.offloads.l4(), CsumStatus::kGood);
  const Bytes after = p.bytes();
  EXPECT_EQ(after[14 + 39], 6);
  EXPECT_EQ(Bytes(after.begin() + 54, after.end()), Bytes(before.begin() + 54, before.end()));
}

TEST(RewriteIpv6NdEdges, Icmpv6CutShortKeepsItsBytes) {
  // ICMPv6 with 3 bytes: no checksum field to update.
  Bytes f =
      FromHex(H("020000000002020000000001 86dd 60000000 0003 3a 40"
                "fd000000000000000000000000000002 fd000000000000000000000000000001"
                "80007d"));
  Packet p(f);
  p.l3_ofs = 14;
  p.l4_ofs = 54;
  SetBoth(p);
  EXPECT_EQ(ToHex(p.bytes()).substr(2 * 54), "80007d");
}

const std::string kNs =
    "3333ff00000202000000000186dd6000000000203afffe800000000000000000000000000001ff0200000000"
    "000000000001ff00000287007a9700000000fe8000000000000000000000000000020101020000000001";
const std::string kNa =
    "3333ff00000202000000000186dd6000000000203afffe800000000000000000000000000002fe8000000000"
    "000000000000000000018800181a60000000fe8000000000000000000000000000020201020000000002";

IpAddr Fe80(uint8_t last) {
  IpAddr a{};
  a[0] = 0xfe;
  a[1] = 0x80;
  a[15] = last;
  return a;
}
const MacAddr kMac99{2, 0, 0, 0, 0, 0x99};

TEST(RewriteIpv6NdEdges, SetNdTargetAndLinkLayerOption) {
  // ICMPv6ND_NS(tgt="fe80::9")/ICMPv6NDOptSrcLLAddr(lladdr="02:00:00:00:00:99")
  Packet ns = testing::Parsed(kNs);
  EXPECT_TRUE(SetNd(ns, Fe80(9), kMac99));
  EXPECT_EQ(Hex(ns),
            "3333ff00000202000000000186dd6000000000203afffe800000000000000000000000000001ff020000"
            "0000000000000001ff000002870079f800000000fe800000000000000000000000000009010102000000"
            "0099");
  // ICMPv6ND_NA(tgt="fe80::9",S=1,O=1)/ICMPv6NDOptDstLLAddr(lladdr="02:00:00:00:00:99")
  Packet na = testing::Parsed(kNa);
  EXPECT_TRUE(SetNd(na, Fe80(9), kMac99));
  EXPECT_EQ(Hex(na),
            "3333ff00000202000000000186dd6000000000203afffe800000000000000000000000000002fe800000"
            "0000000000000000000000018800177c60000000fe800000000000000000000000000009020102000000"
            "0099");
}

TEST(RewriteIpv6NdEdges, SetNdStepsOverOtherOptionsAndStopsAtZeroLength) {
  // A nonce option (type 14, length 1) before the SLL option.
  const std::string nonce =
      "3333ff00000202000000000186dd6000000000283afffe800000000000000000000000000001ff020000000000"
      "0000000001ff000002870005f500000000fe8000000000000000000000000000020e01aabbccddeeff01010200"
      "00000001";
  Packet p = testing::Parsed(nonce);
  EXPECT_TRUE(SetNd(p, std::nullopt, kMac99));
  EXPECT_TRUE(OracleL4Ok(p.bytes(), 14, 54, 58));
  EXPECT_EQ(Hex(p).substr(2 * 78), "0e01aabbccddeeff0101020000000099");
  // The SLL option with length 0: the walk stops, the option stays.
  const std::string zero = testing::Sub(kNs, "0101020000000001", "0100020000000001");
  Packet z = testing::Parsed(zero);
  Bytes zb = z.bytes();
  testing::Put16(zb, 56, OracleL4Csum(zb, 14, 54, 58, 2));
  z = Packet(zb);
  Parse(z);
  EXPECT_TRUE(SetNd(z, Fe80(9), kMac99));
  EXPECT_TRUE(OracleL4Ok(z.bytes(), 14, 54, 58));
  EXPECT_EQ(Hex(z).substr(2 * 78), "0100020000000001");
}

TEST(RewriteIpv6NdEdges, SetNdOnlyOnNeighborMessages) {
  // Echo request (type 128) of 24 bytes, an NS of 20 bytes, and IPv4.
  Packet echo = testing::Parsed(testing::Sub(kNs, "87007a97", "80007a97"));
  EXPECT_FALSE(SetNd(echo, Fe80(9), kMac99));
  EXPECT_FALSE(SetNdExt(echo, 1, 1));
  Bytes cut = FromHex(kNs);
  cut.resize(54 + 20);
  cut[19] = 20;
  Packet short_ns(cut);
  Parse(short_ns);
  EXPECT_FALSE(SetNd(short_ns, Fe80(9), kMac99));
  Packet v4 = testing::Parsed(testing::kFrameG);
  EXPECT_FALSE(SetNd(v4, Fe80(9), kMac99));
  EXPECT_FALSE(SetNdExt(v4, 1, 1));
}

TEST(RewriteIpv6NdEdges, SetNdExtRsoWordAndOptionType) {
  // NA R=0,S=1,O=1 with a TLL option -> S=0,O=1 (0x20000000) and option type 1:
  // scapy ICMPv6ND_NA(tgt="fe80::2",S=0,O=1)/ICMPv6NDOptSrcLLAddr(lladdr="02:00:00:00:00:02").
  Packet na = testing::Parsed(kNa);
  EXPECT_TRUE(SetNdExt(na, 0x20000000, 1));
  EXPECT_EQ(Hex(na), testing::Sub(testing::Sub(kNa, "181a60000000", "591a20000000"),
                                  "0201020000000002", "0101020000000002"));
  // An NS without options: the reserved word only, ICMPv6ND_NS(tgt="fe80::2",res=0x12345678).
  const std::string bare =
      "3333ff00000202000000000186dd6000000000183afffe800000000000000000000000000001ff020000000000"
      "0000000001ff00000287007da100000000fe800000000000000000000000000002";
  // Ethernet padding after it (outside the IPv6 payload) is no option either.
  Packet ns = testing::Parsed(bare + "00000000");
  EXPECT_TRUE(SetNdExt(ns, 0x12345678, 1));
  EXPECT_EQ(Hex(ns), testing::Sub(bare, "87007da100000000", "870014f512345678") + "00000000");
}

}  // namespace
}  // namespace offlab
