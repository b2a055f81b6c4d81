// mlx5e_handle_csum (v6.18.19 drivers/net/ethernet/mellanox/mlx5/core/
// en_rx.c:1492-1564) beyond IPv4 TCP: rx-checksum off gives CHECKSUM_NONE
// (:1502-1503); IPv6 frames above 64 bytes get the COMPLETE sum too; SCTP is
// left out of it (:1528-1529, a CRC is no sum) and takes the CQE's verdict;
// a non-IP ethertype takes the CQE path as well. Frames from
// kernel_test_skb.h, sums by the plain oracle.
#include <gtest/gtest.h>

#include "kernel_test_skb.h"
#include "offlab/linux/rx.h"

namespace offlab::kernel {
namespace {

using testing::Ipv4Frame;
using testing::Ipv6Frame;
using testing::OracleL4Csum;
using testing::OracleSum;

const std::string kTcp = "d47814510000000100000000501001000000000000";

Bytes Tcp6(size_t payload) {
  Bytes f = Ipv6Frame(6, "", kTcp.substr(0, 40) + std::string(payload * 2, 'a'));
  testing::Put16(f, 70, OracleL4Csum(f, 14, 54, 6, 16));
  return f;
}

TEST(KernelRxMlx5More, RxChecksumOffIpv6AndSctp) {
  const NicProfile p = BuiltinProfile("connectx6dx");
  // IPv6 TCP above 64 bytes: COMPLETE over everything after the MAC header.
  const Bytes v6 = Tcp6(100);
  Counters c;
  SkBuff s = DriverReceive(v6, p, kLabKernel, &c);
  EXPECT_EQ(s.ip_summed, IpSummed::kComplete);
  EXPECT_EQ(s.csum & 0xffff, OracleSum(v6.data() + 14, v6.size() - 14));
  EXPECT_EQ(c.Get("rx_csum_complete"), 1u);

  // rx-checksum off (ethtool -K rx off): NONE, whatever the frame.
  DeviceFeatures off = KernelDeviceFeatures(p);
  off.features &= ~netif::kRxCsum;
  Counters n;
  RxResult r = DriverReceiveWith(v6, p, off, kLabKernel, &n);
  EXPECT_EQ(r.skb.ip_summed, IpSummed::kNone);
  EXPECT_EQ(n.Get("rx_csum_none"), 1u);

  // SCTP above 64 bytes: never the COMPLETE path.
  Bytes sctp = Ipv4Frame(132, "1f9000350000000100000000" + std::string(160, '0'));
  Counters k;
  SkBuff t = DriverReceive(sctp, p, kLabKernel, &k);
  EXPECT_NE(t.ip_summed, IpSummed::kComplete);
  EXPECT_EQ(k.Get("rx_csum_complete"), 0u);

  // ARP-sized non-IP frame above 64 bytes: the CQE path, no sum to verify.
  Bytes arp = Ipv4Frame(17, std::string(120, '0'));
  arp[12] = 0x08;
  arp[13] = 0x06;
  Counters a;
  EXPECT_NE(DriverReceive(arp, p, kLabKernel, &a).ip_summed, IpSummed::kComplete);
  EXPECT_EQ(a.Get("rx_csum_complete"), 0u);
}

TEST(KernelRxMeta, OnlyVirtioNetReadsAVirtioNetHeader) {
  // RxMeta.vnet is the header virtio_net's receive_buf finds in front of the
  // frame; no other driver has one, so whatever it holds changes nothing
  // for them: not mlx5e's COMPLETE sum, not a hardware verdict.
  RxMeta meta;
  meta.vnet.hdr.flags = VnetHdr::kDataValid;
  meta.vnet.hdr.gso_type = VnetHdr::kGsoTcpv6;
  meta.vnet.hdr.gso_size = 1000;
  const Bytes v6 = Tcp6(100);
  for (const char* name : {"connectx6dx", "connectx5", "e810", "x710", "ixgbe_82599"}) {
    SCOPED_TRACE(name);
    const NicProfile p = BuiltinProfile(name);
    const RxResult plain = DriverReceiveFull(v6, p, kLabKernel, nullptr);
    const RxResult with = DriverReceiveFull(v6, p, kLabKernel, nullptr, meta);
    EXPECT_FALSE(with.dropped);
    EXPECT_EQ(with.skb.ip_summed, plain.skb.ip_summed);
    EXPECT_EQ(with.skb.csum_level, plain.skb.csum_level);
    EXPECT_EQ(with.skb.csum, plain.skb.csum);
    EXPECT_EQ(with.skb.gso_size, 0);
    EXPECT_EQ(with.skb.gso_type, 0u);
  }
  // The same header does act on virtio_net: DATA_VALID vouches for the frame.
  const RxResult v = DriverReceiveFull(v6, BuiltinProfile("virtio"), kLabKernel, nullptr, meta);
  EXPECT_EQ(v.drop_reason, "");
  EXPECT_EQ(v.skb.ip_summed, IpSummed::kUnnecessary);
}

}  // namespace
}  // namespace offlab::kernel
