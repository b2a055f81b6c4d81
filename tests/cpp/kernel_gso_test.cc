// Software GSO through validate_xmit_skb: TCP segmentation (IPv4, IPv6),
// frag_list skbs (GRO'd by a copying driver) on devices with and without
// FRAGLIST / SG / TSO, SKB_GSO_FRAGLIST, and the kernel-version variants.
// Expected segments are built here from scratch, their checksums summed by
// the plain RFC 1071 loop below; nothing is taken from the code under test.
#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "kernel_gso_test_frames.h"
#include "offlab/linux/device_tx.h"
#include "offlab/linux/device_tx_ibmveth.h"
#include "offlab/linux/xmit.h"
#include "offlab/net/work.h"

namespace offlab::kernel {
namespace {

using namespace gsotest;  // TcpFrame, GsoSkb, Expected, Dev, kMss, ...

TEST(KernelGsoTcp, TsoOnDeviceWithoutTsoIsSegmentedLeavingChecksumsToTheDevice) {
  work::Take();
  Counters c;
  const auto dev = Dev(netif::kSg | netif::kIpCsum);
  auto segs = ValidateXmitSkb(GsoSkb(false, 3000), dev, kLabKernel, &c);
  ASSERT_EQ(segs.size(), 3u);
  const Work w = work::Take();
  EXPECT_EQ(w.sw_segments, 3u);
  EXPECT_EQ(w.csum_bytes, 3u * 20);  // ip_send_check only; TCP left to the device
  EXPECT_EQ(c.Get("gso_segments"), 3u);
  for (size_t i = 0; i < 3; i++) {
    const Bytes want = Expected(false, 3000, i);
    Bytes got = segs[i].pkt.bytes();
    EXPECT_EQ(segs[i].ip_summed, IpSummed::kPartial);
    EXPECT_EQ(segs[i].csum_start, kTh);
    EXPECT_EQ(segs[i].csum_offset, 16);
    EXPECT_FALSE(segs[i].is_gso());
    // The TCP field holds this segment's pseudo-header sum.
    EXPECT_EQ(Get16(got, kTh + 16),
              Fold(Pseudo(want, kL3, static_cast<uint32_t>(want.size() - kTh))));
    Put16(got, kTh + 16, Get16(want, kTh + 16));
    EXPECT_EQ(got, want) << "segment " << i;
    // What the NIC then puts on the wire.
    auto wire = DeviceTransmit(segs[i], dev);
    ASSERT_EQ(wire.size(), 1u);
    EXPECT_EQ(wire[0], want) << "segment " << i;
  }
}

TEST(KernelGsoTcp, DeviceWithoutChecksumGetsSoftwareChecksummedSegments) {
  work::Take();
  auto segs = ValidateXmitSkb(GsoSkb(false, 3000), Dev(netif::kSg | netif::kTso));
  ASSERT_EQ(segs.size(), 3u);
  // harmonize_features drops TSO with the checksum: every payload byte is
  // summed once while segmenting, plus each TCP and IPv4 header.
  EXPECT_EQ(work::Take().csum_bytes, 3000u + 3 * 20 + 3 * 20);
  for (size_t i = 0; i < 3; i++) {
    EXPECT_EQ(segs[i].ip_summed, IpSummed::kNone);
    EXPECT_EQ(segs[i].pkt.bytes(), Expected(false, 3000, i)) << "segment " << i;
  }
}

TEST(KernelGsoTcp, Ipv6SegmentsCarryTheirPayloadLength) {
  auto segs = ValidateXmitSkb(GsoSkb(true, 3000), Dev(netif::kSg));
  ASSERT_EQ(segs.size(), 3u);
  for (size_t i = 0; i < 3; i++) EXPECT_EQ(segs[i].pkt.bytes(), Expected(true, 3000, i));
  // With IPV6_CSUM and TSO6 the device takes the skb whole and segments it.
  const auto tso6 = Dev(netif::kSg | netif::kIpv6Csum | netif::kTso6);
  auto whole = ValidateXmitSkb(GsoSkb(true, 3000), tso6);
  ASSERT_EQ(whole.size(), 1u);
  auto wire = DeviceTransmit(whole[0], tso6);
  ASSERT_EQ(wire.size(), 3u);
  for (size_t i = 0; i < 3; i++) EXPECT_EQ(wire[i], Expected(true, 3000, i));
}

// The IPv6 frame with an 8-byte destination options header (next header
// TCP, PadN of 6) between the IPv6 and TCP headers. The TCP checksum does
// not cover extension headers (RFC 8200 section 8.1), so it stays right.
Bytes WithDstOpts(Bytes f) {
  const Bytes opts = {6, 0, 1, 4, 0, 0, 0, 0};
  f.insert(f.begin() + kL3 + 40, opts.begin(), opts.end());
  f[kL3 + 6] = 60;
  Put16(f, kL3 + 4, Get16(f, kL3 + 4) + 8);
  return f;
}

TEST(KernelGsoTcp, Ipv6SegmentsKeepAnExtensionHeader) {
  // ipv6_gso_pull_exthdrs (net/ipv6/ip6_offload.c) steps over the options
  // header by its length ((0 + 1) * 8 bytes) to the TCP header; each
  // segment carries it.
  SkBuff s = GsoSkb(true, 3000);
  s.pkt = Packet(WithDstOpts(s.pkt.bytes()));
  s.pkt.l3_ofs = kL3;
  s.pkt.l4_ofs = kL3 + 48;
  s.csum_start = kL3 + 48;
  auto segs = ValidateXmitSkb(s, Dev(netif::kSg));
  ASSERT_EQ(segs.size(), 3u);
  for (size_t i = 0; i < 3; i++)
    EXPECT_EQ(segs[i].pkt.bytes(), WithDstOpts(Expected(true, 3000, i))) << i;
}

TEST(KernelGsoTcp, DodgySkbOnTsoDeviceOnlyGetsItsSegmentCountChecked) {
  // A TAP skb (SKB_GSO_DODGY) is software-segmented on no device with
  // GSO_ROBUST, but tcp_gso_segment hands it back whole when the device
  // does TSO, gso_segs recomputed.
  SkBuff s = GsoSkb(false, 3000);
  s.gso_type |= gso::kDodgy;
  s.gso_segs = 1;
  Counters c;
  auto out = ValidateXmitSkb(s, Dev(netif::kSg | netif::kIpCsum | netif::kTso), kLabKernel, &c);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].gso_segs, 3);
  EXPECT_EQ(c.Get("gso_unsegmented"), 1u);
}

