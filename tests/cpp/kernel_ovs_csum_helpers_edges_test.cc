// Edges of the incremental checksum helpers the OVS datapath and NAT share
// (models/src/linux/ovs_actions_csum.cc): inet_proto_csum_replace16 on a
// non-pseudo-header value, before and after v5.5, a field out of range,
// skb_pull_rcsum of a PARTIAL skb whose checksum start is pulled off, and
// the refusals of pulls and pushes that leave the packet. Expected values
// are worked by hand from the kernel's formulas (shown in the comments).
//
// Source: torvalds/linux v6.18 net/core/utils.c inet_proto_csum_replace16
// ("if (skb->ip_summed != CHECKSUM_PARTIAL) { *sum =
// csum_fold(csum_partial(diff, sizeof(diff), ~csum_unfold(*sum))); ... }
// else if (pseudohdr) ..."), v5.4 of the same (the COMPLETE update of
// skb->csum only "if (skb->ip_summed == CHECKSUM_COMPLETE && pseudohdr)"),
// net/core/skbuff.c skb_pull_rcsum (__skb_pull, then skb_postpull_rcsum),
// include/linux/skbuff.h __skb_postpull_rcsum ("else if (skb->ip_summed ==
// CHECKSUM_PARTIAL && skb_checksum_start_offset(skb) < 0) skb->ip_summed =
// CHECKSUM_NONE").
#include <gtest/gtest.h>

#include "offlab/linux/ovs_actions_csum.h"
#include "test_util.h"

namespace offlab::kernel {
namespace {

using testing::Be16;

SkBuff Skb(size_t n, IpSummed st) {
  SkBuff s;
  s.pkt = Packet(Bytes(n, 0));
  s.ip_summed = st;
  return s;
}

const uint8_t kZero[16] = {};
const uint8_t kOne[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};

TEST(KernelOvsCsumHelpersEdges, Replace16OfAValueOutsideThePseudoHeader) {
  // Not PARTIAL: diff = {~0 x4, 0,0,0,1} sums to 1 (mod 0xffff); the field
  // 0x1234 becomes csum_fold(1 + ~0x1234) = ~(0xedcb + 1) = 0x1233. With
  // pseudohdr false skb->csum stays, on v5.4 as on v6.18.
  for (KernelVersion kv : {KernelVersion{5, 4}, KernelVersion{6, 18}}) {
    SkBuff s = Skb(60, IpSummed::kComplete);
    s.csum = 0x4321;
    s.pkt.data()[50] = 0x12, s.pkt.data()[51] = 0x34;
    InetProtoCsumReplace16(s, 50, kZero, kOne, false, kv);
    EXPECT_EQ(Be16(s.pkt.bytes(), 50), 0x1233) << kv.ToString();
    EXPECT_EQ(s.csum, 0x4321u) << kv.ToString();
  }
  // PARTIAL and not a pseudo-header value: nothing to do.
  SkBuff p = Skb(60, IpSummed::kPartial);
  p.pkt.data()[50] = 0x12, p.pkt.data()[51] = 0x34;
  InetProtoCsumReplace16(p, 50, kZero, kOne, false, kLabKernel);
  EXPECT_EQ(Be16(p.pkt.bytes(), 50), 0x1234);
}

TEST(KernelOvsCsumHelpersEdges, AFieldOutOfRangeIsLeftAlone) {
  SkBuff s = Skb(51, IpSummed::kNone);
  InetProtoCsumReplace16(s, 50, kZero, kOne, true, kLabKernel);
  InetProtoCsumReplace4(s, 50, 0, 1, true);
  EXPECT_EQ(s.pkt.bytes(), Bytes(51, 0));
}

TEST(KernelOvsCsumHelpersEdges, PullingOffAPartialChecksumStartMakesItNone) {
  // skb_pull_rcsum moves skb->data first: a csum_start inside the pulled
  // bytes is then before data, so __skb_postpull_rcsum sets CHECKSUM_NONE.
  SkBuff s = Skb(60, IpSummed::kPartial);
  s.csum_from = 14;
  s.csum_start = 20;
  ASSERT_TRUE(SkbPullRcsum(s, 8));
  EXPECT_EQ(s.csum_from, 22);
  EXPECT_EQ(s.ip_summed, IpSummed::kNone);
  // A start at the new data is fine.
  SkBuff at = Skb(60, IpSummed::kPartial);
  at.csum_from = 14;
  at.csum_start = 22;
  ASSERT_TRUE(SkbPullRcsum(at, 8));
  EXPECT_EQ(at.ip_summed, IpSummed::kPartial);
}

TEST(KernelOvsCsumHelpersEdges, PullsAndPushesThatLeaveThePacketChangeNothing) {
  SkBuff s = Skb(20, IpSummed::kComplete);
  s.csum = 0x1111;
  s.csum_from = 14;
  EXPECT_FALSE(SkbPullRcsum(s, 7));
  EXPECT_FALSE(SkbPushRcsum(s, 15));
  EXPECT_EQ(s.csum_from, 14);
  EXPECT_EQ(s.csum, 0x1111u);
  // In-place pull/push/replace past the end, or on a skb that is not
  // COMPLETE, leave the sum.
  RcsumPull(s, 18, 4);
  RcsumPush(s, 21, 1);
  EXPECT_EQ(s.csum, 0x1111u);
  SkBuff n = Skb(20, IpSummed::kUnnecessary);
  n.csum = 0x2222;
  const uint8_t a[2] = {1, 2}, b[2] = {3, 4};
  RcsumReplace(n, a, b, 2);
  RcsumPush(n, 0, 2);
  EXPECT_EQ(n.csum, 0x2222u);
  // The same replace on a COMPLETE skb: csum - 0x0102 + 0x0304.
  s.csum = 0x1111;
  RcsumReplace(s, a, b, 2);
  EXPECT_EQ(s.csum % 0xffff, (0x1111u - 0x0102 + 0x0304) % 0xffff);
}

}  // namespace
}  // namespace offlab::kernel
