// Kernel version gates of the OVS datapath actions (ovs_actions_vlan.cc,
// ovs_actions_csum.cc): each checked at exactly the release that brought
// the change and at the release before it.
//  - 5.0: the VLAN_TAG_PRESENT removal: until then the CFI/DEI bit of the
//    accelerated TCI was the "present" flag, and skb_vlan_push wrote the
//    old tag into the frame with that bit cleared;
//  - 5.5: 189c9b1e9453 "net: Fix skb->csum update in
//    inet_proto_csum_replace16()" (pulled for v5.5 on 25 Jan 2020): a
//    COMPLETE skb->csum is no longer moved by an IPv6 address change.
#include <gtest/gtest.h>

#include "offlab/linux/ovs_actions.h"
#include "offlab/linux/ovs_actions_csum.h"
#include "offlab/linux/ovs_actions_vlan.h"
#include "offlab/linux/ovs_dp.h"
#include "test_util.h"

namespace offlab::kernel {
namespace {

using testing::H;

const std::string kMacs = "0a8f394fe073 8abf7e2f0584";
const std::string kIpv4 = "0800 4500001c12344000401100000a0000010a000002 1f9000350008 0000";

TEST(KernelVersionGatesOvs, PushVlanKeepsTheInnerDeiBitFrom50) {
  auto pushed = [](KernelVersion kv) {
    SkBuff skb;
    skb.pkt = Packet(FromHex(H(kMacs + kIpv4)));
    OvsVportReceiveOptions o;
    o.core_vlan_untag = false;
    OvsSkb s = OvsVportReceive(skb, o);
    s.vlan = {true, 0x8100, 0x1064};  // DEI set in the accelerated tag
    EXPECT_EQ(OvsPushVlan(s, 0x88a8, 0x0065, kv), 0);
    return ToHex(s.skb.pkt.bytes());
  };
  EXPECT_EQ(pushed(KernelVersion{4, 20, false}), H(kMacs + "8100 0064" + kIpv4));
  EXPECT_EQ(pushed(KernelVersion{5, 0, false}), H(kMacs + "8100 1064" + kIpv4));
}

TEST(KernelVersionGatesOvs, Replace16LeavesACompleteSumFrom55) {
  uint8_t from[16] = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  uint8_t to[16] = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9};
  auto csum_after = [&](KernelVersion kv) {
    SkBuff skb;
    skb.pkt = Packet(Bytes(64, 0x11));
    skb.ip_summed = IpSummed::kComplete;
    skb.csum = 0x12345678;
    InetProtoCsumReplace16(skb, 40, from, to, true, kv);
    return skb.csum;
  };
  EXPECT_NE(csum_after(KernelVersion{5, 4, false}), 0x12345678u);
  EXPECT_EQ(csum_after(KernelVersion{5, 5, false}), 0x12345678u);
}

}  // namespace
}  // namespace offlab::kernel
