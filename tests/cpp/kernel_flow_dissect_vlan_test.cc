// The basic flow dissection through VLAN tags (torvalds/linux v6.18
// net/core/flow_dissector.c __skb_flow_dissect, case ETH_P_8021AD /
// ETH_P_8021Q): the tag is struct vlan_hdr { h_vlan_TCI;
// h_vlan_encapsulated_proto; } (include/linux/if_vlan.h), so the next
// protocol is the tag's second half-word, not its TCI, and the network
// header moves by VLAN_HLEN (4). Frames laid out by hand.
#include <gtest/gtest.h>

#include <string>

#include "offlab/linux/virtio_net.h"
#include "test_util.h"

namespace offlab::kernel {
namespace {

using testing::H;

// IPv4 10.0.0.1 -> 10.0.0.2, TCP (20-byte header, no payload).
const std::string kIpTcp =
    "450000280000400040060000 0a000001 0a000002"
    "d478145100000001000000005010010000000000";

SkBuff Skb(const std::string& hex) {
  SkBuff s;
  s.pkt = Packet(FromHex(H(hex)));
  return s;
}

TEST(KernelFlowDissectVlan, TheTagsEncapsulatedTypeNamesTheNextHeader) {
  // One 802.1Q tag, VID 100 (TCI 0x0064), carrying IPv4: TCP at 14 + 4 + 20.
  const SkBuff one = Skb("0a8f394fe0738abf7e2f0584 8100 0064 0800" + kIpTcp);
  uint8_t proto = 0;
  uint16_t thoff = 0;
  ASSERT_TRUE(FlowDissectBasic(one, 0x8100, 14, &proto, &thoff));
  EXPECT_EQ(proto, 6);
  EXPECT_EQ(thoff, 38);
  // 802.1ad (TCI 0x00c8) then 802.1Q (TCI 0x0064): TCP at 14 + 8 + 20.
  const SkBuff two = Skb("0a8f394fe0738abf7e2f0584 88a8 00c8 8100 0064 0800" + kIpTcp);
  proto = 0;
  thoff = 0;
  ASSERT_TRUE(FlowDissectBasic(two, 0x88a8, 14, &proto, &thoff));
  EXPECT_EQ(proto, 6);
  EXPECT_EQ(thoff, 42);
}

}  // namespace
}  // namespace offlab::kernel
