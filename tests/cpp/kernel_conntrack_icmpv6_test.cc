// nf_conntrack for ICMPv6 (torvalds/linux v6.18
// net/netfilter/nf_conntrack_proto_icmpv6.c): icmpv6_error verifies the
// checksum at PRE_ROUTING (nf_ip6_checksum with IPPROTO_ICMPV6) and sends
// every type below 128 (an error message) to nf_conntrack_inet_error,
// which needs the quoted packet to match a connection (RELATED) and
// otherwise marks it invalid; of the informational types only those in
// valid_new[] may start a connection: ICMPV6_ECHO_REQUEST (128) and
// ICMPV6_NI_QUERY (139). Frames from kernel_test_skb.h, ICMPv6 checksums by
// the plain oracle (RFC 4443 section 2.3: pseudo header, next header 58).
#include <gtest/gtest.h>

#include <string>

#include "kernel_test_skb.h"
#include "offlab/linux/nf_conntrack.h"

namespace offlab::kernel {
namespace {

using testing::Ipv6Frame;
using testing::NetworkSkb;
using testing::OracleL4Csum;
using testing::Put16;

// ICMPv6 of `type` (code 0, identifier 7, sequence 1, "abcd").
NfCtResult Track(uint8_t type, NfCtExisting existing = NfCtExisting::kNone) {
  char icmp[40];
  std::snprintf(icmp, sizeof icmp,
                "%02x00000000070001"
                "61626364",
                unsigned{type});
  Bytes f = Ipv6Frame(58, "", icmp);
  Put16(f, 54 + 2, OracleL4Csum(f, 14, 54, 58, 2));
  SkBuff s = NetworkSkb(f, IpSummed::kNone);
  return NfConntrackIn(s, 14, NfHook::kPreRouting, NfConntrackConfig{}, existing);
}

TEST(KernelConntrackIcmpv6, EchoRequestAndNodeInfoQueryStartConnections) {
  for (uint8_t type : {128, 139}) {
    const NfCtResult r = Track(type);
    EXPECT_TRUE(r.tracked) << int{type} << " " << r.reason;
    EXPECT_EQ(r.ctinfo, NfCtInfo::kNew) << int{type};
    EXPECT_TRUE(r.checksum_checked);
    EXPECT_TRUE(r.checksum_ok);
  }
  // An echo reply or a node information response starts nothing.
  for (uint8_t type : {129, 140}) {
    const NfCtResult r = Track(type);
    EXPECT_FALSE(r.tracked) << int{type};
    EXPECT_EQ(r.stat_invalid, 1u) << int{type};
    // ... but belongs to an existing connection.
    EXPECT_TRUE(Track(type, NfCtExisting::kReply).tracked) << int{type};
  }
}

TEST(KernelConntrackIcmpv6, ErrorMessagesNeedARelatedConnection) {
  // Destination unreachable (1) and packet too big (2): types below 128.
  for (uint8_t type : {1, 2, 127}) {
    const NfCtResult r = Track(type);
    EXPECT_FALSE(r.tracked) << int{type};
    EXPECT_EQ(r.stat_error, 1u) << int{type};
    const NfCtResult rel = Track(type, NfCtExisting::kRelated);
    EXPECT_TRUE(rel.tracked) << int{type};
    EXPECT_EQ(rel.ctinfo, NfCtInfo::kRelated) << int{type};
  }
}

}  // namespace
}  // namespace offlab::kernel
