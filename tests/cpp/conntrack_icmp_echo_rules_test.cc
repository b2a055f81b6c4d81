// SPDX-License-Identifier: Apache-2.0
//
// Which ICMP and ICMPv6 echo messages userspace conntrack can track: a
// query type with a non-zero code is not an echo at all, an echo reply
// cannot open a connection but answers a committed request, in both
// families. Rules from Open vSwitch lib/conntrack.c: extract_l4_icmp
// (ECHO_REQUEST/ECHO_REPLY/TIMESTAMP/.../INFO_REPLY: "if (icmp->icmp_code
// != 0) return false"; the key's src/dst type from reverse_icmp_type) and
// extract_l4_icmp6 (ICMP6_ECHO_REQUEST/REPLY likewise, reverse_icmp6_type);
// a key that cannot be extracted makes the packet +inv. icmp_valid_new /
// icmp6_valid_new: only a request (ECHO_REQUEST, and for IPv4 also
// INFOREQUEST and TIMESTAMP) may create a connection.
//
// Frames from scapy 2.x (E = Ether(src="02:00:00:00:00:01",
// dst="02:00:00:00:00:02"), ER the reverse, data b"ping", id=0x1234, seq=1).
#include <gtest/gtest.h>

#include <string>

#include "flow_test_util.h"
#include "offlab/net/bytes.h"
#include "offlab/ovs/conntrack.h"
#include "offlab/ovs/flow.h"
#include "offlab/ovs/parse.h"

namespace offlab {
namespace {

// E/IP(src="10.0.0.1",dst="10.0.0.2",id=9)/ICMP(type=8,code=1)
const std::string kEcho4Code1 =
    "02000000000202000000000108004500002000090000400166d20a0000010a000002080106f91234000170696e"
    "67";
// E/IP(src="10.0.0.1",dst="10.0.0.2",id=9)/ICMP(type=8)
const std::string kEcho4 =
    "02000000000202000000000108004500002000090000400166d20a0000010a000002080006fa1234000170696e"
    "67";
// ER/IP(src="10.0.0.2",dst="10.0.0.1",id=10)/ICMP(type=0)
const std::string kEchoReply4 =
    "020000000001020000000002080045000020000a0000400166d10a0000020a00000100000efa1234000170696e"
    "67";
// E/IPv6(src="2001:db8::1",dst="2001:db8::2")/ICMPv6EchoRequest()
const std::string kEcho6 =
    "02000000000202000000000186dd60000000000c3a4020010db800000000000000000000000120010db80000"
    "000000000000000000028000333e1234000170696e67";
// ... ICMPv6EchoRequest(code=1)
const std::string kEcho6Code1 =
    "02000000000202000000000186dd60000000000c3a4020010db800000000000000000000000120010db80000"
    "000000000000000000028001333d1234000170696e67";
// ER/IPv6(src="2001:db8::2",dst="2001:db8::1")/ICMPv6EchoReply()
const std::string kEchoReply6 =
    "02000000000102000000000286dd60000000000c3a4020010db800000000000000000000000220010db80000"
    "000000000000000000018100323e1234000170696e67";

constexpr uint32_t kTrk = ct::kTracked;

uint32_t Track(Conntrack& ct, const std::string& hex, const std::string& args) {
  return testing::CtTrack(ct, hex, args);
}

TEST(CtIcmpEchoRules, AnEchoRequestWithANonZeroCodeIsInvalid) {
  Conntrack ct;
  EXPECT_EQ(Track(ct, kEcho4Code1, "commit"), kTrk | ct::kInvalid);
  EXPECT_EQ(Track(ct, kEcho4, "commit"), kTrk | ct::kNew);
}

TEST(CtIcmpEchoRules, AnIcmpv6EchoRequestWithANonZeroCodeIsInvalid) {
  Conntrack ct;
  EXPECT_EQ(Track(ct, kEcho6Code1, "commit"), kTrk | ct::kInvalid);
  EXPECT_EQ(Track(ct, kEcho6, "commit"), kTrk | ct::kNew);
}

TEST(CtIcmpEchoRules, AnIcmpv6EchoReplyAnswersTheRequestButOpensNothing) {
  Conntrack fresh;
  EXPECT_EQ(Track(fresh, kEchoReply6, "commit"), kTrk | ct::kInvalid);
  Conntrack ct;
  Track(ct, kEcho6, "commit");
  EXPECT_EQ(Track(ct, kEchoReply6, ""), kTrk | ct::kEstablished | ct::kReplyDir);
}

TEST(CtIcmpEchoRules, AnIcmpEchoReplyAnswersTheRequestButOpensNothing) {
  Conntrack fresh;
  EXPECT_EQ(Track(fresh, kEchoReply4, "commit"), kTrk | ct::kInvalid);
  Conntrack ct;
  Track(ct, kEcho4, "commit");
  EXPECT_EQ(Track(ct, kEchoReply4, ""), kTrk | ct::kEstablished | ct::kReplyDir);
}

}  // namespace
}  // namespace offlab
