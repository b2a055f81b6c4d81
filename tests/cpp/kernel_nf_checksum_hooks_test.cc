// Where netfilter trusts a CHECKSUM_COMPLETE sum, and the ICMP rules that
// come before tracking: nf_ip_checksum / nf_ip6_checksum look at a
// device's sum only at PRE_ROUTING and LOCAL_IN (at the other hooks a
// COMPLETE skb is taken as correct, unchecked); for IPv4 protocols without
// a pseudo-header (ICMP) the sum of the whole packet folding to 0 is
// enough; an ICMP type above NR_ICMP_TYPES is an error.
//
// Source: torvalds/linux v6.18 net/netfilter/utils.c nf_ip_checksum
// ("case CHECKSUM_COMPLETE: if (hook != NF_INET_PRE_ROUTING && hook !=
// NF_INET_LOCAL_IN) break; if ((protocol != IPPROTO_TCP && protocol !=
// IPPROTO_UDP && !csum_fold(skb->csum)) || !csum_tcpudp_magic(...)) {
// skb->ip_summed = CHECKSUM_UNNECESSARY; break; } fallthrough;" to the
// software sum) and nf_ip6_checksum (the same hook test);
// net/netfilter/nf_conntrack_proto_icmp.c nf_conntrack_icmpv4_error ("if
// (icmph->type > NR_ICMP_TYPES) ... "invalid icmp type"", counted as an
// error), include/uapi/linux/icmp.h NR_ICMP_TYPES 18.
// Frames: kernel_test_skb.h, checksums from the plain-loop oracle.
#include <gtest/gtest.h>

#include "kernel_test_skb.h"
#include "offlab/linux/nf_conntrack.h"

namespace offlab::kernel {
namespace {

using testing::Ipv4Frame;
using testing::Ipv6Frame;
using testing::NetworkSkb;
using testing::OracleL4Csum;
using testing::OracleSum;
using testing::Put16;

// IPv4 UDP 8080 -> 53 with four data bytes, the checksum one off when
// `bad` (the device's COMPLETE sum is still the sum of these bytes).
Bytes Udp4(bool bad) {
  Bytes f = Ipv4Frame(17, "1f900035000c000061626364");
  Put16(f, 40, static_cast<uint16_t>(OracleL4Csum(f, 14, 34, 17, 6) ^ (bad ? 1 : 0)));
  return f;
}

// IPv4 ICMP of `type` (code 0, id 0x1234, seq 1), checksum right or not.
Bytes Icmp4(uint8_t type, bool bad = false) {
  Bytes f = Ipv4Frame(1, "0800000012340001");
  f[34] = type;
  Put16(f, 36, static_cast<uint16_t>(~OracleSum(&f[34], 8) ^ (bad ? 1 : 0)));
  return f;
}

TEST(KernelNfChecksumHooks, ACompleteSumIsOnlyCheckedAtPreRoutingAndLocalIn) {
  for (NfHook h : {NfHook::kPreRouting, NfHook::kLocalIn}) {
    SkBuff s = NetworkSkb(Udp4(true), IpSummed::kComplete);
    EXPECT_NE(NfIpChecksum(s, 14, 34, h, 17), 0);
  }
  for (NfHook h : {NfHook::kForward, NfHook::kLocalOut, NfHook::kPostRouting}) {
    SkBuff s = NetworkSkb(Udp4(true), IpSummed::kComplete);
    EXPECT_EQ(NfIpChecksum(s, 14, 34, h, 17), 0);
    EXPECT_EQ(s.ip_summed, IpSummed::kComplete);
  }
}

TEST(KernelNfChecksumHooks, Ipv6CompleteSumIsOnlyCheckedAtPreRoutingAndLocalIn) {
  // IPv6 TCP SYN with its checksum one off.
  Bytes f = Ipv6Frame(6, "", "d478145100000001000000005002010000000000");
  Put16(f, 70, static_cast<uint16_t>(OracleL4Csum(f, 14, 54, 6, 16) ^ 1));
  SkBuff in = NetworkSkb(f, IpSummed::kComplete);
  EXPECT_NE(NfIp6Checksum(in, 14, 54, NfHook::kLocalIn, 6), 0);
  SkBuff fwd = NetworkSkb(f, IpSummed::kComplete);
  EXPECT_EQ(NfIp6Checksum(fwd, 14, 54, NfHook::kForward, 6), 0);
  EXPECT_EQ(fwd.ip_summed, IpSummed::kComplete);
}

TEST(KernelNfChecksumHooks, AnIcmpPacketWhoseWholeSumFoldsToZeroIsUnnecessary) {
  // IP header and ICMP message each sum to -0: csum_fold(skb->csum) == 0.
  SkBuff good = NetworkSkb(Icmp4(8), IpSummed::kComplete);
  EXPECT_EQ(NfIpChecksum(good, 14, 34, NfHook::kPreRouting, 1), 0);
  EXPECT_EQ(good.ip_summed, IpSummed::kUnnecessary);
  // A wrong ICMP checksum falls through to the software sum.
  SkBuff bad = NetworkSkb(Icmp4(8, true), IpSummed::kComplete);
  EXPECT_NE(NfIpChecksum(bad, 14, 34, NfHook::kPreRouting, 1), 0);
  EXPECT_NE(bad.ip_summed, IpSummed::kUnnecessary);
}

TEST(KernelNfChecksumHooks, AnIcmpTypeAboveNrIcmpTypesIsAnError) {
  SkBuff t19 = NetworkSkb(Icmp4(19), IpSummed::kNone);
  NfCtResult r = NfConntrackIn(t19, 14, NfHook::kPreRouting, {});
  EXPECT_FALSE(r.tracked);
  EXPECT_EQ(r.reason, "invalid icmp type");
  EXPECT_EQ(r.stat_error, 1u);
  // 18 (address mask reply) is a known type: not this error.
  SkBuff t18 = NetworkSkb(Icmp4(18), IpSummed::kNone);
  r = NfConntrackIn(t18, 14, NfHook::kPreRouting, {});
  EXPECT_NE(r.reason, "invalid icmp type");
  EXPECT_EQ(r.stat_error, 0u);
}

}  // namespace
}  // namespace offlab::kernel