// A TCP skb GRO'd from a driver that copies frames into linear skbs: the
// head carries one MSS, every later frame sits on frag_list (payload only).
SkBuff GroFragListSkb(std::vector<uint32_t> members) {
  size_t payload = kMss;
  for (uint32_t m : members) payload += m;
  SkBuff s = GsoSkb(false, payload, 0x10);
  s.frag_list_lens = std::move(members);
  return s;
}

TEST(KernelGsoFragList, MangledDodgyGsoSizeIsCopiedWithoutSgFrom53) {
  // 3dcbdb134f32 ("net: gso: Fix skb_segment splat when splitting gso_size
  // mangled skb having linear-headed frag_list", v5.3): a DODGY skb whose
  // gso_size no longer matches its linear members is copied without SG.
  // 5.2 reaches the linear, non-head_frag member through the frag path and
  // hits the BUG_ON (dropped here).
  auto mangled = [] {
    SkBuff s = GroFragListSkb({kMss, kMss});
    s.gso_type |= gso::kDodgy;
    s.gso_size = 500;
    s.gso_segs = static_cast<uint16_t>((3 * kMss + 499) / 500);
    return s;
  };
  Counters old;
  EXPECT_TRUE(
      ValidateXmitSkb(mangled(), Dev(netif::kSg | netif::kIpCsum), KernelVersion{5, 2}, &old)
          .empty());
  EXPECT_EQ(old.Get("skb_segment_bug"), 1u);
  Counters now;
  auto segs =
      ValidateXmitSkb(mangled(), Dev(netif::kSg | netif::kIpCsum), KernelVersion{5, 3}, &now);
  EXPECT_EQ(segs.size(), (3 * kMss + 499) / 500);
  EXPECT_EQ(now.Get("skb_segment_bug"), 0u);
}

TEST(KernelGsoFragList, SegmentedAtMssWithoutFraglistAndPassedWholeWithIt) {
  const uint64_t tso = netif::kSg | netif::kIpCsum | netif::kTso;
  for (uint64_t f : {tso, netif::kSg | netif::kIpCsum}) {
    Counters c;
    auto segs = ValidateXmitSkb(GroFragListSkb({kMss, kMss, 600}), Dev(f), kLabKernel, &c);
    ASSERT_EQ(segs.size(), 4u);
    for (size_t i = 0; i < 4; i++) {
      Bytes got = DeviceTransmit(segs[i], Dev(f))[0];
      EXPECT_EQ(got, Expected(false, 3 * kMss + 600, i, 0x10)) << i;
    }
    // The head's MSS is copied; each member becomes a segment as it is
    // (cloned, headers copied in front).
    EXPECT_EQ(c.Get("gso_copy_bytes"), 4 * kHdr + kMss);
  }
  auto whole = ValidateXmitSkb(GroFragListSkb({kMss, kMss, 600}), Dev(tso | netif::kFraglist));
  ASSERT_EQ(whole.size(), 1u);
  EXPECT_TRUE(whole[0].has_frag_list());
}

