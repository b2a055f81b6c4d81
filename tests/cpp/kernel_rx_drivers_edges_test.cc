// Edges of the code-driven receive rules (models/src/linux/rx_drivers.cc):
// mlx5e's CHECKSUM_COMPLETE behind VLAN tags and __vlan_get_protocol's
// depth budget, ibmveth's v5.14-v6.5 rule for a non-trunk adapter, an
// aggregate that is not TCP or whose TCP header is cut short, and a
// virtio-net UDP-tunnel GSO header the guest did not negotiate. Frames
// are built here, sums by test_util.h's plain-loop oracle.
//
// Source: Linux v6.18.19 (6952350/linux-6.18.y f3fce0151d48)
// drivers/net/ethernet/mellanox/mlx5/core/en_rx.c is_last_ethertype_ip
// (__vlan_get_protocol) and mlx5e_handle_csum; include/linux/if_vlan.h
// __vlan_get_protocol (VLAN_MAX_DEPTH 8, "!--parse_depth" -> 0);
// drivers/net/ethernet/ibm/ibmveth.c ibmveth_rx_mss_helper, and linux-6.1
// ibmveth.c:1314-1330 (7525de2516fb: PARTIAL for a NULL checksum, the
// pseudo-header sum only in trunk mode); include/linux/virtio_net.h
// virtio_net_hdr_tnl_to_skb ("if (!tnl_hdr_negotiated) return -EINVAL").
#include <gtest/gtest.h>

#include "offlab/linux/rx.h"
#include "test_util.h"

