// The local receive checks (stack_rx) on frames built here by hand, with
// checksums from a plain 16-bit loop (RFC 1071). Counter names and which
// ones move follow the lab kernel (6.18): a bad IPv4 header checksum bumps
// Ip:InHdrErrors and IpExt:InCsumErrors; a bad UDP checksum Udp:InCsumErrors
// and Udp:InErrors; a zero UDP checksum over IPv6 Udp6InCsumErrors and
// Udp6InErrors.
#include <gtest/gtest.h>

#include <cstdint>

#include "offlab/linux/stack_rx.h"
#include "offlab/net/bytes.h"
#include "offlab/net/counters.h"
#include "test_util.h"

namespace offlab::kernel {
namespace {

uint32_t Sum16(const Bytes& b, size_t from, size_t to, uint32_t acc = 0) {
  for (size_t i = from; i < to; i += 2) {
    acc += static_cast<uint32_t>(b[i] << 8) | (i + 1 < to ? b[i + 1] : 0);
    acc = (acc & 0xffff) + (acc >> 16);
  }
  return acc;
}
uint16_t Fold(uint32_t a) {
  while (a >> 16) a = (a & 0xffff) + (a >> 16);
  return static_cast<uint16_t>(a);
}
using testing::Put16;

// Ethernet + IPv4 (10.0.0.1 -> 10.0.0.2) + an L4 header of `l4_hdr`
// bytes and `payload` bytes of 0x5a, with both checksums right.
Bytes Frame4(uint8_t proto, size_t payload, uint16_t csum_field) {
  const size_t l4_hdr = proto == 6 ? 20 : 8;
  Bytes b(14 + 20 + l4_hdr + payload, 0x5a);
  for (size_t i = 0; i < 12; ++i) b[i] = static_cast<uint8_t>(i < 6 ? 0x02 : 0x04);
  Put16(b, 12, 0x0800);
  const uint16_t tot = static_cast<uint16_t>(20 + l4_hdr + payload);
  const uint8_t ip[20] = {0x45, 0, 0,  0, 0x12, 0x34, 0x40, 0, 64, proto,
                          0,    0, 10, 0, 0,    1,    10,   0, 0,  2};
  std::copy(ip, ip + 20, b.begin() + 14);
  Put16(b, 16, tot);
  Put16(b, 24, static_cast<uint16_t>(~Fold(Sum16(b, 14, 34))));
  std::fill(b.begin() + 34, b.begin() + 34 + l4_hdr, 0);
  Put16(b, 34, 1000);
  Put16(b, 36, 2000);
  if (proto == 17) Put16(b, 38, static_cast<uint16_t>(l4_hdr + payload));
  if (proto == 6) b[46] = 0x50;  // doff 5
  const uint32_t pseudo = Sum16(b, 26, 34) + proto + (l4_hdr + payload);
  uint16_t c = static_cast<uint16_t>(~Fold(Sum16(b, 34, b.size(), pseudo)));
  if (proto == 17 && c == 0) c = 0xffff;
  Put16(b, 34 + csum_field, c);
  return b;
}

// Ethernet + IPv6 (fd00::1 -> fd00::2) + UDP with `payload` bytes.
Bytes Frame6Udp(size_t payload, bool zero) {
  Bytes b(14 + 40 + 8 + payload, 0x5a);
  Put16(b, 12, 0x86dd);
  std::fill(b.begin() + 14, b.begin() + 62, 0);
  b[14] = 0x60;
  Put16(b, 18, static_cast<uint16_t>(8 + payload));
  b[20] = 17;
  b[21] = 64;
  b[22] = 0xfd;
  b[37] = 1;
  b[38] = 0xfd;
  b[53] = 2;
  Put16(b, 54, 1000);
  Put16(b, 56, 2000);
  Put16(b, 58, static_cast<uint16_t>(8 + payload));
  if (!zero) {
    const uint32_t pseudo = Sum16(b, 22, 54) + 17 + (8 + payload);
    Put16(b, 60, static_cast<uint16_t>(~Fold(Sum16(b, 54, b.size(), pseudo))));
  }
  return b;
}

SkBuff Skb(const Bytes& b, IpSummed s = IpSummed::kNone) {
  SkBuff k;
  k.pkt = Packet(b);
  k.ip_summed = s;
  return k;
}

StackRxConfig Listening(uint16_t port) {
  StackRxConfig c;
  c.udp_ports = {port};
  return c;
}

TEST(KernelStackRxIp, BadHeaderChecksumCountsHdrAndCsumErrors) {
  Bytes b = Frame4(17, 10, 6);
  b[24] ^= 0x40;
  Counters c;
  SkBuff s = Skb(b);
  auto r = StackRcv(s, Listening(2000), kLabKernel, &c);
  EXPECT_EQ(r.verdict.reason, "IP_CSUM");
  EXPECT_EQ(c.Get("Ip:InReceives"), 1u);
  EXPECT_EQ(c.Get("Ip:InHdrErrors"), 1u);
  EXPECT_EQ(c.Get("IpExt:InCsumErrors"), 1u);
  EXPECT_EQ(c.Get("IpExt:InOctets"), b.size() - 14);
  EXPECT_EQ(c.Get("Ip:InDelivers"), 0u);
}

TEST(KernelStackRxIp, AFragmentWaitsForAReassemblyTheModelDoesNotDo) {
  // ip_local_deliver hands fragments to ip_defrag; the model stops there and
  // says so instead of delivering part of a datagram.
  Bytes b = Frame4(17, 10, 6);
  Put16(b, 20, 0x2000);  // MF, offset 0
  Put16(b, 24, 0);
  Put16(b, 24, static_cast<uint16_t>(~Fold(Sum16(b, 14, 34))));
  SkBuff s = Skb(b);
  const auto v = StackRcv(s, {}, kLabKernel, nullptr).verdict;
  EXPECT_FALSE(v.delivered);
  EXPECT_EQ(v.reason, "FRAG_REASM (not modelled)");
}

TEST(KernelStackRxIp, TruncatedAndMalformedHeaders) {
  Bytes b = Frame4(17, 10, 6);
  Counters c;
  SkBuff s = Skb(Bytes(b.begin(), b.end() - 4));
  EXPECT_EQ(StackRcv(s, {}, kLabKernel, &c).verdict.reason, "PKT_TOO_SMALL");
  EXPECT_EQ(c.Get("IpExt:InTruncatedPkts"), 1u);
  EXPECT_EQ(c.Get("Ip:InHdrErrors"), 0u);
  // Shorter than an Ethernet header: dropped before any layer counts it.
  Counters none;
  SkBuff runt = Skb(Bytes(b.begin(), b.begin() + 10));
  const auto runt_v = StackRcv(runt, {}, kLabKernel, &none).verdict;
  EXPECT_FALSE(runt_v.delivered);
  EXPECT_EQ(runt_v.reason, "PKT_TOO_SMALL");
  EXPECT_TRUE(none.values().empty());
  Bytes v = b;
  v[14] = 0x55;  // version 5
  s = Skb(v);
  StackRcv(s, {}, kLabKernel, &c);
  EXPECT_EQ(c.Get("Ip:InHdrErrors"), 1u);
  EXPECT_EQ(c.Get("IpExt:InCsumErrors"), 0u);
  // Ethernet padding is trimmed before UDP looks at the packet.
  Bytes pad = b;
  pad.resize(pad.size() + 6, 0xee);
  s = Skb(pad);
  EXPECT_TRUE(StackRcv(s, Listening(2000), kLabKernel, &c).verdict.delivered);
  EXPECT_EQ(s.len(), b.size());
}

TEST(KernelStackRxIp, TrimKeepsCompleteFrom420AndDropsItBefore) {
  Bytes b = Frame4(17, 11, 6);  // odd payload: the padding starts at an odd offset
  Bytes pad = b;
  pad.resize(pad.size() + 5, 0x77);
  SkBuff s = Skb(pad, IpSummed::kComplete);
  s.csum = Fold(Sum16(pad, 14, pad.size()));
  s.csum_from = 14;
  SkBuff old = s;
  EXPECT_TRUE(StackRcv(s, Listening(2000), kLabKernel).verdict.delivered);
  EXPECT_EQ(s.ip_summed, IpSummed::kComplete);
  EXPECT_TRUE(s.csum_valid);
  EXPECT_TRUE(StackRcv(old, Listening(2000), {4, 19}).verdict.delivered);
  // 4.19 forgot the device sum and verified in software instead.
  EXPECT_EQ(old.ip_summed, IpSummed::kComplete);
  EXPECT_EQ(old.csum_from, 34);
}

TEST(KernelStackRxIp, Ipv6TruncatedAndOtherHost) {
  Bytes b = Frame6Udp(10, false);
  Counters c;
  SkBuff s = Skb(Bytes(b.begin(), b.end() - 1));
  EXPECT_FALSE(StackRcv(s, {}, kLabKernel, &c).verdict.delivered);
  EXPECT_EQ(c.Get("Ip6InTruncatedPkts"), 1u);
  EXPECT_EQ(c.Get("Ip6InReceives"), 1u);
  StackRxConfig cfg;
  cfg.dev_mac = std::array<uint8_t, 6>{0x02, 0, 0, 0, 0, 1};
  s = Skb(b);
  EXPECT_EQ(StackRcv(s, cfg, kLabKernel, &c).pkt_type, PktType::kOtherHost);
  EXPECT_EQ(c.Get("Ip6InReceives"), 1u);  // dropped before the IP counters
}

TEST(KernelStackRxUdp, BadChecksumCountsCsumErrorsAndInErrors) {
  Bytes b = Frame4(17, 100, 6);
  b[60] ^= 0xff;
  Counters c;
  SkBuff s = Skb(b);
  EXPECT_EQ(StackRcv(s, Listening(2000), kLabKernel, &c).verdict.reason, "UDP_CSUM");
  EXPECT_EQ(c.Get("Udp:InCsumErrors"), 1u);
  EXPECT_EQ(c.Get("Udp:InErrors"), 1u);
  EXPECT_EQ(c.Get("Udp:InDatagrams"), 0u);
  // Without a socket: checksum first, so the same counters, no NoPorts.
  s = Skb(b);
  StackRcv(s, {}, kLabKernel, &c);
  EXPECT_EQ(c.Get("Udp:InCsumErrors"), 2u);
  EXPECT_EQ(c.Get("Udp:NoPorts"), 0u);
  s = Skb(Frame4(17, 100, 6));
  EXPECT_EQ(StackRcv(s, {}, kLabKernel, &c).verdict.reason, "NO_SOCKET");
  EXPECT_EQ(c.Get("Udp:NoPorts"), 1u);
}

TEST(KernelStackRxUdp, CompleteSumFromTheMacHeaderIsPulledLikeTheDriversOwn) {
  // A COMPLETE sum that starts at the MAC header (veth, or a driver that
  // sums the whole frame) loses the Ethernet header in eth_type_trans's
  // skb_postpull_rcsum: the stack then sees what a sum from the network
  // header gives, for a good and for a wrong UDP checksum.
  for (bool bad : {false, true}) {
    Bytes b = Frame4(17, 100, 6);
    if (bad) b[60] ^= 0xff;
    Counters from_mac, from_ip;
    SkBuff m = Skb(b, IpSummed::kComplete);
    m.csum_from = 0;
    m.csum = Sum16(b, 0, b.size());
    SkBuff n = Skb(b, IpSummed::kComplete);
    n.csum_from = 14;
    n.csum = Sum16(b, 14, b.size());
    const auto vm = StackRcv(m, Listening(2000), kLabKernel, &from_mac).verdict;
    const auto vn = StackRcv(n, Listening(2000), kLabKernel, &from_ip).verdict;
    EXPECT_EQ(vm.delivered, !bad);
    EXPECT_EQ(vm.delivered, vn.delivered);
    EXPECT_EQ(vm.reason, vn.reason);
    EXPECT_EQ(from_mac.values(), from_ip.values()) << bad;
    EXPECT_EQ(from_mac.Get("Udp:InCsumErrors"), bad ? 1u : 0u);
  }
}

TEST(KernelStackRxUdp, ZeroChecksumIpv4AcceptedIpv6RefusedUnlessAllowed) {
  Bytes b = Frame4(17, 20, 6);
  Put16(b, 40, 0);
  Counters c;
  SkBuff s = Skb(b);
  EXPECT_TRUE(StackRcv(s, Listening(2000), kLabKernel, &c).verdict.delivered);
  EXPECT_EQ(c.Get("Udp:InDatagrams"), 1u);
  s = Skb(Frame6Udp(20, true));
  EXPECT_EQ(StackRcv(s, Listening(2000), kLabKernel, &c).verdict.reason, "UDP_CSUM");
  EXPECT_EQ(c.Get("Udp6InCsumErrors"), 1u);
  EXPECT_EQ(c.Get("Udp6InErrors"), 1u);
  StackRxConfig allow = Listening(2000);
  allow.udp_no_check6_rx = true;
  s = Skb(Frame6Udp(20, true));
  EXPECT_TRUE(StackRcv(s, allow, kLabKernel, &c).verdict.delivered);
  EXPECT_EQ(c.Get("Udp6InDatagrams"), 1u);
  s = Skb(Frame6Udp(20, false));
  EXPECT_TRUE(StackRcv(s, Listening(2000), kLabKernel, &c).verdict.delivered);
}

TEST(KernelStackRxUdp, LengthBeyondPacketIsAnInError) {
  Bytes b = Frame4(17, 20, 6);
  Put16(b, 38, 200);
  Counters c;
  SkBuff s = Skb(b);
  EXPECT_EQ(StackRcv(s, Listening(2000), kLabKernel, &c).verdict.reason, "PKT_TOO_SMALL");
  EXPECT_EQ(c.Get("Udp:InErrors"), 1u);
  EXPECT_EQ(c.Get("Udp:InCsumErrors"), 0u);
}

TEST(KernelStackRxTcp, ChecksumByIpSummed) {
  const Bytes good = Frame4(6, 200, 16);
  Bytes bad = good;
  bad[100] ^= 0x01;
  Counters c;
  SkBuff s = Skb(bad);
  EXPECT_EQ(StackRcv(s, {}, kLabKernel, &c).verdict.reason, "TCP_CSUM");
  EXPECT_EQ(c.Get("Tcp:InSegs"), 1u);
  EXPECT_EQ(c.Get("Tcp:InCsumErrors"), 1u);
  EXPECT_EQ(c.Get("Tcp:InErrs"), 1u);
  // The device vouched for it: not looked at.
  s = Skb(bad, IpSummed::kUnnecessary);
  EXPECT_TRUE(StackRcv(s, {}, kLabKernel, &c).verdict.delivered);
  // A local sender's PARTIAL (field = pseudo-header sum, never finished).
  Bytes partial = good;
  Put16(partial, 50, Fold(Sum16(partial, 26, 34) + 6 + 220));
  s = Skb(partial, IpSummed::kPartial);
  s.csum_start = 34;
  s.csum_offset = 16;
  EXPECT_TRUE(StackRcv(s, {}, kLabKernel, &c).verdict.delivered);
  // COMPLETE: the device's sum of the bytes decides, with no second look
  // when it verifies; a sum that does not verify is rechecked in software
  // (it could be the device's fault) and the segment dropped.
  s = Skb(good, IpSummed::kComplete);
  s.csum = Fold(Sum16(good, 14, good.size()));
  s.csum_from = 14;
  EXPECT_TRUE(StackRcv(s, {}, kLabKernel, &c).verdict.delivered);
  s = Skb(bad, IpSummed::kComplete);
  s.csum = Fold(Sum16(good, 14, good.size()));  // summed before the corruption
  s.csum_from = 14;
  EXPECT_TRUE(StackRcv(s, {}, kLabKernel, &c).verdict.delivered);
  s = Skb(bad, IpSummed::kComplete);
  s.csum = Fold(Sum16(bad, 14, bad.size()));
  s.csum_from = 14;
  EXPECT_FALSE(StackRcv(s, {}, kLabKernel, &c).verdict.delivered);
  EXPECT_EQ(c.Get("Tcp:InCsumErrors"), 2u);
  EXPECT_EQ(c.Get("Tcp:InSegs"), 6u);
}

TEST(KernelStackRxTcp, ShortDataOffsetIsInErrsOnly) {
  Bytes b = Frame4(6, 0, 16);
  b[46] = 0x40;  // doff 4
  Counters c;
  SkBuff s = Skb(b);
  EXPECT_EQ(StackRcv(s, {}, kLabKernel, &c).verdict.reason, "PKT_TOO_SMALL");
  EXPECT_EQ(c.Get("Tcp:InErrs"), 1u);
  EXPECT_EQ(c.Get("Tcp:InCsumErrors"), 0u);
}

TEST(KernelStackRxUdp, OnlyTheBoundPortHasASocket) {
  // __udp4_lib_lookup finds a socket by the exact destination port: a bound
  // port above or below the datagram's (2000) is no socket for it.
  for (uint16_t bound : {uint16_t{1999}, uint16_t{2001}, uint16_t{65535}}) {
    Counters c;
    SkBuff s = Skb(Frame4(17, 100, 6));
    EXPECT_EQ(StackRcv(s, Listening(bound), kLabKernel, &c).verdict.reason, "NO_SOCKET") << bound;
    EXPECT_EQ(c.Get("Udp:NoPorts"), 1u);
  }
  Counters c;
  SkBuff s = Skb(Frame4(17, 100, 6));
  EXPECT_TRUE(StackRcv(s, Listening(2000), kLabKernel, &c).verdict.reason.empty());
  EXPECT_EQ(c.Get("Udp:InDatagrams"), 1u);
}

}  // namespace
}  // namespace offlab::kernel
