// gso_features_check (v6.18 net/core/dev.c): NETIF_F_IPV6_CSUM covers no
// IPv6 extension headers, so a TCPv6 GSO skb whose network header runs past
// the 40-byte IPv6 header (skb_network_header_len != sizeof(struct
// ipv6hdr)) loses IPV6_CSUM, TSO6 and GSO_UDP_L4 on a device with only
// those: it is segmented and checksummed in software. Absent in v6.12.19, in v6.17 (864e3396976e).
// The frame is the scapy hop-by-hop SYN of kernel_xmit_ipv6_ext_test.cc turned into an ACK with
// 3000 payload bytes; the segments are checked with test_util.h's oracle.
#include <gtest/gtest.h>

#include <string>

#include "offlab/linux/xmit.h"
#include "offlab/net/counters.h"
#include "test_util.h"

namespace offlab::kernel {
namespace {

using testing::OracleL4Ok;
using testing::OracleSum;
using testing::Put16;

constexpr size_t kTh = 14 + 40 + 8;  // behind the 8-byte hop-by-hop header

SkBuff TsoHbh() {
  Bytes f = FromHex(
      "02000000000202000000000186dd60000000001c004020010db800000000000000000000000120010db80000"
      "0000000000000000000206000104000000009c400050000003e8000000005010200000000000");
  f.resize(f.size() + 3000, 0x5a);
  Put16(f, 18, static_cast<uint16_t>(f.size() - 54));  // payload_len
  // CHECKSUM_PARTIAL: the field holds the folded pseudo-header sum.
  const uint32_t tcp_len = static_cast<uint32_t>(f.size() - kTh);
  Put16(f, kTh + 16, static_cast<uint16_t>(OracleSum(f.data() + 22, 32, 6 + tcp_len)));
  SkBuff s;
  s.pkt = Packet(f);
  s.pkt.l3_ofs = 14;
  s.pkt.l4_ofs = kTh;
  s.ip_summed = IpSummed::kPartial;
  s.csum_start = kTh;
  s.csum_offset = 16;
  s.gso_size = 1000;
  s.gso_segs = 3;
  s.gso_type = gso::kTcpv6;
  return s;
}

TEST(KernelGsoIpv6ExtTso, ExtensionHeaderTakesTso6AwayOn618) {
  const DeviceFeatures dev{netif::kSg | netif::kIpv6Csum | netif::kTso6, 0, 65536, 65535, 1500};
  Counters c;
  const auto out = ValidateXmitSkb(TsoHbh(), dev, XmitOptions{}, KernelVersion{6, 18}, &c);
  ASSERT_EQ(out.size(), 3u);
  for (const SkBuff& s : out) {
    EXPECT_FALSE(s.is_gso());
    EXPECT_NE(s.ip_summed, IpSummed::kPartial);
    EXPECT_TRUE(OracleL4Ok(s.pkt.bytes(), 14, kTh, 6));
    EXPECT_EQ(s.len(), kTh + 20 + 1000);
  }
  // v6.12: the device keeps TSO6, and validate_xmit_skb's
  // skb_csum_hwoffload_help sends the extension-header skb to
  // skb_checksum_help, which refuses a GSO skb (skb_warn_bad_offload,
  // -EINVAL): dropped. That is what the v6.17 rule ("net: gso: Forbid IPv6
  // TSO with extensions on devices with only IPV6_CSUM") cures.
  const auto old = ValidateXmitSkb(TsoHbh(), dev, XmitOptions{}, KernelVersion{6, 12}, &c);
  EXPECT_TRUE(old.empty());
}

TEST(KernelGsoIpv6ExtTso, TheRuleStartsAt617) {
  // 864e3396976e (a [PATCH net v3] of 14 Aug 2025, in stable 6.1.149 of
  // 28 Aug 2025) is in v6.17: 6.16 drops the skb as 6.12 does, 6.17
  // segments it in software.
  const DeviceFeatures dev{netif::kSg | netif::kIpv6Csum | netif::kTso6, 0, 65536, 65535, 1500};
  EXPECT_TRUE(ValidateXmitSkb(TsoHbh(), dev, KernelVersion{6, 16}).empty());
  EXPECT_EQ(ValidateXmitSkb(TsoHbh(), dev, KernelVersion{6, 17}).size(), 3u);
}

TEST(KernelGsoIpv6ExtTso, Ipv6CsumCoversNoExtensionHeaderFrom612) {
  // skb_csum_hwoffload_help (04c20a9356f2 "net: skip offload for
  // NETIF_F_IPV6_CSUM if ipv6 header contains extension", v6.12): a
  // non-GSO PARTIAL skb behind a hop-by-hop header on an IPV6_CSUM device
  // is left to the device by 6.11 and checksummed in software by 6.12.
  for (int minor : {11, 12}) {
    SkBuff s = TsoHbh();
    s.gso_size = 0;
    s.gso_segs = 0;
    s.gso_type = 0;
    ASSERT_EQ(SkbCsumHwoffloadHelp(s, netif::kIpv6Csum, KernelVersion{6, minor}), 0);
    EXPECT_EQ(s.ip_summed, minor == 11 ? IpSummed::kPartial : IpSummed::kNone) << minor;
  }
}

TEST(KernelGsoIpv6ExtTso, GsoMaxSizeSendsToSoftwareGsoFrom612) {
  // gso_features_check's skb->len >= gso_max_size test: absent in v6.1.0,
  // present in v6.12.19, taken from 6.12. HW_CSUM keeps the extension
  // header rule out of the way.
  const DeviceFeatures dev{netif::kSg | netif::kHwCsum | netif::kTso6, 0, 2000, 65535, 1500};
  EXPECT_EQ(ValidateXmitSkb(TsoHbh(), dev, KernelVersion{6, 11}).size(), 1u);
  EXPECT_EQ(ValidateXmitSkb(TsoHbh(), dev, KernelVersion{6, 12}).size(), 3u);
}

}  // namespace
}  // namespace offlab::kernel
