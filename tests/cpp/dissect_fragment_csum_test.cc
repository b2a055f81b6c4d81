// SPDX-License-Identifier: Apache-2.0
//
// Dissector corner cases, each frame from scapy 2.x (expression next to it,
// E = Ether(src="02:00:00:00:00:01",dst="02:00:00:00:00:02")), checksum values
// read from scapy's encoding:
//  - IPv4 options: NOP (type 1) is a single byte, EOL (type 0) ends the list
//    (RFC 791 page 15);
//  - an IPv6 payload length of 0 means a jumbogram (RFC 2675 section 2),
//    which needs a Hop-by-Hop jumbo option: with a plain next header it is
//    an error;
//  - an SCTP chunk header is 4 bytes (RFC 9260 section 3.2): 2 bytes left
//    after the common header are a truncated chunk;
//  - an ICMP or GRE checksum covers the whole datagram's payload (RFC 792,
//    RFC 2784 section 2.5): in a fragment it cannot be judged.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "offlab/net/bytes.h"
#include "offlab/net/dissect.h"

namespace offlab {
namespace {

// E/IP(src="10.0.0.1",dst="10.0.0.2",id=1,options=[IPOption_NOP(),IPOption_Router_Alert(),
//   IPOption_NOP(),IPOption_NOP(),IPOption_EOL()])/TCP(sport=40000,dport=80,flags="S",seq=1000)
const std::string kIpv4NopOpts =
    "0200000000020200000000010800470000300001000040065e300a0000010a00000201940400000101009c40"
    "0050000003e80000000050022000db670000";
// E/IPv6(src="2001:db8::1",dst="2001:db8::2",plen=0,nh=6)/TCP(sport=40000,dport=80,flags="S")
const std::string kIpv6ZeroPlen =
    "02000000000202000000000186dd600000000000064020010db800000000000000000000000120010db80000"
    "000000000000000000029c40005000000000000000005002200097dd0000";
// E/IP(src="10.0.0.1",dst="10.0.0.2",id=2)/SCTP(sport=7000,dport=7001,tag=1)/Raw(b"\x00\x03")
const std::string kSctpCutChunk =
    "02000000000202000000000108004500002200020000408466540a0000010a0000021b581b590000000115ab65"
    "550003";
// E/IP(src="10.0.0.1",dst="10.0.0.2",id=3,flags="MF")/ICMP(type=8,id=7,seq=1)/Raw(b"ping"*4)
const std::string kIcmpFirstFrag =
    "02000000000202000000000108004500002c00032000400146cc0a0000010a00000208007cb4000700017069"
    "6e6770696e6770696e6770696e67";
// E/IP(src="10.0.0.1",dst="10.0.0.2",id=4,flags="MF")/GRE(chksum_present=1,proto=0x0800)/
//   IP(src="192.168.0.1",dst="192.168.0.2",id=5)/UDP(sport=1,dport=2)/Raw(b"data")
const std::string kGreCsumFirstFrag =
    "02000000000202000000000108004500003c00042000402f468d0a0000010a00000280000800f9700000450000"
    "20000500004011f974c0a80001c0a8000200010002000ca5bc64617461";

const ChecksumField* Find(const Dissection& d, std::string_view layer, int depth) {
  for (const ChecksumField& c : d.checksums)
    if (c.layer == layer && c.depth == depth) return &c;
  return nullptr;
}

TEST(DissectFragmentCsum, Ipv4NopOptionsThenEndOfList) {
  const Dissection d = Dissect(FromHex(kIpv4NopOpts));
  ASSERT_FALSE(d.error) << *d.error;
  ASSERT_GE(d.layers.size(), 3u);
  EXPECT_EQ(d.layers[1].name, "ipv4");
  // NOP (1 byte), Router Alert (4, RFC 2113), NOP, NOP, EOL: 28 bytes.
  EXPECT_EQ(d.layers[1].length, 28u);
  EXPECT_EQ(d.layers[2].name, "tcp");
  EXPECT_EQ(d.layers[2].offset, 42u);
  const ChecksumField* ip = Find(d, "ipv4", 0);
  ASSERT_NE(ip, nullptr);
  EXPECT_EQ(ip->value, 0x5e30u);
  EXPECT_EQ(ip->verdict, Verdict::kCorrect);
  const ChecksumField* tcp = Find(d, "tcp", 0);
  ASSERT_NE(tcp, nullptr);
  EXPECT_EQ(tcp->value, 0xdb67u);
  EXPECT_EQ(tcp->verdict, Verdict::kCorrect);
}

TEST(DissectFragmentCsum, Ipv6PayloadLengthZeroIsAJumbogram) {
  const Dissection d = Dissect(FromHex(kIpv6ZeroPlen));
  ASSERT_TRUE(d.error);
  EXPECT_EQ(*d.error, "ipv6: payload length 0 with next header 6 (jumbograms unsupported)");
}

TEST(DissectFragmentCsum, SctpChunkHeaderCut) {
  const Dissection d = Dissect(FromHex(kSctpCutChunk));
  ASSERT_TRUE(d.error);
  EXPECT_EQ(*d.error, "sctp: chunk 0 header truncated (2 bytes)");
}

TEST(DissectFragmentCsum, IcmpChecksumInAFragmentIsNotChecked) {
  const Dissection d = Dissect(FromHex(kIcmpFirstFrag));
  ASSERT_FALSE(d.error) << *d.error;
  const ChecksumField* c = Find(d, "icmp", 0);
  ASSERT_NE(c, nullptr) << d.ToString();
  EXPECT_EQ(c->value, 0x7cb4u);
  EXPECT_EQ(c->offset, 36u);
  EXPECT_EQ(c->verdict, Verdict::kNotChecked);
}

TEST(DissectFragmentCsum, GreChecksumInAFragmentIsNotChecked) {
  const Dissection d = Dissect(FromHex(kGreCsumFirstFrag));
  const ChecksumField* c = Find(d, "gre", 0);
  ASSERT_NE(c, nullptr) << d.ToString();
  EXPECT_EQ(c->value, 0xf970u);
  EXPECT_EQ(c->offset, 38u);
  EXPECT_EQ(c->verdict, Verdict::kNotChecked);
}

}  // namespace
}  // namespace offlab
