// Host paths the seed tests leave out: a container's TSO send through its
// veth and a bridge to the NIC, a guest's send on a routed host, a frame
// the virtio NIC's driver refuses, and OVS dec_ttl on a TTL-1 packet.
//
// Sources (torvalds/linux v6.18): drivers/net/veth.c (VETH_FEATURES carry
// NETIF_F_GSO_SOFTWARE, so the container's TSO skb passes its
// validate_xmit_skb whole; veth_xmit hands it to the peer unchanged since
// ce8c839b74e3, v4.4) and net/bridge/br_forward.c br_dev_queue_push_xmit
// (dev_queue_xmit, checksum state untouched): the NIC's TSO cuts it as
// RFC 9293 segmentation (kernel_host_test_frames.h TsoSegment).
// drivers/net/virtio_net.c virtnet_receive_done: a header
// virtio_net_hdr_to_skb refuses -> frame_err: rx_frame_errors, dropped.
// net/openvswitch/actions.c execute_dec_ttl: "if (nh->ttl <= 1) return
// -EHOSTUNREACH", handled by dec_ttl_exception_handler, never output;
// otherwise the TTL and the header checksum are updated (csum_replace2).
// The model does not route a guest's packets (host.h): it says so.
#include <gtest/gtest.h>

#include "kernel_host_test_frames.h"
#include "offlab/linux/host.h"

namespace offlab::testing {
namespace {

using kernel::HostAttach;
using kernel::HostOvsAction;
using kernel::HostReceive;
using kernel::HostSwitch;
using kernel::KernelHost;
using kernel::RxOutcome;
using kernel::SkBuff;
using kernel::TxOutcome;

constexpr size_t kMss = 1448;

TEST(KernelHostEdges, ContainerTsoThroughVethAndBridgeLeavesAsMssSegments) {
  KernelHost h = kernel::MakeKernelHost(BuiltinProfile("ixgbe_82599"));
  h.sw = HostSwitch::kBridge;
  h.attach = HostAttach::kVeth;
  h.mss = kMss;
  SkBuff skb;
  ASSERT_EQ(kernel::HostSocketSkb(h, TcpFrame(FlowSeg(0, 3 * kMss, 0x18)), &skb), "");
  const TxOutcome t = kernel::HostTransmit(h, skb);
  EXPECT_TRUE(t.drops.empty());
  ASSERT_EQ(t.wire.size(), 3u);
  for (size_t k = 0; k < 3; k++) EXPECT_EQ(t.wire[k], TsoSegment(3 * kMss, kMss, k)) << k;
  EXPECT_EQ(t.counters.Get("host:switched"), 1u);
}

TEST(KernelHostEdges, RoutingAGuestsSendIsRefusedNotGuessed) {
  KernelHost h = kernel::MakeKernelHost(BuiltinProfile("ixgbe_82599"));
  h.sw = HostSwitch::kRouted;
  h.attach = HostAttach::kVeth;
  SkBuff skb;
  ASSERT_EQ(kernel::HostSocketSkb(h, TcpFrame(FlowSeg(0, 100, 0x18)), &skb), "");
  const TxOutcome t = kernel::HostTransmit(h, skb);
  EXPECT_TRUE(t.wire.empty());
  ASSERT_EQ(t.drops.size(), 1u);
  EXPECT_EQ(t.drops.begin()->first.rfind("host: ", 0), 0u) << t.drops.begin()->first;
  EXPECT_EQ(t.counters.Get("host:switched"), 0u);
}

TEST(KernelHostEdges, AFrameTheVirtioDriverRefusesIsDroppedAsAFrameError) {
  KernelHost h = kernel::MakeKernelHost(BuiltinProfile("virtio"));
  // NEEDS_CSUM with the checksum field beyond the 154-byte frame.
  h.rx_meta.vnet.hdr.flags = VnetHdr::kNeedsCsum;
  h.rx_meta.vnet.hdr.csum_start = 34;
  h.rx_meta.vnet.hdr.csum_offset = 200;
  const RxOutcome r = HostReceive(h, {TcpFrame(FlowSeg(0, 100, 0x18))});
  EXPECT_TRUE(r.delivered.empty());
  ASSERT_EQ(r.drops.size(), 1u);
  EXPECT_EQ(r.drops.begin()->first.rfind("driver: ", 0), 0u) << r.drops.begin()->first;
  EXPECT_EQ(r.counters.Get("rx_frame_errors"), 1u);
  EXPECT_EQ(r.nic_gro.received, 0u);
}

TEST(KernelHostEdges, OvsDecTtlDoesNotForwardTtlOne) {
  KernelHost h = kernel::MakeKernelHost(BuiltinProfile("ixgbe_82599"));
  h.sw = HostSwitch::kOvs;
  h.attach = HostAttach::kForward;
  HostOvsAction dec;
  dec.kind = HostOvsAction::Kind::kDecTtl;
  h.ovs_actions = {dec};
  Seg one = FlowSeg(0, 100, 0x18);
  one.ttl = 1;
  const RxOutcome r = HostReceive(h, {TcpFrame(one)});
  EXPECT_TRUE(r.wire.empty());
  ASSERT_EQ(r.drops.size(), 1u);
  EXPECT_EQ(r.drops.begin()->first.rfind("ovs action: ", 0), 0u) << r.drops.begin()->first;
  // TTL 64 leaves as 63 with the header checksum redone.
  Seg s = FlowSeg(0, 100, 0x18);
  const RxOutcome ok = HostReceive(h, {TcpFrame(s)});
  ASSERT_EQ(ok.wire.size(), 1u);
  s.ttl = 63;
  EXPECT_EQ(ok.wire[0], TcpFrame(s));
}

}  // namespace
}  // namespace offlab::testing
