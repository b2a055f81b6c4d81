// pop_vlan on a frame whose tags are still in the bytes (the receive left
// them in band: core_vlan_untag off, as for a frame an action pushed into
// the data).
//
// Source: torvalds/linux v6.18 net/core/skbuff.c skb_vlan_pop: without an
// accelerated tag, "if (unlikely(!eth_type_vlan(skb->protocol))) return 0;
// err = __skb_vlan_pop(skb, &vlan_tci);", then "move next vlan tag to hw
// accel tag": a second in-band tag is popped with __skb_vlan_pop and put
// in the accelerated slot (__vlan_hwaccel_put_tag). __skb_vlan_pop starts
// with skb_ensure_writable(skb, VLAN_ETH_HLEN), -ENOMEM when the 18 bytes
// are not there. net/openvswitch/actions.c pop_vlan invalidates the flow
// key when a tag is left accelerated. Frames are laid out by hand
// (IEEE 802.1Q tags: TPID, TCI).
#include <gtest/gtest.h>

#include "offlab/linux/ovs_actions.h"
#include "offlab/linux/ovs_actions_vlan.h"
#include "offlab/linux/ovs_dp.h"
#include "test_util.h"

namespace offlab::kernel {
namespace {

using testing::H;

const std::string kMacs = "0a8f394fe073 8abf7e2f0584";
const std::string kIpv4 = "0800 4500001c12344000401100000a0000010a000002 1f9000350008 0000";

OvsSkb InBand(const std::string& hex) {
  SkBuff skb;
  skb.pkt = Packet(FromHex(H(hex)));
  OvsVportReceiveOptions o;
  o.core_vlan_untag = false;
  return OvsVportReceive(skb, o);
}

TEST(KernelOvsPopVlanInband, OneInBandTagLeavesTheBytes) {
  OvsSkb s = InBand(kMacs + "8100 0064" + kIpv4);
  ASSERT_FALSE(s.vlan.present);
  ASSERT_EQ(OvsPopVlan(s), 0);
  EXPECT_EQ(ToHex(s.skb.pkt.bytes()), H(kMacs + kIpv4));
  EXPECT_FALSE(s.vlan.present);
  EXPECT_TRUE(s.key.valid);
  EXPECT_EQ(s.key.eth_type, 0x0800);
}

TEST(KernelOvsPopVlanInband, TheSecondInBandTagMovesToTheAcceleratedSlot) {
  OvsSkb s = InBand(kMacs + "88a8 0064 8100 20c8" + kIpv4);
  ASSERT_EQ(OvsPopVlan(s), 0);
  EXPECT_EQ(ToHex(s.skb.pkt.bytes()), H(kMacs + kIpv4));
  ASSERT_TRUE(s.vlan.present);
  EXPECT_EQ(s.vlan.tpid, 0x8100);
  EXPECT_EQ(s.vlan.tci, 0x20c8);
  EXPECT_FALSE(s.key.valid);
}

TEST(KernelOvsPopVlanInband, ASecondTagCutShortIsENOMEM) {
  // 12 MAC bytes, a full outer tag, then only the inner TPID and TCI: after
  // the first pop 16 bytes remain, fewer than VLAN_ETH_HLEN.
  OvsSkb s = InBand(kMacs + "88a8 0064 8100 20c8");
  EXPECT_EQ(OvsPopVlan(s), ovs_err::kNoMem);
  EXPECT_FALSE(s.vlan.present);
  EXPECT_EQ(ToHex(s.skb.pkt.bytes()), H(kMacs + "8100 20c8"));
}

}  // namespace
}  // namespace offlab::kernel
