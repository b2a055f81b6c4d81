// SPDX-License-Identifier: Apache-2.0
//
// What an ICMP error must quote to be related to a connection, and the NAT
// of quotes other than TCP. Rules from Open vSwitch lib/conntrack.c:
// extract_l4_icmp/extract_l4_icmp6 extract the quoted packet with
// extract_l3_ipv4/extract_l3_ipv6 (a quoted fragment, IP_IS_FRAGMENT or a
// fragment header, fails) and then its L4 header with at least
// ICMP_ERROR_DATA_L4_LEN (8) bytes for IPv4; one level of nesting only
// ("if (!related || *related) return false"). A quote that fails makes the
// error +inv even though the connection it names exists.
//
// Frames from scapy 2.x (E = Ether(src="02:00:00:00:00:01",dst="02:00:00:00:00:02"),
// ER the reverse, SYN = IP(src="10.0.0.1",dst="10.0.0.2",id=1)/TCP(sport=40000,
// dport=80,flags="S",seq=1000)); expected NATed frames are scapy's own
// encodings of the untranslated packet, checksums included.
#include <gtest/gtest.h>

#include <string>

#include "flow_test_util.h"
#include "offlab/net/bytes.h"
#include "offlab/ovs/conntrack.h"
#include "offlab/ovs/flow.h"
#include "offlab/ovs/parse.h"
#include "offlab/ovs/send_prepare.h"

