// skb_segment_list (net/core/skbuff.c, torvalds/linux v6.18) splits a
// frag_list skb at its members whatever the head's own part holds: it pushes
// back to the MAC header, detaches frag_list, gives each member the head's
// MAC header (skb_push + __copy_skb_header) and shortens the head by the
// members' lengths ("skb->len = skb->len - delta_len"); nothing there looks
// at the head's payload. A head whose own part is its Ethernet, IPv4 and
// TCP headers and nothing more is therefore the first segment, 54 bytes,
// and every member a whole packet again. Frames: kernel_gso_test_frames.h.
#include <gtest/gtest.h>

#include <vector>

#include "kernel_gso_test_frames.h"
#include "offlab/linux/gso_segment_internal.h"

namespace offlab::kernel {
namespace {

using namespace gsotest;

TEST(KernelGsoFragListHead, AHeadOfHeadersAloneIsTheFirstSegment) {
  // The head: headers only; two members of one MSS each (from the IP header).
  const std::vector<Bytes> p = {
      TcpFrame(false, 0, 0, 0x1234, 0x01020304, 0x10, true),
      TcpFrame(false, 0, kMss, 0x1235, 0x01020304, 0x10, true),
      TcpFrame(false, kMss, kMss, 0x1236, 0x01020304 + kMss, 0x10, true),
  };
  Bytes all = p[0];
  SkBuff head;
  for (size_t i = 1; i < p.size(); i++) {
    all.insert(all.end(), p[i].begin() + kEth, p[i].end());
    head.frag_list_lens.push_back(static_cast<uint32_t>(p[i].size() - kEth));
  }
  head.pkt = Packet(all);
  head.pkt.l3_ofs = kL3;
  head.pkt.l4_ofs = kTh;
  head.ip_summed = IpSummed::kUnnecessary;
  head.gso_size = kMss;
  head.gso_segs = 3;
  head.gso_type = gso::kTcpv4 | gso::kFraglist;

  const DeviceFeatures dev = Dev(netif::kSg | netif::kIpCsum);
  const XmitOptions opt;
  gso_internal::Ctx ctx{dev, opt, kLabKernel, nullptr};
  const gso_internal::SegResult r = gso_internal::SkbSegmentList(ctx, head, dev.features);
  ASSERT_EQ(r.err, 0);
  ASSERT_EQ(r.segs.size(), 3u);
  EXPECT_EQ(r.segs[0].skb.len(), kHdr);
  const Bytes first = r.segs[0].skb.pkt.bytes();
  EXPECT_EQ(Bytes(first.begin(), first.begin() + kL3), Bytes(p[0].begin(), p[0].begin() + kL3));
  for (size_t i = 1; i < 3; i++) EXPECT_EQ(r.segs[i].skb.pkt.bytes(), p[i]) << i;
}

}  // namespace
}  // namespace offlab::kernel
