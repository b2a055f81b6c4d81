// gso_features_check (v6.18 net/core/dev.c): NETIF_F_IPV6_CSUM covers no
// IPv6 extension headers, so a TCPv6 GSO skb whose network header runs past
// the 40-byte IPv6 header (skb_network_header_len != sizeof(struct
// ipv6hdr)) loses IPV6_CSUM, TSO6 and GSO_UDP_L4 on a device with only
// those: it is segmented and checksummed in software. Absent in v6.12.19. The frame is the scapy
// hop-by-hop SYN of kernel_xmit_ipv6_ext_test.cc turned into an ACK with
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
  // -EINVAL): dropped. That is what the v6.18 rule ("net: gso: Forbid IPv6
  // TSO with extensions on devices with only IPV6_CSUM") cures.
  const auto old = ValidateXmitSkb(TsoHbh(), dev, XmitOptions{}, KernelVersion{6, 12}, &c);
  EXPECT_TRUE(old.empty());
}

}  // namespace
}  // namespace offlab::kernel