namespace offlab {
namespace {

using testing::CtAction;

// E/SYN
const std::string kSyn =
    "02000000000202000000000108004500002800010000400666cd0a0000010a0000029c400050000003e8000000"
    "0050022000db670000";
// ER/IP(src="10.0.0.2",dst="10.0.0.1",id=20)/ICMP(type=3,code=3)/Raw(bytes(SYN)[:28])
const std::string kErrQuote8 =
    "02000000000102000000000208004500003800140000400166af0a0000020a00000103035c8400000000450000"
    "2800010000400666cd0a0000010a0000029c400050000003e8";
// ... Raw(bytes(SYN)[:24]): only the ports of the TCP header.
const std::string kErrQuote4 =
    "02000000000102000000000208004500003400140000400166b30a0000020a0000010303606c00000000450000"
    "2800010000400666cd0a0000010a0000029c400050";
// ER/IP(src="10.0.0.2",dst="10.0.0.1",id=20)/ICMP(type=11,code=0)/Raw(bytes(
//   IP(src="10.0.0.1",dst="10.0.0.2",id=1,flags="MF")/TCP(<SYN's>))[:28])
const std::string kErrQuoteFirstFrag =
    "02000000000102000000000208004500003800140000400166af0a0000020a0000010b00548700000000450000"
    "2800012000400646cd0a0000010a0000029c400050000003e8";
// ER/IP(src="10.0.0.2",dst="10.0.0.1",id=22)/ICMP(type=3,code=1)/
//   IP(src="10.0.0.1",dst="10.0.0.2",id=23)/ICMP(type=3,code=3)/Raw(bytes(8))
const std::string kErrQuotingErr =
    "02000000000102000000000208004500004000160000400166a50a0000020a0000010301fcfe00000000450000"
    "2400170000400166c00a0000010a0000020303fcfc000000000000000000000000";

// E/IPv6(src="2001:db8::1",dst="2001:db8::2")/TCP(sport=40000,dport=80,flags="S")
const std::string kSyn6 =
    "02000000000202000000000186dd600000000014064020010db800000000000000000000000120010db80000"
    "000000000000000000029c40005000000000000000005002200097dd0000";
// ER/IPv6(src="2001:db8::2",dst="2001:db8::1")/ICMPv6DestUnreach(code=4)/
//   IPv6(src="2001:db8::1",dst="2001:db8::2")/IPv6ExtHdrFragment(id=5,m=1,offset=0)/<kSyn6's TCP>
const std::string kErr6QuoteFrag =
    "02000000000102000000000286dd60000000004c3a4020010db800000000000000000000000220010db80000"
    "00000000000000000001010410b80000000060000000001c2c4020010db80000000000000000000000012001"
    "0db800000000000000000000000206000001000000059c40005000000000000000005002200097dd0000";
// ... the same quoting the unfragmented SYN (RFC 4443 destination unreachable).
const std::string kErr6QuoteSyn =
    "02000000000102000000000286dd6000000000443a4020010db800000000000000000000000220010db8000000"
    "00000000000000000101043cce00000000600000000014064020010db800000000000000000000000120010db8"
    "0000000000000000000000029c40005000000000000000005002200097dd0000";

// E/IP(src="10.0.0.1",dst="10.0.0.2",id=7)/UDP(sport=5000,dport=53)/b"query"
const std::string kUdp =
    "02000000000202000000000108004500002100070000401166c30a0000010a00000213880035000d882c717565"
    "7279";
// ER/IP(src="10.0.0.9",dst="10.0.0.1",id=20)/ICMP(type=3,code=3)/
//   IP(src="10.0.0.1",dst="10.0.0.9",id=7)/UDP(sport=5000,dport=53)/b"query"
const std::string kUdpErr =
    "02000000000102000000000208004500003d00140000400166a30a0000090a0000010303112500000000450000"
    "2100070000401166bc0a0000010a00000913880035000d88257175657279";
// ... as the client must see it: 10.0.0.9 -> 10.0.0.2 outside and inside.
const std::string kUdpErrUnnat =
    "02000000000102000000000208004500003d00140000400166aa0a0000020a0000010303111e00000000450000"
    "2100070000401166c30a0000010a00000213880035000d882c7175657279";
// E/IP(src="10.0.0.1",dst="10.0.0.2",id=9)/ICMP(type=8,id=0x1234,seq=1)/b"ping"
const std::string kEcho =
    "02000000000202000000000108004500002000090000400166d20a0000010a000002080006fa1234000170696e"
    "67";
// ER/IP(src="10.0.0.9",dst="10.0.0.1",id=21)/ICMP(type=11)/
//   IP(src="10.0.0.1",dst="10.0.0.9",id=9)/ICMP(type=8,id=0x1234,seq=1)/b"ping"
const std::string kEchoErr =
    "02000000000102000000000208004500003c00150000400166a30a0000090a0000010b00f4ff00000000450000"
    "2000090000400166cb0a0000010a000009080006fa1234000170696e67";
const std::string kEchoErrUnnat =
    "02000000000102000000000208004500003c00150000400166aa0a0000020a0000010b00f4ff00000000450000"
    "2000090000400166d20a0000010a000002080006fa1234000170696e67";

// E/IPv6(src="2001:db8::1",dst="2001:db8::2")/UDP(sport=5000,dport=53)/b"query"
const std::string kUdp6 =
    "02000000000202000000000186dd60000000000d114020010db800000000000000000000000120010db80000"
    "0000000000000000000213880035000d40ba7175657279";
// ER/IPv6(src="2001:db8::9",dst="2001:db8::1")/ICMPv6DestUnreach(code=4)/
//   IPv6(src="2001:db8::1",dst="2001:db8::9")/UDP(sport=5000,dport=5353)/b"query"
const std::string kUdp6Err =
    "02000000000102000000000286dd60000000003d3a4020010db800000000000000000000000920010db80000"
    "00000000000000000001010431d90000000060000000000d114020010db80000000000000000000000012001"
    "0db8000000000000000000000009138814e9000d2bff7175657279";
// ... as the client must see it: 2001:db8::9 -> ::2 outside and inside, 5353 -> 53.
const std::string kUdp6ErrUnnat =
    "02000000000102000000000286dd60000000003d3a4020010db800000000000000000000000220010db80000"
    "00000000000000000001010431e00000000060000000000d114020010db80000000000000000000000012001"
    "0db800000000000000000000000213880035000d40ba7175657279";

constexpr uint32_t kTrk = ct::kTracked;

Packet Track(Conntrack& ct, const std::string& hex, const std::string& args) {
  Packet p(FromHex(hex));
  Parse(p);
  EXPECT_TRUE(ct.Execute(p, CtAction(args), nullptr));
  return p;
}

TEST(CtIcmpErrorQuote, EightTcpBytesRelateFourDoNot) {
  Conntrack ct;
  Track(ct, kSyn, "commit");
  EXPECT_EQ(Track(ct, kErrQuote8, "").md.ct_state, kTrk | ct::kRelated | ct::kReplyDir);
  // The quoted ports are there, but ICMP_ERROR_DATA_L4_LEN is 8.
  EXPECT_EQ(Track(ct, kErrQuote4, "").md.ct_state, kTrk | ct::kInvalid);
}

TEST(CtIcmpErrorQuote, AnErrorQuotingAnErrorIsInvalid) {
  Conntrack ct;
  // Only one level of nesting: even with the ICMP "connection" of the
  // quoted error's addresses absent or present, the error is invalid.
  Track(ct, kEcho, "commit");
  EXPECT_EQ(Track(ct, kErrQuotingErr, "").md.ct_state, kTrk | ct::kInvalid);
}

TEST(CtIcmpErrorQuote, QuotedIpv4FirstFragmentIsInvalid) {
  Conntrack ct;
  Track(ct, kSyn, "commit");
  // The same 28 quoted bytes as kErrQuote8 but with MF set: IP_IS_FRAGMENT
  // tests IP_MORE_FRAGMENTS as well as the offset.
  EXPECT_EQ(Track(ct, kErrQuoteFirstFrag, "").md.ct_state, kTrk | ct::kInvalid);
}

TEST(CtIcmpErrorQuote, QuotedIpv6FragmentIsInvalid) {
  Conntrack ct;
  Track(ct, kSyn6, "commit");
  EXPECT_EQ(Track(ct, kErr6QuoteSyn, "").md.ct_state, kTrk | ct::kRelated | ct::kReplyDir);
  // extract_l3_ipv6 on the quote finds a fragment header: not related.
  EXPECT_EQ(Track(ct, kErr6QuoteFrag, "").md.ct_state, kTrk | ct::kInvalid);
}

TEST(CtIcmpErrorQuote, QuotedUdpIsUntranslated) {
  Conntrack ct;
  Track(ct, kUdp, "commit,nat(dst=10.0.0.9)");
  Packet p = Track(ct, kUdpErr, "nat");
  EXPECT_EQ(p.md.ct_state, kTrk | ct::kRelated | ct::kReplyDir | ct::kSrcNat);
  SendPrepare(p, 0);
  EXPECT_EQ(ToHex(p.bytes()), kUdpErrUnnat);
}

TEST(CtIcmpErrorQuote, QuotedIpv6UdpIsUntranslated) {
  // The quoted destination port is translated back too (5353 -> 53) with its
  // checksum: over IPv6 the port rewrite learns the quote's L4 protocol from
  // the offloads word, which must say UDP (scapy's checksums are the oracle).
  Conntrack ct;
  Track(ct, kUdp6, "commit,nat(dst=[2001:db8::9]:5353)");
  Packet p = Track(ct, kUdp6Err, "nat");
  EXPECT_EQ(p.md.ct_state, kTrk | ct::kRelated | ct::kReplyDir | ct::kSrcNat);
  SendPrepare(p, 0);
  EXPECT_EQ(ToHex(p.bytes()), kUdp6ErrUnnat);
}

TEST(CtIcmpErrorQuote, QuotedEchoRequestIsUntranslated) {
  Conntrack ct;
  Track(ct, kEcho, "commit,nat(dst=10.0.0.9)");
  Packet p = Track(ct, kEchoErr, "nat");
  EXPECT_EQ(p.md.ct_state, kTrk | ct::kRelated | ct::kReplyDir | ct::kSrcNat);
  SendPrepare(p, 0);
  EXPECT_EQ(ToHex(p.bytes()), kEchoErrUnnat);
}

// The same error sent to 10.0.0.5 and to 10.0.0.0 (scapy): the quoted
// packet's source must be the address the error goes to (conntrack.c
// extract_l4_icmp: inner src == outer dst), above it or below it.
TEST(CtIcmpErrorQuote, AQuoteFromAnotherHostIsInvalid) {
  for (const char* hex :
       {"02000000000102000000000208004500003800140000400166ab0a0000020a00000503035c8400000000450000"
        "2800010000400666cd0a0000010a0000029c400050000003e8",
        "02000000000102000000000208004500003800140000400166b00a0000020a00000003035c8400000000450000"
        "2800010000400666cd0a0000010a0000029c400050000003e8"}) {
    Conntrack ct;
    Track(ct, kSyn, "commit");
    EXPECT_EQ(Track(ct, hex, "").md.ct_state, kTrk | ct::kInvalid) << hex;
  }
}

}  // namespace
}  // namespace offlab