namespace offlab::kernel {
namespace {

using testing::OracleL4Csum;
using testing::OracleSum;
using testing::Put16;

// Ethernet + IPv4 10.0.0.1 -> 10.0.0.2 + TCP (ACK) + `payload` bytes, both
// checksums right.
Bytes Tcp4(size_t payload) {
  Bytes f = FromHex(
      "020202020202 040404040404 0800 45000000 00010000 4006 0000 0a000001 0a000002"
      "04d20050 00000001 00000000 5010 03e8 0000 0000");
  f.insert(f.end(), payload, 'y');
  Put16(f, 16, static_cast<uint16_t>(f.size() - 14));
  Put16(f, 24, static_cast<uint16_t>(~OracleSum(f.data() + 14, 20)));
  Put16(f, 50, OracleL4Csum(f, 14, 34, 6, 16));
  return f;
}

// `f` with `n` 802.1Q tags between the MAC addresses and the type.
Bytes Tagged(Bytes f, int n) {
  for (int i = 0; i < n; i++) {
    const Bytes tag = {0x81, 0x00, 0x00, static_cast<uint8_t>(i + 1)};
    f.insert(f.begin() + 12, tag.begin(), tag.end());
  }
  return f;
}

TEST(KernelRxDriversEdges, Mlx5CompleteSumBehindVlanTags) {
  // is_last_ethertype_ip finds IPv4 behind one, two or seven tags: the CQE
  // sum, fixed up to cover everything after the MAC header (tags too).
  const NicProfile p = BuiltinProfile("connectx5");
  for (int n : {1, 2, 7}) {
    const Bytes f = Tagged(Tcp4(100), n);
    Counters c;
    const SkBuff s = DriverReceive(f, p, kLabKernel, &c);
    EXPECT_EQ(s.ip_summed, IpSummed::kComplete) << n;
    EXPECT_EQ(s.csum_from, 14) << n;
    EXPECT_EQ(s.csum % 0xffff, OracleSum(f.data() + 14, f.size() - 14) % 0xffff) << n;
    EXPECT_EQ(c.Get("rx_csum_complete"), 1u) << n;
  }
  // The eighth tag exhausts __vlan_get_protocol's parse_depth: protocol 0,
  // not IP, so no CHECKSUM_COMPLETE.
  Counters c;
  const SkBuff s = DriverReceive(Tagged(Tcp4(100), 8), p, kLabKernel, &c);
  EXPECT_NE(s.ip_summed, IpSummed::kComplete);
  EXPECT_EQ(c.Get("rx_csum_complete"), 0u);
}

TEST(KernelRxDriversEdges, IbmvethBetween514And66RecomputesOnlyInTrunkMode) {
  // 7525de2516fb: a NULL TCP checksum makes the skb PARTIAL in any mode,
  // but the pseudo-header sum is written only for an active trunk; 6.6
  // (51e7a66666e0) writes it always. Pseudo-header by hand: 0x0a00 +
  // 0x0001 + 0x0a00 + 0x0002 + 0x0006 + 0x0078 (120 TCP bytes) = 0x1481.
  NicProfile p = BuiltinProfile("ibmveth_trunk");
  p.kernel->active_trunk = false;
  Bytes null_csum = Tcp4(100);
  Put16(null_csum, 50, 0);
  const SkBuff v61 = DriverReceive(null_csum, p, KernelVersion{6, 1, false});
  EXPECT_EQ(v61.ip_summed, IpSummed::kPartial);
  EXPECT_EQ(v61.csum_start, 34);
  EXPECT_EQ(v61.pkt.data()[50], 0);
  EXPECT_EQ(v61.pkt.data()[51], 0);
  const SkBuff v66 = DriverReceive(null_csum, p, KernelVersion{6, 6, false});
  EXPECT_EQ(v66.ip_summed, IpSummed::kPartial);
  EXPECT_EQ(v66.pkt.data()[50], 0x14);
  EXPECT_EQ(v66.pkt.data()[51], 0x81);
  // 4.19 without a trunk: nothing but UNNECESSARY, the field left as is.
  const SkBuff v419 = DriverReceive(null_csum, p, KernelVersion{4, 19, false});
  EXPECT_EQ(v419.ip_summed, IpSummed::kUnnecessary);
  EXPECT_EQ(v419.pkt.data()[51], 0);
}

TEST(KernelRxDriversEdges, IbmvethAggregatesThatAreNotWholeTcpAreNoGso) {
  // ibmveth_rx_mss_helper handles TCP only; the model also stops before a
  // TCP header that is not all in the frame. Either way: counted as a
  // large packet, no GSO.
  const NicProfile p = BuiltinProfile("ibmveth_trunk");
  RxMeta m;
  m.ibmveth_large_packet = true;
  m.ibmveth_mss = 500;
  Bytes udp6 = FromHex(
      "020202020202 040404040404 86dd 60000000 000c 11 40"
      "20010db8000000000000000000000001 20010db8000000000000000000000002"
      "04d20035 000c0000 01020304");
  Counters c;
  const RxResult u = DriverReceiveFull(udp6, p, kLabKernel, &c, m);
  EXPECT_FALSE(u.skb.is_gso());
  EXPECT_EQ(u.skb.gso_type, 0u);
  EXPECT_EQ(c.Get("rx_large_packets"), 1u);
  // IPv4 TCP with 10 bytes of its header.
  Bytes cut = Tcp4(0);
  cut.resize(44);
  Put16(cut, 16, 30);
  const RxResult t = DriverReceiveFull(cut, p, kLabKernel, &c, m);
  EXPECT_FALSE(t.skb.is_gso());
  EXPECT_EQ(t.skb.gso_size, 0);
  EXPECT_EQ(c.Get("rx_large_packets"), 2u);
}

TEST(KernelRxDriversEdges, VirtioUdpTunnelGsoNotNegotiatedIsAFrameError) {
  // A UDP-tunnel GSO header without DATA_VALID reaches
  // virtio_net_hdr_tnl_to_skb, which refuses it when the tunnel feature is
  // not negotiated: virtnet_receive_done's frame_err.
  const NicProfile p = BuiltinProfile("virtio");
  RxMeta m;
  m.vnet.hdr.flags = VnetHdr::kNeedsCsum;
  m.vnet.hdr.gso_type = vnet::kGsoUdpTunnelIpv4 | VnetHdr::kGsoTcpv4;
  m.vnet.hdr.gso_size = 1000;
  m.vnet.hdr.csum_start = 84, m.vnet.hdr.csum_offset = 16;
  m.vnet.outer_th_offset = 34, m.vnet.inner_nh_offset = 64;
  Counters c;
  const RxResult r = DriverReceiveFull(Tcp4(3000), p, kLabKernel, &c, m);
  EXPECT_TRUE(r.dropped);
  EXPECT_EQ(c.Get("rx_frame_errors"), 1u);
}

}  // namespace
}  // namespace offlab::kernel
