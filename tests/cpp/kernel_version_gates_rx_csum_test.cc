// Kernel version gates of the receive-side checksum steps (stack_rx_csum.cc,
// ovs_dp_ct.cc PskbTrimRcsum): each checked at exactly the release that
// brought the change and at the release before it.
//  - 3.18: skb->csum_level (Tom Herbert, "net: Add skb->csum_level"):
//    validating a CHECKSUM_UNNECESSARY skb uses up one level (level 0 ->
//    CHECKSUM_NONE); before, UNNECESSARY vouched for every checksum.
//  - 4.7: 31b33dfb0a14 "skbuff: Fix skb checksum partial check": pulling
//    past a PARTIAL skb's csum_start makes it CHECKSUM_NONE.
//  - 3.18: UDP tunnel sockets' convert_csum (Tom Herbert): a datagram
//    whose checksum level was used up becomes CHECKSUM_COMPLETE.
//  - 4.20: 88078d98d1bb "net: pskb_trim_rcsum() and CHECKSUM_COMPLETE are
//    friends": trimming keeps COMPLETE; before, CHECKSUM_NONE.
#include <gtest/gtest.h>

#include "kernel_test_skb.h"
#include "offlab/linux/ovs_dp_ct.h"
#include "offlab/linux/stack_rx.h"
#include "offlab/linux/stack_rx_csum.h"
#include "offlab/net/counters.h"

namespace offlab::kernel {
namespace {

KernelVersion V(int maj, int min) { return KernelVersion{maj, min, false}; }

SkBuff Frame(size_t n, IpSummed s) {
  SkBuff skb;
  Bytes b(n);
  for (size_t i = 0; i < n; i++) b[i] = static_cast<uint8_t>(i * 7 + 1);
  skb.pkt = Packet(b);
  skb.ip_summed = s;
  return skb;
}

TEST(KernelVersionGatesRxCsum, ValidateUsesUpALevelFrom318) {
  auto after = [](KernelVersion kv) {
    SkBuff skb = Frame(80, IpSummed::kUnnecessary);
    skb.csum_level = 0;
    const CsumValidation r = SkbChecksumValidate(skb, 34, 0, false, false, 0x1234, kv);
    EXPECT_FALSE(r.error);
    return skb.ip_summed;
  };
  EXPECT_EQ(after(V(3, 17)), IpSummed::kUnnecessary);
  EXPECT_EQ(after(V(3, 18)), IpSummed::kNone);
  EXPECT_EQ(after(KernelVersion{3, 10, true}), IpSummed::kNone);  // RHEL 7 has it
}

TEST(KernelVersionGatesRxCsum, PullPastPartialStartIsNoneFrom47) {
  auto after = [](KernelVersion kv) {
    SkBuff skb = Frame(80, IpSummed::kPartial);
    skb.csum_start = 14;
    skb.csum_offset = 10;
    PullRcsum(skb, 14, 20, kv);
    return skb.ip_summed;
  };
  EXPECT_EQ(after(V(4, 6)), IpSummed::kPartial);
  EXPECT_EQ(after(V(4, 7)), IpSummed::kNone);
}

TEST(KernelVersionGatesRxCsum, TrimKeepsCompleteFrom420) {
  auto after = [](KernelVersion kv) {
    SkBuff skb = Frame(80, IpSummed::kComplete);
    skb.csum_from = 14;
    TrimRcsum(skb, 14, 40, kv);
    EXPECT_EQ(skb.len(), 54u);
    return skb.ip_summed;
  };
  EXPECT_EQ(after(V(4, 19)), IpSummed::kNone);
  EXPECT_EQ(after(V(4, 20)), IpSummed::kComplete);
}

TEST(KernelVersionGatesRxCsum, OvsTrimKeepsCompleteFrom420) {
  auto after = [](KernelVersion kv) {
    SkBuff skb = Frame(80, IpSummed::kComplete);
    skb.csum_from = 14;
    EXPECT_EQ(PskbTrimRcsum(skb, 40, kv), 0);
    EXPECT_EQ(skb.len(), 54u);
    return skb.ip_summed;
  };
  EXPECT_EQ(after(V(4, 19)), IpSummed::kNone);
  EXPECT_EQ(after(V(4, 20)), IpSummed::kComplete);
}

TEST(KernelVersionGatesRxCsum, TunnelSocketConvertsTheChecksumFrom318) {
  // The NIC vouched for the outer UDP checksum (UNNECESSARY, level 0).
  // 3.18: udp4_csum_init uses that level up (CHECKSUM_NONE, csum_valid) and
  // the convert_csum socket turns it into CHECKSUM_COMPLETE (csum =
  // ~pseudo) for the inner checks. 3.17: no csum_level, no conversion: the
  // skb stays UNNECESSARY, vouching for the inner checksums too.
  auto after = [](KernelVersion kv) {
    Bytes f = testing::Ipv4Frame(17, "1f900035000c000000010203");
    testing::Put16(f, 40, testing::OracleL4Csum(f, 14, 34, 17, 6));
    SkBuff skb = testing::NetworkSkb(f, IpSummed::kUnnecessary);
    Counters c;
    IpRcvInfo ip;
    EXPECT_TRUE(IpRcvCore(skb, 14, kv, &c, &ip).delivered);
    UdpSocketOpts sock;
    sock.convert_csum = true;
    sock.encap = true;
    EXPECT_TRUE(UdpRcv(skb, ip, &sock, kv, &c).delivered);
    return skb.ip_summed;
  };
  EXPECT_EQ(after(V(3, 17)), IpSummed::kUnnecessary);
  EXPECT_EQ(after(V(3, 18)), IpSummed::kComplete);
}

}  // namespace
}  // namespace offlab::kernel
