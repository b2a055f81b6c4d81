// GRO's TCP checksum check before torvalds/linux 573e8fca255a (v3.16; not
// RHEL 7, whose GRO is backported): tcp4_gro_receive switched on
// skb->ip_summed (v3.10 net/ipv4/tcp_offload.c): COMPLETE had to match
// skb->csum or the frame was flushed, with no software fallback; NONE was
// summed in software; UNNECESSARY was trusted. Frames and checksums come
// from the GRO test frames (plain-loop oracle).
#include <gtest/gtest.h>

#include "kernel_gro_test_frames.h"
#include "offlab/linux/gro.h"

namespace offlab::testing {
namespace {

using kernel::GroCell;
using kernel::GroConfig;
using kernel::IpSummed;
using kernel::SkBuff;

GroConfig V310() {
  GroConfig c;
  c.kv = {3, 10, false};
  return c;
}

struct Outcome {
  uint64_t merged = 0, csum_bytes = 0;
  size_t out = 0;
};

// Three frames; `bad` frame's TCP checksum corrupted, `stale` frame's
// COMPLETE sum off by one (its bytes fine).
Outcome Receive(IpSummed st, int bad = -1, int stale = -1) {
  GroCell g(V310());
  auto frames = SegTrain(3);
  for (int k = 0; k < 3; k++) {
    Bytes f = frames[static_cast<size_t>(k)];
    if (k == bad) f[14 + 20 + 16] ^= 0x01;
    SkBuff s = DriverSkb(f, st);
    if (k == stale) s.csum += 1;
    g.Receive(std::move(s));
  }
  Outcome r;
  r.out = g.Flush().size();
  r.merged = g.stats().merged;
  r.csum_bytes = g.stats().csum_bytes;
  return r;
}

TEST(KernelGroLegacy, NoneIsSummedInSoftware) {
  Outcome r = Receive(IpSummed::kNone);
  EXPECT_EQ(r.merged, 2u);
  EXPECT_EQ(r.out, 1u);
  EXPECT_EQ(r.csum_bytes, 3u * (20 + 1000));  // each TCP segment once
  r = Receive(IpSummed::kNone, 1);
  EXPECT_EQ(r.merged, 0u);  // the bad frame goes up, and the third starts anew
  EXPECT_EQ(r.out, 3u);
}

TEST(KernelGroLegacy, ALoneVerifiedSegmentGoesUpUnnecessary) {
  // One segment, nothing to merge with: napi_gro_complete passes a count-1
  // skb up without tcp_gro_complete, so it keeps what the checksum check
  // made of it: UNNECESSARY, of the only checksum a 3.10 skb could vouch for
  // (csum_level came with v3.16's "net: Add skb->csum_level").
  for (IpSummed st : {IpSummed::kNone, IpSummed::kComplete}) {
    GroCell g(V310());
    g.Receive(DriverSkb(SegTrain(1)[0], st));
    const std::vector<SkBuff> up = g.Flush();
    ASSERT_EQ(up.size(), 1u);
    EXPECT_EQ(up[0].ip_summed, IpSummed::kUnnecessary) << static_cast<int>(st);
    EXPECT_EQ(up[0].csum_level, 0) << static_cast<int>(st);
  }
}

TEST(KernelGroLegacy, CompleteMustMatchWithoutSoftwareFallback) {
  Outcome r = Receive(IpSummed::kComplete);
  EXPECT_EQ(r.merged, 2u);
  EXPECT_EQ(r.csum_bytes, 0u);
  r = Receive(IpSummed::kComplete, -1, 1);  // bytes fine, the device's sum not
  EXPECT_EQ(r.merged, 0u);
  EXPECT_EQ(r.csum_bytes, 0u);
  EXPECT_EQ(r.out, 3u);
}

TEST(KernelGroLegacy, UnnecessaryIsTrustedEvenOverBadBytes) {
  Outcome r = Receive(IpSummed::kUnnecessary, 1);
  EXPECT_EQ(r.merged, 2u);
  EXPECT_EQ(r.out, 1u);
  EXPECT_EQ(r.csum_bytes, 0u);
}

TEST(KernelGroLegacy, AnIpv6CompleteSumIsPulledOnce) {
  // ipv6_gro_receive (v3.10 net/ipv6/ip6_offload.c) took the IPv6 header out
  // of skb->csum with skb_postpull_rcsum itself, once: the TCP check then
  // matches and the three segments merge, with no software sum.
  Seg v6;
  v6.ipv6 = true;
  GroCell g(V310());
  for (const Bytes& f : SegTrain(3, v6)) g.Receive(DriverSkb(f, IpSummed::kComplete));
  EXPECT_EQ(g.Flush().size(), 1u);
  EXPECT_EQ(g.stats().merged, 2u);
  EXPECT_EQ(g.stats().csum_bytes, 0u);
}

}  // namespace
}  // namespace offlab::testing
