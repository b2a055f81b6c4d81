// skb_segment on a frag_list skb whose members are equal and page-backed
// (head_frag): with SG and checksum offload it splits at the members into
// GSO segments the device can still segment (net/core/skbuff.c, since
// torvalds/linux 13acc94eff12 "net: permit skb_segment on head_frag
// frag_list skb", v4.17; v4.11 took no member path and cut at gso_size).
// Linear members without head_frag are never split that way. Segments are
// checked by count and size, derived by hand from the cited source.
#include <gtest/gtest.h>

#include <string>

#include "kernel_gso_test_frames.h"
#include "offlab/linux/xmit.h"

namespace offlab::kernel {
namespace {

using namespace gsotest;

// A TCP skb of 6 MSS: 2 in the head, two members of 2 MSS on frag_list.
SkBuff SixMss() {
  SkBuff s = GsoSkb(false, 6 * kMss, 0x10);
  s.frag_list_lens = {2 * kMss, 2 * kMss};
  return s;
}

TEST(KernelGsoFragListSplit, HeadFragMembersSplitIntoGsoSegmentsSince417) {
  const auto dev = Dev(netif::kSg | netif::kIpCsum | netif::kTso);
  struct Case {
    KernelVersion kv;
    bool head_frag;
    size_t segments;  // what leaves validate_xmit_skb
    size_t each;      // payload bytes per segment
  } cases[] = {
      {{6, 18}, true, 3, 2 * kMss},  // split at the members: three 2-MSS TSO skbs
      {{4, 17}, true, 3, 2 * kMss},
      {{4, 16}, true, 0, kMss},  // the release before 13acc94eff12
      // Before 13acc94eff12 a member's 2-MSS linear area met at gso_size
      // hits BUG_ON(skb_headlen(list_skb) > len): nothing leaves.
      {{4, 11}, true, 0, kMss},
  };
  for (const Case& c : cases) {
    XmitOptions opt;
    opt.frag_list_linear = true;
    opt.frag_list_head_frag = c.head_frag;
    Counters k;
    auto segs = ValidateXmitSkb(SixMss(), dev, opt, c.kv, &k);
    ASSERT_EQ(segs.size(), c.segments) << c.kv.ToString() << c.head_frag;
    for (const SkBuff& s : segs) EXPECT_EQ(s.len(), kHdr + c.each) << c.kv.ToString();
    EXPECT_EQ(k.Get("gso_frag_list_split"), c.segments == 3 ? 1u : 0u) << c.kv.ToString();
  }
  // Members of one MSS: the same segments either way, but only head_frag
  // members take the member path. (Longer linear members would hit the
  // kernel's BUG_ON on an SG device: kernel_gso_test.cc.)
  for (bool head_frag : {false, true}) {
    SkBuff s = GsoSkb(false, 3 * kMss, 0x10);
    s.frag_list_lens = {kMss, kMss};
    XmitOptions opt;
    opt.frag_list_head_frag = head_frag;
    Counters k;
    auto segs = ValidateXmitSkb(s, dev, opt, kLabKernel, &k);
    ASSERT_EQ(segs.size(), 3u);
    EXPECT_EQ(k.Get("gso_frag_list_split"), head_frag ? 1u : 0u);
  }
}

TEST(KernelGsoFragListSplit, AHeadFragMemberReachedThroughFragsFrom417) {
  // A head of 1000 payload bytes and a head_frag member of one MSS on an SG
  // device: the first segment takes the member's first 448 bytes as a page
  // frag. 13acc94eff12 (v4.17) allows that for a head_frag member; 4.16's
  // skb_segment has BUG_ON(skb_headlen(list_skb)) there (dropped here).
  auto run = [](int minor, Counters* c) {
    SkBuff s = GsoSkb(false, 1000 + kMss, 0x10);
    s.frag_list_lens = {kMss};
    XmitOptions opt;
    opt.frag_list_linear = true;
    opt.frag_list_head_frag = true;
    return ValidateXmitSkb(s, Dev(netif::kSg | netif::kIpCsum), opt, KernelVersion{4, minor}, c);
  };
  Counters old, now;
  EXPECT_TRUE(run(16, &old).empty());
  EXPECT_EQ(old.Get("skb_segment_bug"), 1u);
  EXPECT_EQ(run(17, &now).size(), 2u);
  EXPECT_EQ(now.Get("skb_segment_bug"), 0u);
}

TEST(KernelGsoFragListSplit, SegmentsInsideAMemberReferenceItThroughFrags) {
  // A device without TSO cuts at gso_size. With one MSS in the head and a
  // page-backed member of three (its bytes in page frags, no linear part),
  // the second to fourth segments lie wholly in the member: skb_segment
  // references its frags (:4921-4980, one piece each, far from
  // MAX_SKB_FRAGS), so four one-MSS segments leave.
  SkBuff s = GsoSkb(false, 4 * kMss, 0x10);
  s.frag_list_lens = {3 * kMss};
  XmitOptions opt;
  opt.frag_list_linear = false;
  Counters k;
  auto segs = ValidateXmitSkb(s, Dev(netif::kSg | netif::kIpCsum), opt, kLabKernel, &k);
  std::string all;
  for (const auto& [key, v] : k.values()) all += key + "=" + std::to_string(v) + " ";
  ASSERT_EQ(segs.size(), 4u) << all;
  for (const SkBuff& seg : segs) EXPECT_EQ(seg.len(), kHdr + kMss);
}

}  // namespace
}  // namespace offlab::kernel