TEST(KernelGsoFragList, DeviceWithoutSgClonesMembersSince61AndCopiedBefore) {
  Counters now, old;
  auto a = ValidateXmitSkb(GroFragListSkb({kMss, 600}), Dev(netif::kIpCsum), kLabKernel, &now);
  auto b =
      ValidateXmitSkb(GroFragListSkb({kMss, 600}), Dev(netif::kIpCsum), KernelVersion{4, 11}, &old);
  ASSERT_EQ(a.size(), 3u);
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(now.Get("gso_copy_bytes"), 3 * kHdr + kMss);
  EXPECT_EQ(old.Get("gso_copy_bytes"), 3 * kHdr + 2 * kMss + 600);
  for (size_t i = 0; i < 3; i++) {
    const Bytes want = Expected(false, 2 * kMss + 600, i, 0x10);
    EXPECT_EQ(a[i].ip_summed, IpSummed::kPartial);
    EXPECT_EQ(DeviceTransmit(a[i], Dev(netif::kIpCsum))[0], want);
    // v4.11 checksummed every copy in software although the device could.
    EXPECT_EQ(b[i].ip_summed, IpSummed::kNone);
    EXPECT_EQ(b[i].pkt.bytes(), want);
  }
  EXPECT_EQ(old.Get("gso_csum_bytes"), 2 * kMss + 600);
}

TEST(KernelGsoFragList, MembersNotOneMssLongCrashSgDevicesButCopyWithoutSg) {
  // skb_segment clones a linear member as a whole segment; a member shorter
  // than the segment hits BUG_ON (a crash; dropped here). Without SG (v6.1+)
  // the bytes are copied across the member boundary instead.
  Counters c;
  EXPECT_TRUE(ValidateXmitSkb(GroFragListSkb({1000, kMss}), Dev(netif::kSg | netif::kIpCsum),
                              kLabKernel, &c)
                  .empty());
  EXPECT_EQ(c.Get("skb_segment_bug"), 1u);
  EXPECT_EQ(c.Get("tx_dropped"), 1u);
  auto segs = ValidateXmitSkb(GroFragListSkb({1000, kMss}), Dev(netif::kIpCsum));
  ASSERT_EQ(segs.size(), 3u);
  for (size_t i = 0; i < 3; i++)
    EXPECT_EQ(DeviceTransmit(segs[i], Dev(netif::kIpCsum))[0],
              Expected(false, 2 * kMss + 1000, i, 0x10));
}

TEST(KernelGsoFragList, ASegmentReachingALinearMemberThroughFragsCrashes) {
  // A head of 1000 payload bytes and one member of an MSS: the first segment
  // takes its last 448 bytes from the member as page frags, and skb_segment
  // meets a linear member without head_frag there (v6.18 skbuff.c
  // BUG_ON(!list_skb->head_frag); v4.11 BUG_ON(skb_headlen(list_skb))): a
  // crash, dropped here. The member's own frags would be copied without SG.
  auto fraglist = [] {
    SkBuff s = GsoSkb(false, 1000 + kMss, 0x10);
    s.frag_list_lens = {kMss};
    return s;
  };
  for (KernelVersion kv : {kLabKernel, KernelVersion{4, 11}}) {
    Counters c;
    EXPECT_TRUE(ValidateXmitSkb(fraglist(), Dev(netif::kSg | netif::kIpCsum), kv, &c).empty())
        << kv.ToString();
    EXPECT_EQ(c.Get("skb_segment_bug"), 1u) << kv.ToString();
  }
  EXPECT_EQ(ValidateXmitSkb(fraglist(), Dev(netif::kIpCsum)).size(), 2u);
}

