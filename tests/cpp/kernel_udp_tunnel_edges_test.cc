// Edges of the UDP tunnel transmit helpers (models/src/linux/udp_tunnel.cc):
// iptunnel_handle_offloads on an skb that is already encapsulated, lco_csum
// for offsets that do not fit, udp_set_csum without a UDP header, and the
// pre-4.6 udp6_set_csum choice between the device (NETIF_F_IPV6_CSUM /
// HW_CSUM, not IP_CSUM) and software, whose 0 result is sent as 0xffff.
//
// Source: torvalds/linux include/linux/skbuff.h lco_csum, v4.4
// net/ipv6/ip6_checksum.c udp6_set_csum ("else if (skb->dev &&
// (skb->dev->features & NETIF_F_IPV6_CSUM))" / the software branch with
// "if (uh->check == 0) uh->check = CSUM_MANGLED_0"), net/ipv4/ip_tunnel_core.c
// iptunnel_handle_offloads (skb_reset_inner_headers only when
// !skb->encapsulation). Sums: test_util.h's plain-loop oracle.
#include <gtest/gtest.h>

#include "kernel_test_skb.h"
#include "offlab/linux/udp_tunnel.h"

namespace offlab::kernel {
namespace {

using testing::Be16;
using testing::Ipv6Frame;
using testing::OracleL4Ok;
using testing::OraclePseudo;
using testing::OracleSum;
using testing::Put16;

const KernelVersion kOld{4, 4, false};

TEST(KernelUdpTunnelEdges, AnEncapsulatedSkbKeepsItsInnerHeaders) {
  // A second encapsulation (nested tunnel): the inner offsets stay those
  // of the first inner packet.
  SkBuff s;
  s.pkt = Packet(Bytes(200, 0));
  s.pkt.l3_ofs = 14, s.pkt.l4_ofs = 34;
  s.encapsulation = true;
  s.pkt.inner_l2_ofs = 50, s.pkt.inner_l3_ofs = 64, s.pkt.inner_l4_ofs = 84;
  s.ip_summed = IpSummed::kPartial, s.csum_start = 84, s.csum_offset = 16;
  IptunnelHandleOffloads(s, gso::kUdpTunnel, false, kLabKernel);
  EXPECT_EQ(s.pkt.inner_l2_ofs, 50);
  EXPECT_EQ(s.pkt.inner_l3_ofs, 64);
  EXPECT_EQ(s.pkt.inner_l4_ofs, 84);
  EXPECT_TRUE(s.encapsulation);
  EXPECT_EQ(s.ip_summed, IpSummed::kPartial);
}

TEST(KernelUdpTunnelEdges, LcoCsumOfTheInnerFieldAlone) {
  // csum_start at the outer L4 header: no bytes before it, the result is
  // ~field = ~0x1234 = 0xedcb.
  SkBuff s;
  s.pkt = Packet(Bytes(60, 0));
  s.ip_summed = IpSummed::kPartial, s.csum_start = 34, s.csum_offset = 16;
  s.pkt.data()[50] = 0x12, s.pkt.data()[51] = 0x34;
  EXPECT_EQ(LcoCsum(s, 34) % 0xffff, 0xedcbu);
  // Two bytes 0x0101 between l4 (32) and csum_start: 0xedcb + 0x0101.
  s.pkt.data()[32] = 0x01, s.pkt.data()[33] = 0x01;
  EXPECT_EQ(LcoCsum(s, 32) % 0xffff, 0xeeccu);
  // A transport header after csum_start, or a field past the end: 0.
  EXPECT_EQ(LcoCsum(s, 35), 0u);
  s.csum_offset = 25;  // 34 + 25 + 2 = 61 > 60
  EXPECT_EQ(LcoCsum(s, 34), 0u);
}

TEST(KernelUdpTunnelEdges, SetCsumWithoutAUdpHeaderDoesNothing) {
  const Bytes f = Ipv6Frame(17, "", "04d212b5000c00000a0b0c0d");
  uint8_t a[16] = {0x20, 0x01, 0x0d, 0xb8};
  for (uint16_t l4 : {kNoOffset, static_cast<uint16_t>(f.size() - 7)}) {
    SkBuff s;
    s.pkt = Packet(f);
    s.pkt.l3_ofs = 14, s.pkt.l4_ofs = l4;
    UdpSetCsum(s, true, a, a, false, 0, kLabKernel);
    EXPECT_EQ(s.pkt.bytes(), f);
    EXPECT_EQ(s.ip_summed, IpSummed::kNone);
  }
}

// IPv6 UDP (2001:db8::1 -> ::2) with 2 payload bytes.
SkBuff Udp6(uint16_t payload_word) {
  Bytes f = Ipv6Frame(17, "", "04d212b5000a00000000");
  Put16(f, 62, payload_word);
  SkBuff s;
  s.pkt = Packet(f);
  s.pkt.l3_ofs = 14, s.pkt.l4_ofs = 54;
  return s;
}

void SetCsum6(SkBuff& s, uint64_t features) {
  const uint8_t* ip = s.pkt.data() + 14;
  UdpSetCsum(s, true, ip + 8, ip + 24, false, features, kOld);
}

TEST(KernelUdpTunnelEdges, Pre46Ipv6NeedsAnIpv6ChecksumFeature) {
  // NETIF_F_IPV6_CSUM: PARTIAL, the field the pseudo-header sum.
  SkBuff dev = Udp6(0x5a5a);
  SetCsum6(dev, netif::kIpv6Csum);
  size_t len = 0;
  EXPECT_EQ(dev.ip_summed, IpSummed::kPartial);
  EXPECT_EQ(dev.csum_start, 54);
  EXPECT_EQ(dev.csum_offset, 6);
  EXPECT_EQ(Be16(dev.pkt.bytes(), 60), OraclePseudo(dev.pkt.bytes(), 14, 54, 17, &len));
  // NETIF_F_IP_CSUM is IPv4's: the checksum is summed in software.
  SkBuff sw = Udp6(0x5a5a);
  SetCsum6(sw, netif::kIpCsum);
  EXPECT_NE(sw.ip_summed, IpSummed::kPartial);
  EXPECT_TRUE(OracleL4Ok(sw.pkt.bytes(), 14, 54, 17));
}

TEST(KernelUdpTunnelEdges, Pre46SoftwareChecksumOfZeroIsSentAsAllOnes) {
  // The payload word that makes pseudo header + UDP header + payload sum to
  // 0xffff: the computed checksum is 0, CSUM_MANGLED_0 sends 0xffff.
  SkBuff probe = Udp6(0);
  size_t len = 0;
  const uint32_t s =
      OracleSum(probe.pkt.data() + 54, 10, OraclePseudo(probe.pkt.bytes(), 14, 54, 17, &len));
  SkBuff z = Udp6(static_cast<uint16_t>(~s));
  SetCsum6(z, 0);
  EXPECT_EQ(Be16(z.pkt.bytes(), 60), 0xffff);
  EXPECT_TRUE(OracleL4Ok(z.pkt.bytes(), 14, 54, 17));
}

}  // namespace
}  // namespace offlab::kernel
