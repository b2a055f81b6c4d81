// Edges of software GSO's network layer (models/src/linux/gso_segment.cc):
// IPv4 / IPv6 headers cut short (-EINVAL), UFO (not modelled), IPv6
// extension headers pulled before TCP (ipv6_gso_pull_exthdrs) and cut
// short (-EPROTONOSUPPORT), the bad-offload warning for a GSO skb that is neither PARTIAL nor
// UNNECESSARY, v6.18's SKB_GSO_TCP_FIXEDID keeping every segment's IPv4
// ID, and tcp_gso_segment's refusals. Frames: the GSO test frames (plain-loop checksums).
//
// Source: torvalds/linux 7d0a66e4bb90 (v6.18) net/ipv4/af_inet.c
// inet_gso_segment ("if (unlikely(!pskb_may_pull(skb, sizeof(*iph))))",
// "ihl < sizeof(*iph)", the ID loop "if (!fixedid) iph->id = htons(id++)"),
// net/ipv6/ip6_offload.c ipv6_gso_segment / ipv6_gso_pull_exthdrs,
// net/core/gso.c skb_needs_check / __skb_gso_segment ("if
// (unlikely(skb_needs_check(skb, tx_path))) ... skb_warn_bad_offload").
#include <gtest/gtest.h>

#include "kernel_gso_test_frames.h"
#include "offlab/linux/gso_segment.h"

