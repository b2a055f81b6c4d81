// SPDX-License-Identifier: Apache-2.0
//
// The FTP ALG's PORT rewrite and sequence skew (models/src/ovs/ftp_alg.cc,
// OVS v3.1.0 lib/conntrack.c process_ftp_ctl_v4 / replace_substring /
// handle_ftp_ctl) at their edges. A PORT command is "PORT h1,h2,h3,h4,p1,p2"
// (RFC 959 section 4.1.2): with five numbers it is left alone; only an IPv4
// TCP segment with a whole header carries one here. An address with fewer digits shrinks the
// payload, and the IPv4 total length and both checksums follow. The sequence skew moves the
// sequence and acknowledgement numbers with the TCP checksum updated
// incrementally (RFC 1624), and does nothing for a zero skew.
// Checksums are checked with the plain oracle of test_util.h.
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/bytes.h"
#include "offlab/ovs/ftp_alg.h"
#include "offlab/ovs/parse.h"
#include "test_util.h"

namespace offlab {
namespace {

using testing::Be16;
using testing::OracleIpv4HeaderOk;
using testing::OracleL4Ok;

// 10.0.0.1:40000 > 10.0.0.2:21, seq 1001 ack 1, PSH|ACK, `payload`; both
// checksums right (the oracle's).
Packet Ftp(const std::string& payload, uint8_t proto = 6) {
  Bytes f =
      FromHex(testing::H("0200000000020200000000010800 45000000000040004000 0000 0a000001 0a000002"
                         "9c400015000003e90000000150180200 0000 0000"));
  f[23] = proto;
  f.insert(f.end(), payload.begin(), payload.end());
  testing::Put16(f, 16, static_cast<uint16_t>(f.size() - 14));
  testing::Put16(f, 24, static_cast<uint16_t>(~testing::OracleSum(f.data() + 14, 20)));
  if (proto == 6) testing::Put16(f, 50, testing::OracleL4Csum(f, 14, 34, 6, 16));
  Packet p(f);
  Parse(p);
  return p;
}

std::string Payload(const Packet& p) {
  const Bytes b = p.bytes();
  return std::string(b.begin() + 54, b.end());
}

TEST(FtpAlgEdges, APortCommandNeedsSixNumbers) {
  // Five numbers: no second port byte to read (OVS process_ftp_ctl_v4 finds
  // the four address commas, then fails on the missing number).
  Packet p = Ftp("PORT 10,0,0,1,156\r\n");
  const Bytes before = p.bytes();
  EXPECT_EQ(FtpRewritePort(p, {192, 168, 7, 77}), 0);
  EXPECT_EQ(p.bytes(), before);
}

TEST(FtpAlgEdges, OnlyInAnIpv4TcpSegmentWithAWholeHeader) {
  // The same bytes as UDP.
  Packet udp = Ftp("PORT 10,0,0,1,156,64\r\n", 17);
  EXPECT_EQ(FtpRewritePort(udp, {192, 168, 7, 77}), 0);
  // A TCP data offset of 4 words.
  Packet doff = Ftp("PORT 10,0,0,1,156,64\r\n");
  doff.data()[46] = 0x40;
  const Bytes before = doff.bytes();
  EXPECT_EQ(FtpRewritePort(doff, {192, 168, 7, 77}), 0);
  EXPECT_EQ(doff.bytes(), before);
  // Data offset 15 words: past the 44 bytes of the segment.
  doff.data()[46] = 0xf0;
  EXPECT_EQ(FtpRewritePort(doff, {192, 168, 7, 77}), 0);
  // The IPv4 total length cutting the TCP header short.
  Packet cut = Ftp("PORT 10,0,0,1,156,64\r\n");
  cut.data()[16] = 0;
  cut.data()[17] = 20 + 10;
  EXPECT_EQ(FtpRewritePort(cut, {192, 168, 7, 77}), 0);
  FtpAdjustSeq(cut, 5, 5);
  EXPECT_EQ(GetBe32(cut.data() + 38), 1001u);
}

TEST(FtpAlgEdges, AShorterAddressShrinksThePacket) {
  // "10,0,0,1" (8 characters) -> "1,2,3,4" (7).
  Packet p = Ftp("PORT 10,0,0,1,156,64\r\n");
  EXPECT_EQ(FtpRewritePort(p, {1, 2, 3, 4}), -1);
  const Bytes b = p.bytes();
  EXPECT_EQ(Payload(p), "PORT 1,2,3,4,156,64\r\n");
  EXPECT_EQ(b.size(), 54u + 21u);
  EXPECT_EQ(Be16(b, 16), 20 + 20 + 21);
  EXPECT_TRUE(OracleIpv4HeaderOk(b, 14));
  EXPECT_TRUE(OracleL4Ok(b, 14, 34, 6));
}

TEST(FtpAlgEdges, SequenceSkew) {
  Packet p = Ftp("USER anonymous\r\n");
  const Bytes before = p.bytes();
  FtpAdjustSeq(p, 0, 0);
  EXPECT_EQ(p.bytes(), before);
  FtpAdjustSeq(p, 4, -2);
  const Bytes b = p.bytes();
  EXPECT_EQ(GetBe32(b.data() + 38), 1005u);
  EXPECT_EQ(GetBe32(b.data() + 42), 0xffffffffu);  // 1 - 2, modulo 2^32
  EXPECT_TRUE(OracleL4Ok(b, 14, 34, 6));
  // Only the acknowledgement number.
  FtpAdjustSeq(p, 0, 2);
  EXPECT_EQ(GetBe32(p.data() + 38), 1005u);
  EXPECT_EQ(GetBe32(p.data() + 42), 1u);
  EXPECT_TRUE(OracleL4Ok(p.bytes(), 14, 34, 6));
}

}  // namespace
}  // namespace offlab
