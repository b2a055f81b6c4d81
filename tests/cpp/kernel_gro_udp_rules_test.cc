// udp4/udp6_gro_receive and _complete rules the other UDP GRO tests leave
// out: plain UDP over IPv6 merged for forwarding, a datagram whose checksum
// does not verify, fraglist GRO of datagrams the driver vouched for at
// different levels, the 3.14 tunnel admission without a socket, and the
// 3.10 IPv6 CHECKSUM_COMPLETE pull.
//
// Sources (torvalds/linux): v6.18 net/ipv6/udp_offload.c udp6_gro_complete
// (uh->check = ~udp_v6_check(skb->len - nhoff, saddr, daddr, 0), then
// udp_gro_complete: uh->len, udp_gro_complete_segment: CHECKSUM_PARTIAL at
// the UDP header, gso_segs = count, SKB_GSO_UDP_L4) and ip6_offload.c
// ipv6_gro_complete (payload_len); v6.18 net/ipv4/udp_offload.c
// udp4_gro_receive (skb_gro_checksum_validate_zero_check failing -> flush)
// and udp_gro_receive_segment (is_flist: "(skb->ip_summed != p->ip_summed)
// || (skb->csum_level != p->csum_level)" -> flush, return NULL); v3.14
// net/ipv4/udp_offload.c udp_gro_receive (no tunnel socket on the port ->
// out, flush stays 1); v3.10 net/ipv6/ip6_offload.c ipv6_gro_receive
// (skb_postpull_rcsum of the IPv6 header before tcp6_gro_receive checks
// skb->csum against the pseudo header, CHECKSUM_COMPLETE or flush).
// Frames and expected bytes: kernel_gro_test_frames.h (plain-loop sums).
#include <gtest/gtest.h>

#include "kernel_gro_test_frames.h"
#include "offlab/linux/gro.h"

namespace offlab::testing {
namespace {

using kernel::GroCell;
using kernel::GroConfig;
using kernel::GroResult;
using kernel::IpSummed;
using kernel::SkBuff;

GroConfig Fwd() {
  GroConfig c;
  c.features = kernel::netif::kGro | kernel::netif::kGroUdpFwd;
  return c;
}

// IPv4 UDP to port 9000 with `n` data bytes (VxlanFrame's 8-byte header
// is data here).
Bytes Datagram4(size_t n, uint16_t id) {
  Outer o;
  o.dport = 9000;
  o.id = id;
  return VxlanFrame(o, Bytes(n, static_cast<uint8_t>(id)));
}

// Ethernet + IPv6 (fd00::10.0.0.1 -> fd00::10.0.0.2) + UDP 55555 -> 9000
// carrying `n` bytes of `fill`, checksum by the oracle.
Bytes Datagram6(size_t n, uint8_t fill) {
  Bytes f(62 + n, fill);
  const Seg s;  // the GRO frames' MAC and IPv4 addresses
  std::copy(s.mac_dst, s.mac_dst + 6, f.begin());
  std::copy(s.mac_src, s.mac_src + 6, f.begin() + 6);
  Put16(f, 12, 0x86dd);
  f[14] = 0x60, f[15] = f[16] = f[17] = 0;
  Put16(f, 18, static_cast<uint16_t>(8 + n));
  f[20] = 17, f[21] = 64;
  for (int k = 0; k < 16; k++) f[22 + k] = V6Addr(s.src, k), f[38 + k] = V6Addr(s.dst, k);
  Put16(f, 54, 55555);
  Put16(f, 56, 9000);
  Put16(f, 58, static_cast<uint16_t>(8 + n));
  FixL4Csum(f, 14, 54, 17, 6);
  return f;
}

TEST(KernelGroUdpRules, Ipv6DatagramsMergeForForwarding) {
  const std::vector<Bytes> d = {Datagram6(600, 1), Datagram6(600, 2), Datagram6(600, 3)};
  GroCell g(Fwd());
  for (const Bytes& f : d) g.Receive(DriverSkb(f, IpSummed::kUnnecessary));
  auto out = g.Flush();
  ASSERT_EQ(out.size(), 1u) << g.last_reason();
  // First datagram's headers, the three payloads; payload_len and uh->len
  // the whole UDP length; the check field the folded pseudo-header sum.
  Bytes want(d[0].begin(), d[0].begin() + 62);
  for (const Bytes& f : d) want.insert(want.end(), f.begin() + 62, f.end());
  const uint32_t ulen = static_cast<uint32_t>(want.size() - 54);
  Put16(want, 18, static_cast<uint16_t>(ulen));
  Put16(want, 58, static_cast<uint16_t>(ulen));
  Put16(want, 60, PseudoFold6(&want[22], &want[38], 17, ulen));
  EXPECT_EQ(out[0].pkt.bytes(), want);
  EXPECT_EQ(out[0].gso_type, kernel::gso::kUdpL4);
  EXPECT_EQ(out[0].gso_segs, 3);
  EXPECT_EQ(out[0].ip_summed, IpSummed::kPartial);
  EXPECT_EQ(out[0].csum_start, 54);
  EXPECT_EQ(out[0].csum_offset, 6);
}

TEST(KernelGroUdpRules, DatagramWithABadChecksumGoesUpUnmerged) {
  Bytes bad = Datagram4(600, 2);
  bad[40] ^= 0x01;  // the UDP check field
  GroCell g(Fwd());
  EXPECT_EQ(g.Receive(DriverSkb(Datagram4(600, 1))), GroResult::kHeld);
  EXPECT_EQ(g.Receive(DriverSkb(bad)), GroResult::kNormal);
  EXPECT_EQ(g.stats().not_validated.at("udp_csum"), 1u);
  auto out = g.Flush();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].pkt.bytes(), bad);  // handed up at once, before the held one
}