namespace offlab::kernel {
namespace {

using namespace gsotest;

const uint64_t kNoTso = netif::kSg | netif::kIpCsum | netif::kIpv6Csum;

GsoResult Segment(const SkBuff& s, Counters* c, KernelVersion kv = kLabKernel) {
  return SkbGsoSegment(s, kNoTso, Dev(kNoTso), XmitOptions{}, kv, c);
}

// `s` with only its first n bytes.
SkBuff Cut(SkBuff s, size_t n) {
  Bytes b = s.pkt.bytes();
  b.resize(n);
  s.pkt = Packet(b);
  s.pkt.l3_ofs = kL3;
  return s;
}

void ExpectError(const SkBuff& s, int err, const char* counter) {
  Counters c;
  const GsoResult r = Segment(s, &c);
  EXPECT_EQ(r.err, err);
  EXPECT_TRUE(r.segs.empty());
  EXPECT_EQ(c.Get(counter), 1u) << counter;
  EXPECT_EQ(c.Get("gso_segments"), 0u);
}

TEST(KernelGsoSegmentEdges, ShortOrShrunkenIpHeadersAreInvalid) {
  // 19 bytes of IPv4 header; an IHL of 4 (16 bytes); 39 bytes of IPv6.
  ExpectError(Cut(GsoSkb(false, 3000), kL3 + 19), gso_err::kInval, "gso_error");
  SkBuff ihl4 = GsoSkb(false, 3000);
  ihl4.pkt.data()[kL3] = 0x44;
  ExpectError(ihl4, gso_err::kInval, "gso_error");
  ExpectError(Cut(GsoSkb(true, 3000), kL3 + 39), gso_err::kInval, "gso_error");
}

TEST(KernelGsoSegmentEdges, UfoIsNotModelled) {
  // SKB_GSO_UDP: inet_gso_segment / ipv6_gso_segment hand it to the UFO
  // fragmenter, which the model does not have.
  for (bool v6 : {false, true}) {
    SkBuff s = GsoSkb(v6, 3000);
    s.gso_type = gso::kUdp;
    s.pkt.data()[v6 ? kL3 + 6 : kL3 + 9] = 17;
    ExpectError(s, gso_err::kProtoNoSupport, "gso_not_modelled");
  }
}

// The IPv6 GSO skb with `ext` (whose first byte's next header must be 6)
// between the IPv6 and TCP headers.
SkBuff WithExt(uint8_t first, const Bytes& ext) {
  SkBuff s = GsoSkb(true, 3000);
  Bytes b = s.pkt.bytes();
  b[kL3 + 6] = first;
  b.insert(b.begin() + kL3 + 40, ext.begin(), ext.end());
  Put16(b, kL3 + 4, static_cast<uint32_t>(b.size() - kL3 - 40));
  s.pkt = Packet(b);
  s.pkt.l3_ofs = kL3;
  s.pkt.l4_ofs = static_cast<uint16_t>(kL3 + 40 + ext.size());
  s.csum_start = s.pkt.l4_ofs;
  return s;
}

TEST(KernelGsoSegmentEdges, Ipv6ExtensionHeadersArePulledBeforeTcp) {
  // Hop-by-hop (8 bytes, next DEST) + destination options (16 bytes, next
  // TCP): TCP at 14 + 40 + 24 = 78. Three segments of 1448, 1448, 104
  // bytes; payload_len = 24 + 20 + the segment's data; sequence numbers
  // advance by 1448.
  const Bytes ext = {60, 0, 0, 0, 0, 0, 0, 0, 6, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  Counters c;
  const GsoResult r = Segment(WithExt(0, ext), &c);
  ASSERT_EQ(r.err, 0);
  ASSERT_EQ(r.segs.size(), 3u);
  const size_t data[] = {1448, 1448, 104};
  for (size_t i = 0; i < 3; i++) {
    const Bytes& b = r.segs[i].pkt.bytes();
    ASSERT_EQ(b.size(), 78 + 20 + data[i]) << i;
    EXPECT_EQ(Get16(b, kL3 + 4), 24 + 20 + data[i]) << i;
    const uint32_t seq = (uint32_t{b[82]} << 24) | (b[83] << 16) | (b[84] << 8) | b[85];
    EXPECT_EQ(seq, 0x01020304u + 1448 * i) << i;
    EXPECT_EQ(b[78 + 20], PayloadByte(1448 * i)) << i;
  }
}

TEST(KernelGsoSegmentEdges, Ipv6ExtensionHeadersCutShortHaveNoHandler) {
  // ipv6_gso_pull_exthdrs: "if (unlikely(!pskb_may_pull(skb, 8))) break;"
  // and "if (unlikely(!pskb_may_pull(skb, len))) break;" stop on the
  // extension header, whose inet6_offloads entry (hbh_offload, or none)
  // has no gso_segment callback: segs stays ERR_PTR(-EPROTONOSUPPORT).
  // One byte of a hop-by-hop header; four of its eight; then one claiming
  // (255 + 1) * 8 = 2048 bytes in a packet with 128 after the IPv6 header.
  SkBuff hbh = GsoSkb(true, 3000);
  hbh.pkt.data()[kL3 + 6] = 0;
  hbh.pkt.data()[kL3 + 40] = 6, hbh.pkt.data()[kL3 + 41] = 0;
  ExpectError(Cut(hbh, kL3 + 41), gso_err::kProtoNoSupport, "gso_error");
  ExpectError(Cut(hbh, kL3 + 44), gso_err::kProtoNoSupport, "gso_error");
  SkBuff big = WithExt(0, {6, 255, 0, 0, 0, 0, 0, 0});
  ExpectError(Cut(big, kL3 + 40 + 128), gso_err::kProtoNoSupport, "gso_error");
}

TEST(KernelGsoSegmentEdges, TcpGsoSegmentRefusals) {
  // tcp4_gso_segment / tcp_gso_segment (net/ipv4/tcp_offload.c) leave
  // segs = ERR_PTR(-EINVAL) for: a gso_type without SKB_GSO_TCPV4, fewer
  // than 20 bytes of TCP header, a data offset below 5, a checksum start
  // that is not the transport header, a header longer than the packet,
  // and a payload of no more than one MSS.
  SkBuff v6type = GsoSkb(false, 3000);
  v6type.gso_type = gso::kTcpv6;
  ExpectError(v6type, gso_err::kInval, "gso_error");
  ExpectError(Cut(GsoSkb(false, 3000), kTh + 19), gso_err::kInval, "gso_error");
  SkBuff doff4 = GsoSkb(false, 3000);
  doff4.pkt.data()[kTh + 12] = 0x40;
  ExpectError(doff4, gso_err::kInval, "gso_error");
  SkBuff start = GsoSkb(false, 3000);
  start.csum_start = kTh - 4;
  ExpectError(start, gso_err::kInval, "gso_error");
  SkBuff doff15 = GsoSkb(false, 30);  // 34 + 60 > 84
  doff15.gso_size = 10;
  doff15.pkt.data()[kTh + 12] = 0xf0;
  ExpectError(doff15, gso_err::kInval, "gso_error");
  SkBuff one = GsoSkb(false, kMss);  // skb->len after the pull == mss
  ExpectError(one, gso_err::kInval, "gso_error");
}

TEST(KernelGsoSegmentEdges, AGsoSkbThatIsNeitherPartialNorUnnecessaryIsWarnedAbout) {
  // skb_needs_check on the tx path: ip_summed != CHECKSUM_PARTIAL (and the
  // model also spares UNNECESSARY) -> skb_warn_bad_offload after segmenting.
  for (IpSummed st : {IpSummed::kNone, IpSummed::kComplete}) {
    SkBuff s = GsoSkb(false, 3000);
    s.ip_summed = st;
    Counters c;
    const GsoResult r = Segment(s, &c);
    EXPECT_EQ(r.segs.size(), 3u);
    EXPECT_EQ(c.Get("skb_warn_bad_offload"), 1u);
  }
  for (IpSummed st : {IpSummed::kPartial, IpSummed::kUnnecessary}) {
    SkBuff s = GsoSkb(false, 3000);
    s.ip_summed = st;
    Counters c;
    Segment(s, &c);
    EXPECT_EQ(c.Get("skb_warn_bad_offload"), 0u);
  }
}

TEST(KernelGsoSegmentEdges, FixedIdKeepsTheIdOnEverySegmentAt618) {
  // v6.18: SKB_GSO_TCP_FIXEDID (bit 30) at the outer level: no "iph->id =
  // htons(id++)", every segment keeps 0x1234 (DF is set in these frames);
  // the header checksum is still recomputed for the new total length.
  SkBuff s = GsoSkb(false, 3000);
  s.gso_type |= gso::kTcpFixedid618;
  Counters c;
  const GsoResult r = Segment(s, &c);
  ASSERT_EQ(r.segs.size(), 3u);
  for (size_t i = 0; i < 3; i++) {
    const Bytes& b = r.segs[i].pkt.bytes();
    EXPECT_EQ(Get16(b, kL3 + 4), 0x1234) << i;
    EXPECT_EQ(Fold(Sum(b, kL3, kL3 + 20)), 0xffff) << i;
  }
  // Without it the IDs advance.
  const GsoResult plain = Segment(GsoSkb(false, 3000), &c);
  ASSERT_EQ(plain.segs.size(), 3u);
  EXPECT_EQ(Get16(plain.segs[2].pkt.bytes(), kL3 + 4), 0x1236);
}

}  // namespace
}  // namespace offlab::kernel
