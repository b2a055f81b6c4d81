// Edges of the GRO core (models/src/linux/gro.cc): netif_elide_gro for an
// XDP program, frames that are not Ethernet/IP at the MAC header the cell
// expects, a hash that differs, the gro_max_size bound of skb_gro_receive,
// MAX_SKB_FRAGS for page-backed heads, and already-aggregated GSO skbs
// that are DODGY or not TCP. Frames: kernel_gro_test_frames.h.
//
// Source: torvalds/linux v6.18 net/core/gro.c dev_gro_receive
// ("NAPI_GRO_CB(skb)->count = skb_shinfo(skb)->gso_segs; /* Only support
// TCP and non DODGY users. */ ... flush = 1"), gro_list_prepare (hash and
// compare_ether_header), skb_gro_receive ("if (unlikely(p->len + len >=
// gro_max_size || NAPI_GRO_CB(skb)->flush)) return -E2BIG"; "if (nr_frags
// + 1 + skbinfo->nr_frags > MAX_SKB_FRAGS) goto merge"),
// include/linux/netdevice.h netif_elide_gro, include/linux/skbuff.h
// MAX_SKB_FRAGS 17.
#include <gtest/gtest.h>

#include "kernel_gro_test_frames.h"
#include "offlab/linux/gro.h"

namespace offlab::testing {
namespace {

using kernel::GroCell;
using kernel::GroConfig;
using kernel::GroResult;
using kernel::IpSummed;
using kernel::SkBuff;

TEST(KernelGroCoreEdges, ResultNames) {
  EXPECT_STREQ(kernel::GroResultName(GroResult::kMerged), "MERGED");
  EXPECT_STREQ(kernel::GroResultName(GroResult::kMergedFree), "MERGED_FREE");
  EXPECT_STREQ(kernel::GroResultName(GroResult::kHeld), "HELD");
  EXPECT_STREQ(kernel::GroResultName(GroResult::kNormal), "NORMAL");
  EXPECT_STREQ(kernel::GroResultName(GroResult::kConsumed), "CONSUMED");
  EXPECT_STREQ(kernel::GroResultName(static_cast<GroResult>(9)), "?");
}

TEST(KernelGroCoreEdges, AnXdpProgramElidesGro) {
  GroConfig c;
  c.xdp_prog = true;
  GroCell g(c);
  for (const Bytes& f : SegTrain(2)) EXPECT_EQ(g.Receive(DriverSkb(f)), GroResult::kNormal);
  EXPECT_EQ(g.last_reason(), "gro_off");
  EXPECT_EQ(g.stats().merged, 0u);
}

TEST(KernelGroCoreEdges, FramesNotEthernetIpAtFourteenGoUp) {
  GroCell g;
  // A network header recorded at 18 (a VLAN tag left in the frame).
  SkBuff tagged = DriverSkb(SegTrain(1)[0]);
  tagged.pkt.l3_ofs = 18;
  EXPECT_EQ(g.Receive(std::move(tagged)), GroResult::kNormal);
  EXPECT_EQ(g.last_reason(), "not_ethernet_ip");
  // Shorter than an Ethernet header.
  SkBuff tiny;
  tiny.pkt = Packet(Bytes(10, 0));
  EXPECT_EQ(g.Receive(std::move(tiny)), GroResult::kNormal);
  EXPECT_EQ(g.last_reason(), "not_ethernet_ip");
}

TEST(KernelGroCoreEdges, ADifferentHashIsAnotherFlow) {
  // Hashes 1 and 9 share bucket 1 (hash & 7) but never merge.
  const auto segs = SegTrain(2);
  GroCell g;
  EXPECT_EQ(g.Receive(DriverSkb(segs[0]), 1), GroResult::kHeld);
  EXPECT_EQ(g.Receive(DriverSkb(segs[1]), 9), GroResult::kHeld);
  EXPECT_EQ(g.held(), 2u);
  EXPECT_EQ(g.Flush().size(), 2u);
}

TEST(KernelGroCoreEdges, GroMaxSizeBoundsTheMergedLength) {
  // p->len (1040 from the IPv4 header) + the new segment's 1000 payload
  // bytes must stay below gro_max_size: 2041 lets the second in, 2040 not.
  const auto segs = SegTrain(2);
  for (uint32_t max : {2041u, 2040u}) {
    GroConfig c;
    c.gro_max_size = max;
    GroCell g(c);
    g.Receive(DriverSkb(segs[0]));
    g.Receive(DriverSkb(segs[1]));
    EXPECT_EQ(g.stats().merged, max == 2041u ? 1u : 0u) << max;
    EXPECT_EQ(g.Flush().size(), max == 2041u ? 1u : 2u) << max;
  }
}

TEST(KernelGroCoreEdges, PageBackedHeadsTakeAtMostSeventeenFrags) {
  // head_frag: each merged linear segment becomes one page frag of p, up to
  // MAX_SKB_FRAGS (17); the 19th segment goes on the frag_list, and the
  // 20th becomes a frag of that last member.
  Seg s;
  s.payload_len = 100;
  GroConfig c;
  c.head_frag = true;
  GroCell g(c);
  for (const Bytes& f : SegTrain(20, s)) g.Receive(DriverSkb(f));
  const auto out = g.Flush();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].gso_segs, 20);
  EXPECT_EQ(out[0].nr_frags, 17);
  ASSERT_EQ(out[0].frag_list_lens.size(), 1u);
  EXPECT_EQ(out[0].frag_list_lens[0], 200u);
  EXPECT_EQ(out[0].len(), 54u + 20 * 100);
}

TEST(KernelGroCoreEdges, DodgyOrNonTcpGsoSkbsAreNotHeld) {
  // An already-aggregated TCP skb from an untrusted source (DODGY) or a UDP
  // GSO skb: flush, handed up as it is.
  const auto segs = SegTrain(2);
  for (uint32_t type : {kernel::gso::kTcpv4 | kernel::gso::kDodgy, kernel::gso::kUdpL4}) {
    SkBuff s = DriverSkb(segs[0], IpSummed::kUnnecessary);
    s.gso_size = 500, s.gso_segs = 2, s.gso_type = type;
    GroCell g;
    EXPECT_EQ(g.Receive(std::move(s)), GroResult::kNormal) << type;
  }
  // A trusted TCP GSO skb is held, counting as its gso_segs.
  SkBuff t = DriverSkb(segs[0], IpSummed::kUnnecessary);
  t.gso_size = 500, t.gso_segs = 2, t.gso_type = kernel::gso::kTcpv4;
  GroCell g;
  EXPECT_EQ(g.Receive(std::move(t)), GroResult::kHeld);
}

}  // namespace
}  // namespace offlab::testing