TEST(KernelGsoFragList, IbmvethTrunkSegmentsLinearizesOrDropsByKernel) {
  // The seed setup: GRO'd frag_list skbs bridged to an ibmveth trunk with
  // largesend. v4.11 (no FRAGLIST): software GSO at MSS; v4.19 (FRAGLIST on
  // active trunks): whole to the driver, which linearizes it and sends one
  // largesend; v6.18: whole to the driver, whose buffer copy drops it.
  IbmvethConfig cfg;
  const KernelVersion v411{4, 11}, v419{4, 19};
  auto segs = ValidateXmitSkb(GroFragListSkb({kMss, kMss}), IbmvethFeatures(cfg, v411), v411);
  ASSERT_EQ(segs.size(), 3u);
  for (SkBuff& s : segs) {
    EXPECT_EQ(s.len(), kHdr + kMss);
    IbmvethTx tx = IbmvethStartXmit(s, cfg, v411);
    EXPECT_TRUE(tx.sent);
    EXPECT_FALSE(tx.largesend);
    EXPECT_EQ(Get16(tx.skb.pkt.bytes(), kTh + 16), 0);  // NO_CSUM: field zeroed
  }
  auto whole = ValidateXmitSkb(GroFragListSkb({kMss, kMss}), IbmvethFeatures(cfg, v419), v419);
  ASSERT_EQ(whole.size(), 1u);
  IbmvethTx tx = IbmvethStartXmit(whole[0], cfg, v419);
  EXPECT_TRUE(tx.sent);
  EXPECT_TRUE(tx.largesend);
  EXPECT_EQ(tx.mss, kMss);
  EXPECT_EQ(tx.linearized_bytes, 2 * kMss);
  EXPECT_FALSE(tx.skb.has_frag_list());
  auto now = ValidateXmitSkb(GroFragListSkb({kMss, kMss}), IbmvethFeatures(cfg, kLabKernel));
  ASSERT_EQ(now.size(), 1u);
  Counters c;
  EXPECT_FALSE(IbmvethStartXmit(now[0], cfg, kLabKernel, &c).sent);
  EXPECT_EQ(c.Get("ibmveth_tx_dropped"), 1u);
}

TEST(KernelGsoFragList, DeviceWithoutSgClonesMembersFrom61Exactly) {
  // The clone test before hsize is clamped: absent in v5.10, present in
  // v6.1.0; 6.0 still copies every member (and checksums the copies).
  Counters v60, v61;
  auto a =
      ValidateXmitSkb(GroFragListSkb({kMss, 600}), Dev(netif::kIpCsum), KernelVersion{6, 0}, &v60);
  auto b =
      ValidateXmitSkb(GroFragListSkb({kMss, 600}), Dev(netif::kIpCsum), KernelVersion{6, 1}, &v61);
  ASSERT_EQ(a.size(), 3u);
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(v60.Get("gso_copy_bytes"), 3 * kHdr + 2 * kMss + 600);
  EXPECT_EQ(v61.Get("gso_copy_bytes"), 3 * kHdr + kMss);
}

TEST(KernelGsoFragList, IbmvethLongTermBufferDropsFraglistFrom61) {
  // The premapped long-term buffer copy (absent in v4.19, present in
  // v6.1.0): 6.0 still linearizes the frag_list, 6.1 drops it.
  IbmvethConfig cfg;
  const KernelVersion v60{6, 0}, v61{6, 1};
  auto a = ValidateXmitSkb(GroFragListSkb({kMss, kMss}), IbmvethFeatures(cfg, v60), v60);
  ASSERT_EQ(a.size(), 1u);
  IbmvethTx tx = IbmvethStartXmit(a[0], cfg, v60);
  EXPECT_TRUE(tx.sent);
  EXPECT_EQ(tx.linearized_bytes, 2 * kMss);
  auto b = ValidateXmitSkb(GroFragListSkb({kMss, kMss}), IbmvethFeatures(cfg, v61), v61);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_FALSE(IbmvethStartXmit(b[0], cfg, v61).sent);
}

TEST(KernelGsoFragList, GsoFraglistSkbIsSplitBackIntoItsPackets) {
  // fraglist GRO keeps each packet's own IP and TCP headers on frag_list.
  std::vector<Bytes> orig;
  for (size_t i = 0; i < 3; i++) orig.push_back(Expected(false, 3 * kMss, i, 0x10));
  Bytes all = orig[0];
  SkBuff s;
  for (size_t i = 1; i < 3; i++) {
    all.insert(all.end(), orig[i].begin() + kEth, orig[i].end());
    s.frag_list_lens.push_back(static_cast<uint32_t>(orig[i].size() - kEth));
  }
  Put16(all, kL3 + 2, static_cast<uint16_t>(all.size() - kL3));  // inet_gro_complete's tot_len
  s.pkt = Packet(all);
  s.pkt.l3_ofs = kL3;
  s.pkt.l4_ofs = kTh;
  s.ip_summed = IpSummed::kUnnecessary;
  s.gso_size = kMss;
  s.gso_segs = 3;
  s.gso_type = gso::kTcpv4 | gso::kFraglist;
  Counters c;
  auto segs = ValidateXmitSkb(s, Dev(netif::kSg | netif::kIpCsum | netif::kTso), kLabKernel, &c);
  ASSERT_EQ(segs.size(), 3u);
  EXPECT_EQ(c.Get("gso_fraglist"), 1u);
  for (size_t i = 0; i < 3; i++) EXPECT_EQ(segs[i].pkt.bytes(), orig[i]) << i;
}

}  // namespace
}  // namespace offlab::kernel
