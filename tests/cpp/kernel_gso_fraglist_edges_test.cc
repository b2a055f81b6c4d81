// Edges of skb_segment_list (models/src/linux/gso_segment_skb.cc
// SkbSegmentList), reached for a TCP SKB_GSO_FRAGLIST skb whose head holds
// one gso_size of payload: a member with IPv4 options (its transport
// header moves by the network header's length difference), a member
// shorter than its own headers or empty, and a head without a transport
// header. Frames: the GSO test frames (plain-loop checksums).
//
// Source: torvalds/linux 7d0a66e4bb90 (v6.18) net/core/skbuff.c
// skb_segment_list ("skb_set_transport_header(nskb, skb_transport_offset
// (skb) + (skb_network_header_len(nskb) - skb_network_header_len(skb)))"
// via __skb_push / skb_headers_offset_update), net/ipv4/tcp_offload.c
// __tcp4_gso_segment_list.
#include <gtest/gtest.h>

#include "kernel_gso_test_frames.h"
#include "offlab/linux/gso_segment.h"

namespace offlab::kernel {
namespace {

using namespace gsotest;

// The head packet and members (each from its network header on).
SkBuff FraglistSkb(const std::vector<Bytes>& p) {
  Bytes all = p[0];
  SkBuff s;
  for (size_t i = 1; i < p.size(); i++) {
    all.insert(all.end(), p[i].begin() + kEth, p[i].end());
    s.frag_list_lens.push_back(static_cast<uint32_t>(p[i].size() - kEth));
  }
  Put16(all, kL3 + 2, static_cast<uint16_t>(all.size() - kL3));
  s.pkt = Packet(all);
  s.pkt.l3_ofs = kL3;
  s.pkt.l4_ofs = kTh;
  s.ip_summed = IpSummed::kUnnecessary;
  s.gso_size = kMss;
  s.gso_segs = static_cast<uint16_t>(p.size());
  s.gso_type = gso::kTcpv4 | gso::kFraglist;
  return s;
}

std::vector<Bytes> Packets() {
  std::vector<Bytes> p;
  for (size_t i = 0; i < 3; i++) p.push_back(Expected(false, 3 * kMss, i, 0x10));
  return p;
}

GsoResult Segment(const SkBuff& s, Counters* c) {
  const uint64_t f = netif::kSg | netif::kIpCsum;
  return SkbGsoSegment(s, f, Dev(f), XmitOptions{}, kLabKernel, c);
}

TEST(KernelGsoFraglistEdges, AMemberWithIpv4OptionsHasItsTransportHeaderMoved) {
  // Member 1 gets 4 bytes of options (three NOPs and an EOL, IHL 6): its
  // segment's transport header is at 14 + 24 = 38, the others' at 34.
  std::vector<Bytes> p = Packets();
  const Bytes opts = {0x01, 0x01, 0x01, 0x00};
  p[1].insert(p[1].begin() + kTh, opts.begin(), opts.end());
  p[1][kL3] = 0x46;
  Put16(p[1], kL3 + 2, static_cast<uint16_t>(p[1].size() - kL3));
  Counters c;
  const GsoResult r = Segment(FraglistSkb(p), &c);
  ASSERT_EQ(r.err, 0);
  ASSERT_EQ(r.segs.size(), 3u);
  EXPECT_EQ(r.segs[0].pkt.l4_ofs, 34);
  EXPECT_EQ(r.segs[1].pkt.l4_ofs, 38);
  EXPECT_EQ(r.segs[2].pkt.l4_ofs, 34);
  EXPECT_EQ(r.segs[1].len(), p[1].size());
  // The member's TCP header (ports 40000 -> 5201) sits at 38.
  EXPECT_EQ(Get16(r.segs[1].pkt.bytes(), 38), 0x9c40);
}

TEST(KernelGsoFraglistEdges, MembersThatAreNoPacketAreInvalid) {
  // A member of 30 bytes (an IPv4 header and 10 bytes of TCP), and an
  // empty one.
  std::vector<Bytes> p = Packets();
  p[1].resize(kEth + 30);
  Counters c;
  EXPECT_EQ(Segment(FraglistSkb(p), &c).err, gso_err::kInval);
  EXPECT_EQ(c.Get("gso_error"), 1u);
  SkBuff empty = FraglistSkb(Packets());
  empty.frag_list_lens.insert(empty.frag_list_lens.begin(), 0);
  Counters e;
  EXPECT_EQ(Segment(empty, &e).err, gso_err::kInval);
}

TEST(KernelGsoFraglistEdges, AHeadWithoutATransportHeaderIsInvalid) {
  SkBuff s = FraglistSkb(Packets());
  s.pkt.l4_ofs = kNoOffset;
  Counters c;
  EXPECT_EQ(Segment(s, &c).err, gso_err::kInval);
}

}  // namespace
}  // namespace offlab::kernel
