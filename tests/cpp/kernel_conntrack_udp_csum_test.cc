// nf_conntrack's UDP check (torvalds/linux v6.18
// net/netfilter/nf_conntrack_proto_udp.c udp_error): a zero checksum is
// "no checksum"; a present one is verified at PRE_ROUTING when
// net.netfilter.nf_conntrack_checksum is on (nf_checksum), a bad one making
// the packet invalid ("bad checksum"); at other hooks, or with the sysctl
// off, it is not looked at. Frames from kernel_test_skb.h, UDP checksums by
// the plain oracle.
#include <gtest/gtest.h>

#include "kernel_test_skb.h"
#include "offlab/linux/nf_conntrack.h"

namespace offlab::kernel {
namespace {

using testing::Ipv4Frame;
using testing::NetworkSkb;
using testing::OracleL4Csum;
using testing::Put16;

Bytes Udp(bool good) {
  Bytes f = Ipv4Frame(17, "1f900035000c000000010203");
  Put16(f, 40, static_cast<uint16_t>(OracleL4Csum(f, 14, 34, 17, 6) ^ (good ? 0 : 1)));
  return f;
}

NfCtResult Track(const Bytes& f, NfHook hook, bool sysctl = true) {
  SkBuff s = NetworkSkb(f, IpSummed::kNone);
  NfConntrackConfig cfg;
  cfg.checksum = sysctl;
  return NfConntrackIn(s, 14, hook, cfg);
}

TEST(KernelConntrackUdpCsum, APresentChecksumIsVerifiedAtPreRouting) {
  const NfCtResult ok = Track(Udp(true), NfHook::kPreRouting);
  EXPECT_TRUE(ok.tracked) << ok.reason;
  EXPECT_EQ(ok.ctinfo, NfCtInfo::kNew);
  EXPECT_TRUE(ok.checksum_checked);
  EXPECT_TRUE(ok.checksum_ok);
  const NfCtResult bad = Track(Udp(false), NfHook::kPreRouting);
  EXPECT_FALSE(bad.tracked);
  EXPECT_EQ(bad.reason, "bad checksum");
  EXPECT_EQ(bad.stat_invalid, 1u);
}

TEST(KernelConntrackUdpCsum, NotLookedAtElsewhereOrWithTheSysctlOff) {
  for (const NfCtResult& r :
       {Track(Udp(false), NfHook::kLocalOut), Track(Udp(false), NfHook::kPreRouting, false)}) {
    EXPECT_TRUE(r.tracked) << r.reason;
    EXPECT_FALSE(r.checksum_checked);
  }
}

}  // namespace
}  // namespace offlab::kernel
