// ibmveth receive of IPv6 TCP (the aggregate and checksum helpers' IPv6
// branches) and virtio_net's refusal of DATA_VALID on a UDP-tunnel GSO
// header.
//
// Sources (torvalds/linux v6.18, line numbers of v6.18.19):
// drivers/net/ethernet/ibm/ibmveth.c ibmveth_rx_mss_helper (:1332-1377):
// for ETH_P_IPV6 with nexthdr IPPROTO_TCP, offset = sizeof(struct ipv6hdr)
// and gso_type SKB_GSO_TCPV6, gso_size the descriptor's MSS (large packet),
// gso_segs = DIV_ROUND_UP(len - offset - doff * 4, gso_size);
// ibmveth_rx_csum_helper (:1379-1446): iphlen = sizeof(struct ipv6hdr),
// iph_proto = nexthdr; a NULL TCP checksum gets
// ~csum_ipv6_magic(saddr, daddr, skb->len - iphlen, IPPROTO_TCP, 0) and
// skb_partial_csum_set(skb, iphlen, offsetof(struct tcphdr, check)).
// include/linux/virtio_net.h virtio_net_handle_csum_offload: with a
// VIRTIO_NET_HDR_GSO_UDP_TUNNEL type, "DATA_VALID is mutually exclusive
// with NEEDS_CSUM, and GSO over UDP tunnel requires the latter" -> -EINVAL,
// which virtnet_receive_done counts as a frame error and drops.
// Frames: kernel_test_skb.h; sums by the plain oracle of test_util.h.
#include <gtest/gtest.h>

#include "kernel_test_skb.h"
#include "offlab/linux/rx.h"

namespace offlab::kernel {
namespace {

using testing::Be16;
using testing::Ipv6Frame;
using testing::OracleL4Csum;
using testing::OracleSum;
using testing::Put16;

// IPv6 TCP (20-byte header) with `payload` bytes and a right checksum.
Bytes Tcp6(size_t payload) {
  Bytes f = Ipv6Frame(6, "",
                      "d4781451000000010000000050100100"
                      "00000000" +
                          std::string(payload * 2, 'a'));
  Put16(f, 70, OracleL4Csum(f, 14, 54, 6, 16));
  return f;
}

TEST(KernelRxIbmvethIpv6, AnIpv6TcpAggregateBecomesTcpv6Gso) {
  const NicProfile p = BuiltinProfile("ibmveth_trunk");
  RxMeta m;
  m.ibmveth_large_packet = true;
  m.ibmveth_mss = 1000;
  // 2990 payload bytes after 40 + 20 header bytes: 3 segments of 1000.
  const RxResult r = DriverReceiveFull(Tcp6(2990), p, kLabKernel, nullptr, m);
  ASSERT_FALSE(r.dropped);
  EXPECT_EQ(r.skb.gso_type & (gso::kTcpv4 | gso::kTcpv6), gso::kTcpv6);
  EXPECT_EQ(r.skb.gso_size, 1000);
  EXPECT_EQ(r.skb.gso_segs, 3);
  EXPECT_EQ(DriverReceiveFull(Tcp6(3001), p, kLabKernel, nullptr, m).skb.gso_segs, 4);
}

TEST(KernelRxIbmvethIpv6, NullTcpChecksumOverIpv6BecomesPartialWithThePseudoSum) {
  const NicProfile p = BuiltinProfile("ibmveth_trunk");
  Bytes f = Tcp6(100);
  Put16(f, 70, 0);
  SkBuff s = DriverReceive(f, p);
  EXPECT_EQ(s.ip_summed, IpSummed::kPartial);
  EXPECT_EQ(s.csum_start, 54);
  EXPECT_EQ(s.csum_offset, 16);
  // Folded pseudo header: both addresses, next header 6, TCP length 120.
  const uint32_t pseudo = OracleSum(f.data() + 22, 32, 6 + 120);
  EXPECT_EQ(Be16(s.pkt.bytes(), 70), pseudo);
  // Everything else untouched.
  Bytes rest = s.pkt.bytes();
  Put16(rest, 70, 0);
  EXPECT_EQ(rest, f);
}

// ibmveth_rx_csum_helper by release: 4.19 (trunk mode: every TCP frame
// gets the pseudo-header sum and CHECKSUM_PARTIAL), 5.14 (7525de2516fb:
// only a NULL checksum, the sum still only in trunk mode), 6.6
// (51e7a66666e0: a NULL checksum gets both in any mode).
TEST(KernelRxIbmvethIpv6, ChecksumHelperByRelease) {
  const NicProfile trunk = BuiltinProfile("ibmveth_trunk");
  NicProfile plain = trunk;
  plain.kernel->active_trunk = false;
  auto rx = [](const Bytes& f, const NicProfile& p, int maj, int min) {
    const RxResult r = DriverReceiveFull(f, p, KernelVersion{maj, min, false}, nullptr, RxMeta{});
    EXPECT_FALSE(r.dropped);
    return r.skb;
  };
  // A good checksum on a trunk: left alone before 4.19 and from 5.14.
  const Bytes good = Tcp6(100);
  EXPECT_EQ(rx(good, trunk, 4, 18).ip_summed, IpSummed::kUnnecessary);
  EXPECT_EQ(rx(good, trunk, 4, 19).ip_summed, IpSummed::kPartial);
  EXPECT_EQ(rx(good, trunk, 5, 13).ip_summed, IpSummed::kPartial);
  EXPECT_EQ(rx(good, trunk, 5, 14).ip_summed, IpSummed::kUnnecessary);
  // A NULL checksum outside trunk mode: PARTIAL from 5.14, the pseudo sum
  // written only from 6.6.
  Bytes null = Tcp6(100);
  Put16(null, 70, 0);
  const uint16_t pseudo = static_cast<uint16_t>(OracleSum(null.data() + 22, 32, 6 + 120));
  EXPECT_EQ(rx(null, plain, 5, 13).ip_summed, IpSummed::kUnnecessary);
  const SkBuff v514 = rx(null, plain, 5, 14);
  EXPECT_EQ(v514.ip_summed, IpSummed::kPartial);
  EXPECT_EQ(Be16(v514.pkt.bytes(), 70), 0);
  const SkBuff v65 = rx(null, plain, 6, 5);
  EXPECT_EQ(v65.ip_summed, IpSummed::kPartial);
  EXPECT_EQ(Be16(v65.pkt.bytes(), 70), 0);
  const SkBuff v66 = rx(null, plain, 6, 6);
  EXPECT_EQ(v66.ip_summed, IpSummed::kPartial);
  EXPECT_EQ(Be16(v66.pkt.bytes(), 70), pseudo);
}

TEST(KernelRxVirtioTunnelCsum, DataValidWithUdpTunnelGsoIsAFrameError) {
  const NicProfile p = BuiltinProfile("virtio");
  RxMeta m;
  m.vnet_tnl = m.vnet_tnl_csum = true;
  m.vnet.hdr.flags = VnetHdr::kDataValid;
  m.vnet.hdr.gso_type = vnet::kGsoUdpTunnelIpv4 | VnetHdr::kGsoTcpv4;
  m.vnet.hdr.gso_size = 1000;
  Counters c;
  const RxResult r = DriverReceiveFull(Tcp6(100), p, kLabKernel, &c, m);
  EXPECT_TRUE(r.dropped);
  EXPECT_EQ(r.drop_reason, "DATA_VALID with UDP tunnel GSO");
  EXPECT_EQ(c.Get("rx_frame_errors"), 1u);
}

}  // namespace
}  // namespace offlab::kernel