TEST(KernelGroUdpRules, FraglistNeedsTheSameChecksumLevel) {
  GroConfig c;
  c.features = kernel::netif::kGro | kernel::netif::kGroFraglist;
  GroCell g(c);
  const Bytes a = Datagram4(600, 1), b = Datagram4(600, 2);
  EXPECT_EQ(g.Receive(DriverSkb(a, IpSummed::kUnnecessary, 0)), GroResult::kHeld);
  EXPECT_EQ(g.Receive(DriverSkb(b, IpSummed::kUnnecessary, 1)), GroResult::kNormal);
  auto out = g.Flush();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].pkt.bytes(), b);
  EXPECT_EQ(out[0].csum_level, 1);
  EXPECT_EQ(out[1].pkt.bytes(), a);
  EXPECT_EQ(g.stats().merged, 0u);
}

TEST(KernelGroUdpRules, Linux314CompleteUdpWithoutTunnelSocketIsNotHeld) {
  GroConfig c;
  c.kv = {3, 14};
  GroCell g(c);
  EXPECT_EQ(g.Receive(DriverSkb(Datagram4(600, 1), IpSummed::kComplete)), GroResult::kNormal);
  EXPECT_EQ(g.last_reason(), "udp_no_tunnel");
}

TEST(KernelGroUdpRules, Linux310Ipv6CompleteSumIsPulledPastTheHeader) {
  Seg s;
  s.ipv6 = true;
  const auto segs = SegTrain(2, s);
  GroConfig c;
  c.kv = {3, 10};
  GroCell g(c);
  for (const Bytes& f : segs) g.Receive(DriverSkb(f, IpSummed::kComplete));
  auto out = g.Flush();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(g.stats().merged, 1u);
  EXPECT_EQ(out[0].pkt.bytes(), ExpectedMerged(segs, 54, 20));
  // A segment whose TCP checksum is wrong fails tcp_v6_check: not merged.
  Seg bad = s;
  bad.bad_tcp_csum = true;
  GroCell h(c);
  h.Receive(DriverSkb(TcpFrame(s), IpSummed::kComplete));
  bad.seq += 1000;
  EXPECT_EQ(h.Receive(DriverSkb(TcpFrame(bad), IpSummed::kComplete)), GroResult::kNormal);
}

}  // namespace
}  // namespace offlab::testing
