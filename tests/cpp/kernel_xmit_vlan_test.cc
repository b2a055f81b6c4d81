// validate_xmit_skb for a frame carrying two VLAN tags in its bytes
// (vlan_features_check, include/linux/if_vlan.h at v6.18): a multi-tagged
// skb keeps only SG, HW_CSUM and FRAGLIST of the device's features, so a TSO
// device gets it segmented in software, with the checksums completed in
// software unless the device has HW_CSUM. Frames are the GSO test frames
// with the tags inserted; checksums by the plain-loop oracle.
#include <gtest/gtest.h>

#include "kernel_gso_test_frames.h"
#include "offlab/linux/xmit.h"

namespace offlab::kernel {
namespace {

using namespace gsotest;

constexpr size_t kTags = 8;

// A TCP GSO skb of `payload` bytes behind an 802.1ad and an 802.1Q tag.
SkBuff QinQ(size_t payload) {
  SkBuff s = GsoSkb(false, payload, 0x10);
  Bytes f = s.pkt.bytes();
  const uint8_t tags[kTags] = {0x88, 0xa8, 0x00, 0x01, 0x81, 0x00, 0x00, 0x02};
  f.insert(f.begin() + 12, tags, tags + kTags);
  s.pkt = Packet(f);
  s.pkt.l3_ofs = kL3 + kTags;
  s.pkt.l4_ofs = kTh + kTags;
  s.csum_start = kTh + kTags;
  return s;
}

bool TcpVerifies(const Bytes& f) {
  const size_t l3 = kL3 + kTags, th = kTh + kTags;
  return Fold(Sum(f, th, f.size(), Pseudo(f, l3, static_cast<uint32_t>(f.size() - th)))) == 0xffff;
}

TEST(KernelXmitVlan, TwoTagsLoseTsoAndTheProtocolChecksums) {
  const auto tso = Dev(netif::kSg | netif::kIpCsum | netif::kTso);
  auto segs = ValidateXmitSkb(QinQ(3000), tso);
  ASSERT_EQ(segs.size(), 3u);
  for (const SkBuff& s : segs) {
    EXPECT_FALSE(s.is_gso());
    EXPECT_NE(s.ip_summed, IpSummed::kPartial);
    EXPECT_TRUE(TcpVerifies(s.pkt.bytes()));
    EXPECT_EQ(Get16(s.pkt.bytes(), 12), 0x88a8);
  }
  // HW_CSUM survives the mask: the device still finishes the checksums.
  auto hw = ValidateXmitSkb(QinQ(3000), Dev(netif::kSg | netif::kHwCsum | netif::kTso));
  ASSERT_EQ(hw.size(), 3u);
  for (const SkBuff& s : hw) EXPECT_EQ(s.ip_summed, IpSummed::kPartial);
  // One tag only: the TSO device takes the skb whole.
  SkBuff one = GsoSkb(false, 3000, 0x10);
  EXPECT_EQ(ValidateXmitSkb(one, tso).size(), 1u);
}

}  // namespace
}  // namespace offlab::kernel
