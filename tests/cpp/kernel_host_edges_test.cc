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
// The model does not route a guest's packets (host.h): it says so. An IPv6
// vxlan device's socket takes IPv6 datagrams to its port (vxlan_rcv); a
// guest frame too short for vxlan_xmit is dropped there.
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

TEST(KernelHostEdges, AnIpv6UnderlayFrameToTheVxlanPortIsDecapsulated) {
  // The UDP tunnel socket of an IPv6 vxlan device (udp_sock_create6 on
  // dstport) takes an IPv6 datagram to its port: vxlan_rcv decapsulates it
  // and the inner TCP segment reaches the stack unchanged.
  kernel::VxlanConfig tx;
  tx.name = "vx0";
  tx.vni = 42;
  tx.dstport = 4789;
  tx.ipv6 = true;
  tx.local = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  tx.remote = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
  const Bytes inner = TcpFrame(FlowSeg(0, 100, 0x18));
  SkBuff in;
  in.pkt = Packet(inner);
  kernel::VxlanXmitResult x = kernel::VxlanXmit(in, tx, kernel::UnderlayRoute{});
  ASSERT_TRUE(x.sent) << x.reason;
  Bytes wire = x.skb.pkt.bytes();
  Put16(wire, 54 + 6, OracleL4Csum(wire, 14, 54, 17, 6));  // the outer UDP checksum
  KernelHost h = kernel::MakeKernelHost(BuiltinProfile("ixgbe_82599"));
  h.vxlan = tx;
  h.vxlan->local = tx.remote;
  h.vxlan->remote = tx.local;
  const RxOutcome r = HostReceive(h, {wire});
  EXPECT_TRUE(r.drops.empty()) << r.drops.begin()->first;
  ASSERT_EQ(r.delivered.size(), 1u);
  EXPECT_EQ(r.delivered[0].pkt.bytes(), inner);
  EXPECT_EQ(r.counters.Get("vx0:rx_packets"), 1u);
  EXPECT_EQ(r.counters.Get("Udp6InDatagrams"), 1u);
}

TEST(KernelHostEdges, AGuestFrameTooShortForVxlanIsDroppedAtVxlanXmit) {
  // vxlan_xmit_one: skb_vlan_inet_prepare cannot pull the inner IPv4
  // header (drivers/net/vxlan/vxlan_core.c, SKB_DROP_REASON_PKT_TOO_SMALL,
  // tx_dropped): nothing reaches the wire.
  KernelHost h = kernel::MakeKernelHost(BuiltinProfile("ixgbe_82599"));
  h.sw = HostSwitch::kBridge;
  h.attach = HostAttach::kTap;
  h.vxlan = kernel::VxlanConfig{};
  h.vxlan->name = "vx0";
  h.vxlan->remote = {192, 168, 1, 2};
  Bytes f = TcpFrame(FlowSeg(0, 100, 0x18));
  f.resize(14 + 10);  // half an IPv4 header
  SkBuff skb;
  skb.pkt = Packet(f);
  const TxOutcome t = kernel::HostTransmit(h, skb);
  EXPECT_TRUE(t.wire.empty());
  ASSERT_EQ(t.drops.size(), 1u);
  EXPECT_EQ(t.drops.begin()->first, "vxlan_xmit: PKT_TOO_SMALL");
  EXPECT_EQ(t.counters.Get("vx0:tx_dropped"), 1u);
}

}  // namespace
}  // namespace offlab::testing
