// udp6_set_csum before local checksum offload (v4.5 net/ipv6/
// ip6_checksum.c): a non-GSO outer UDP over IPv6 is left to the device when
// "skb_dst(skb)->dev->features & NETIF_F_IPV6_CSUM": CHECKSUM_PARTIAL,
// csum_start at the UDP header, csum_offset offsetof(struct udphdr, check),
// and "uh->check = ~udp_v6_check(len, saddr, daddr, 0)", the folded
// pseudo-header sum; otherwise the checksum is summed in software
// (udp_v6_check over the datagram, 0 sent as CSUM_MANGLED_0) and the skb is
// CHECKSUM_UNNECESSARY. An IPv4-only checksum feature is not the IPv6 one.
// Frames: kernel_test_skb.h; sums by the plain oracle of test_util.h.
#include <gtest/gtest.h>

#include "kernel_test_skb.h"
#include "offlab/linux/features.h"
#include "offlab/linux/udp_tunnel.h"

namespace offlab::kernel {
namespace {

using testing::Be16;
using testing::Ipv6Frame;
using testing::OracleL4Csum;
using testing::OracleSum;

constexpr size_t kL3 = 14, kL4 = 54;

// 2001:db8::1 -> ::2, UDP 49152 -> 4789, length 8 + 16, checksum field 0,
// 16 payload bytes.
SkBuff Udp6Skb(Bytes* frame) {
  *frame = Ipv6Frame(17, "",
                     "c00012b500180000"
                     "00112233445566778899aabbccddeeff");
  SkBuff skb;
  skb.pkt = Packet(*frame);
  skb.pkt.l3_ofs = kL3;
  skb.pkt.l4_ofs = kL4;
  return skb;
}

TEST(KernelUdpSetCsumDevice, Ipv6ChecksumFeatureAloneLeavesTheOuterUdpToTheDevice) {
  Bytes f;
  SkBuff skb = Udp6Skb(&f);
  const uint8_t* ip = f.data() + kL3;
  UdpSetCsum(skb, true, ip + 8, ip + 24, false, netif::kIpv6Csum, KernelVersion{4, 5});
  EXPECT_EQ(skb.ip_summed, IpSummed::kPartial);
  EXPECT_EQ(skb.csum_start, kL4);
  EXPECT_EQ(skb.csum_offset, 6);
  // Both addresses, next header 17, UDP length 24, folded.
  EXPECT_EQ(Be16(skb.pkt.bytes(), kL4 + 6), OracleSum(ip + 8, 32, 17 + 24));
}

TEST(KernelUdpSetCsumDevice, WithoutAnIpv6ChecksumFeatureTheChecksumIsSummedInSoftware) {
  Bytes f;
  SkBuff skb = Udp6Skb(&f);
  const uint8_t* ip = f.data() + kL3;
  UdpSetCsum(skb, true, ip + 8, ip + 24, false, netif::kIpCsum, KernelVersion{4, 5});
  EXPECT_EQ(skb.ip_summed, IpSummed::kUnnecessary);
  EXPECT_EQ(Be16(skb.pkt.bytes(), kL4 + 6), OracleL4Csum(f, kL3, kL4, 17, 6));
}

}  // namespace
}  // namespace offlab::kernel
