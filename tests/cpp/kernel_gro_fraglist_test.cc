// Fraglist GRO (NETIF_F_GRO_FRAGLIST, tcp4_check_fraglist_gro v6.11+):
// forwarded TCP segments are chained on frag_list, not merged, and
// SKB_GSO_FRAGLIST segmentation on a device without GSO_FRAGLIST gives the
// original packets back, byte for byte (net/core/skbuff.c skb_segment_list:
// each member's own headers are pushed back). The frames are the GRO test
// frames (plain-loop checksums); the expected output is the input.
#include <gtest/gtest.h>

#include <tuple>

#include "kernel_gro_test_frames.h"
#include "offlab/linux/gro.h"
#include "offlab/linux/skb_csum.h"
#include "offlab/linux/xmit.h"

namespace offlab::testing {
namespace {

using kernel::GroCell;
using kernel::GroConfig;
using kernel::IpSummed;

std::vector<Bytes> Segments(int n, bool v6, size_t payload = 1000) {
  Seg s;
  s.ipv6 = v6;
  s.payload_len = payload;
  return SegTrain(n, s, 5);
}

// A forwarding device with rx-gro-list (no local socket for the flow).
GroConfig FraglistCfg() {
  GroConfig cfg;
  cfg.features = kernel::netif::kGro | kernel::netif::kGroFraglist;
  cfg.tcp_local_socket = false;
  return cfg;
}

// What GRO hands up for `frames` (all CHECKSUM_UNNECESSARY).
std::vector<kernel::SkBuff> Gro(const std::vector<Bytes>& frames) {
  GroCell g(FraglistCfg());
  for (const Bytes& f : frames) g.Receive(DriverSkb(f, IpSummed::kUnnecessary));
  return g.Flush();
}

TEST(KernelGroFraglist, ForwardedTcpIsChainedAndSegmentsBackToTheOriginals) {
  for (bool v6 : {false, true}) {
    const auto frames = Segments(3, v6);
    auto out = Gro(frames);
    ASSERT_EQ(out.size(), 1u);
    const kernel::SkBuff& m = out[0];
    EXPECT_TRUE(m.gso_type & kernel::gso::kFraglist);
    EXPECT_EQ(m.gso_segs, 3);
    EXPECT_EQ(m.frag_list_lens.size(), 2u);
    kernel::DeviceFeatures dev{kernel::netif::kSg | kernel::netif::kIpCsum |
                                   kernel::netif::kIpv6Csum | kernel::netif::kTso |
                                   kernel::netif::kTso6,
                               0, 65536, 65535, 1500};
    auto segs = kernel::ValidateXmitSkb(m, dev);
    ASSERT_EQ(segs.size(), 3u) << v6;
    for (size_t i = 0; i < 3; i++) EXPECT_EQ(segs[i].pkt.bytes(), frames[i]) << v6 << " " << i;
  }
}

// The chain ends at 64 packets (tcp_gro_receive: NAPI_GRO_CB(p)->count >=
// 64) or near 64 KB. The kernel's limit counts each member's payload only:
// with 1448-byte payloads behind 40 header bytes p->len = 1488 + 1448 k and
// a member joins while 1488 + 1448 k + 1488 < 65536, k <= 43: 45 packets.
// The model counts the members' headers too (gro.cc, a documented
// deviation), so it may stop earlier, never later, and every packet comes
// out again, in order, through segmentation.
TEST(KernelGroFraglist, ChainEndsAt64PacketsOrNear64Kb) {
  const kernel::DeviceFeatures dev{kernel::netif::kSg | kernel::netif::kIpCsum, 0, 65536, 65535,
                                   1500};
  for (auto [payload, n, low, high] :
       {std::tuple<size_t, int, int, int>{1448, 60, 43, 45}, {100, 80, 64, 64}}) {
    const auto frames = Segments(n, false, payload);
    const auto out = Gro(frames);  // in the order handed up
    ASSERT_EQ(out.size(), 2u) << payload;
    EXPECT_GE(out[0].gso_segs, low) << payload;
    EXPECT_LE(out[0].gso_segs, high) << payload;
    EXPECT_EQ(out[0].gso_segs + out[1].gso_segs, n) << payload;
    std::vector<Bytes> back;
    for (const auto& m : out)
      for (const auto& s : kernel::ValidateXmitSkb(m, dev)) back.push_back(s.pkt.bytes());
    EXPECT_EQ(back, frames) << payload;
  }
}

// When the head's own data is not one gso_size, or the skb is DODGY (the
// 6.18.19 stable fix, in the lab kernel), tcp4_gso_segment does not split the
// list but segments the skb as a byte stream with its checksum redone: the
// members' payloads follow the head's, so the same packets come out.
TEST(KernelGroFraglist, DodgyFraglistIsSegmentedAsAByteStream) {
  for (bool v6 : {false, true}) {
    const auto frames = Segments(3, v6);
    auto out = Gro(frames);
    ASSERT_EQ(out.size(), 1u);
    kernel::SkBuff m = out[0];
    m.gso_type |= kernel::gso::kDodgy;
    const kernel::DeviceFeatures dev{
        kernel::netif::kSg | kernel::netif::kIpCsum | kernel::netif::kIpv6Csum, 0, 65536, 65535,
        1500};
    kernel::XmitOptions opt;
    opt.frag_list_head_frag = true;  // page-backed members, as a NAPI driver builds them
    auto segs = kernel::ValidateXmitSkb(m, dev, opt, kernel::kLabKernel, nullptr);
    ASSERT_EQ(segs.size(), 3u) << v6;
    for (size_t i = 0; i < 3; i++) {
      kernel::SkBuff s = segs[i];
      ASSERT_TRUE(kernel::SkbCompletePartial(s));
      EXPECT_EQ(s.pkt.bytes(), frames[i]) << v6 << " " << i;
    }
  }
}

}  // namespace
}  // namespace offlab::testing
