// The Geneve driver model (drivers/net/geneve.c). This machine has no geneve
// module, so every expected frame is built here by hand: the Geneve header
// from RFC 8926 section 3.4, checksums with a plain 16-bit loop (RFC 1071),
// never with offlab::csum or the code under test.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "offlab/linux/geneve.h"
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
uint16_t At16(const Bytes& b, size_t o) { return static_cast<uint16_t>(b[o] << 8 | b[o + 1]); }
using testing::Put16;
void Append(Bytes& b, std::initializer_list<int> v) {
  for (int x : v) b.push_back(static_cast<uint8_t>(x));
}
// Pseudo-header sums for the IP header at `ip`.
uint32_t Pseudo4(const Bytes& b, size_t ip, uint16_t len) {
  return Sum16(b, ip + 12, ip + 20) + 17 + len;
}
uint32_t Pseudo6(const Bytes& b, size_t ip, uint16_t len) {
  return Sum16(b, ip + 8, ip + 40) + 17 + len;
}
bool UdpVerifies(const Bytes& b, size_t ip, size_t l4, bool v6) {
  const uint16_t len = static_cast<uint16_t>(b.size() - l4);
  return Fold(Sum16(b, l4, b.size(), v6 ? Pseudo6(b, ip, len) : Pseudo4(b, ip, len))) == 0xffff;
}

// Inner frame 02:..:01:0b -> 02:..:01:0a, 192.168.42.2:34904 ->
// 192.168.42.1:5555 "hello-offlab"; `full` = a finished UDP checksum, else
// the pseudo-header sum a CHECKSUM_PARTIAL sender leaves in the field.
Bytes Inner(bool full) {
  Bytes b;
  Append(b, {2, 0, 0, 0, 1, 0x0a, 2, 0, 0, 0, 1, 0x0b, 0x08, 0x00});
  Append(b, {0x45, 0, 0,   0x28, 0x2a, 0xf4, 0x40, 0,   0x40, 0x11,
             0,    0, 192, 168,  42,   2,    192,  168, 42,   1});
  Put16(b, 24, static_cast<uint16_t>(~Fold(Sum16(b, 14, 34))));
  Append(b, {0x88, 0x58, 0x15, 0xb3, 0x00, 0x14, 0, 0});
  for (char ch : std::string("hello-offlab")) b.push_back(static_cast<uint8_t>(ch));
  const uint32_t ph = Pseudo4(b, 14, 20);
  Put16(b, 40, full ? static_cast<uint16_t>(~Fold(Sum16(b, 34, b.size(), ph))) : Fold(ph));
  return b;
}

const std::array<uint8_t, 16> kV6Remote = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
const std::array<uint8_t, 16> kV6Local = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};

// The outer frame: Ethernet, IPv4 10.1.0.1 -> 10.1.0.2 (ID 0x1234, TTL 64)
// or IPv6 fd00::1 -> fd00::2, UDP 49152 -> 6081 (checksum computed or 0),
// Geneve (RFC 8926: ver|opt_len, O|C, protocol 0x6558, VNI, reserved),
// options, inner frame.
struct Outer {
  bool v6 = false;
  bool csum = true;
  uint8_t flags = 0;  // O|C byte
  uint8_t ver = 0;
  uint32_t vni = 42;
  Bytes options;
  uint8_t tos = 0;
};
Bytes BuildOuter(const Outer& o, const Bytes& inner) {
  Bytes b;
  Append(b, {2, 0, 0, 0, 0, 0x0b, 2, 0, 0, 0, 0, 0x0a});
  const size_t udp_len = 8 + 8 + o.options.size() + inner.size();
  size_t l4 = 0;
  if (!o.v6) {
    Append(b, {0x08, 0x00, 0x45, o.tos, 0, 0, 0x12, 0x34, 0, 0, 64,
               17,   0,    0,    10,    1, 0, 1,    10,   1, 0, 2});
    Put16(b, 16, static_cast<uint16_t>(20 + udp_len));
    Put16(b, 24, static_cast<uint16_t>(~Fold(Sum16(b, 14, 34))));
    l4 = 34;
  } else {
    Append(b, {0x86, 0xdd, 0x60 | (o.tos >> 4), (o.tos & 0xf) << 4, 0, 0, 0, 0, 17, 64});
    Put16(b, 18, static_cast<uint16_t>(udp_len));
    b.insert(b.end(), kV6Remote.begin(), kV6Remote.end());
    b.insert(b.end(), kV6Local.begin(), kV6Local.end());
    l4 = 54;
  }
  Append(b, {0xc0, 0x00, 0x17, 0xc1, 0, 0, 0, 0});
  Put16(b, l4 + 4, static_cast<uint16_t>(udp_len));
  Append(b, {(o.ver << 6) | static_cast<int>(o.options.size() / 4), o.flags, 0x65, 0x58,
             static_cast<int>(o.vni >> 16 & 0xff), static_cast<int>(o.vni >> 8 & 0xff),
             static_cast<int>(o.vni & 0xff), 0});
  b.insert(b.end(), o.options.begin(), o.options.end());
  b.insert(b.end(), inner.begin(), inner.end());
  if (o.csum) {
    const uint32_t ph = o.v6 ? Pseudo6(b, 14, static_cast<uint16_t>(udp_len))
                             : Pseudo4(b, 14, static_cast<uint16_t>(udp_len));
    uint16_t c = static_cast<uint16_t>(~Fold(Sum16(b, l4, b.size(), ph)));
    Put16(b, l4 + 6, c ? c : 0xffff);
  }
  return b;
}

GeneveConfig TxConfig() {
  GeneveConfig c;
  c.vni = 42;
  c.local = {10, 1, 0, 2};
  c.remote = {10, 1, 0, 1};
  return c;
}
GeneveConfig RxConfig(bool v6 = false) {
  GeneveConfig c = TxConfig();
  c.mac = {2, 0, 0, 0, 1, 0x0a};
  c.ipv6 = v6;
  if (v6) {
    c.local = kV6Local;
    c.remote = kV6Remote;
  }
  return c;
}
UnderlayRoute Route() {
  UnderlayRoute r;
  r.src_mac = {2, 0, 0, 0, 0, 0x0b};
  r.dst_mac = {2, 0, 0, 0, 0, 0x0a};
  r.ip_id = 0x074f;
  r.flow_hash = 0;  // udp_flow_src_port(1, 65535) of hash 0 is 1
  return r;
}
SkBuff Skb(const Bytes& b, IpSummed s = IpSummed::kNone) {
  SkBuff k;
  k.pkt = Packet(b);
  k.ip_summed = s;
  if (s == IpSummed::kPartial) {
    k.csum_start = 34;
    k.csum_offset = 6;
  }
  return k;
}

// The frame geneve_xmit_skb is expected to send for Inner(false): IPv4
// 10.1.0.2 -> 10.1.0.1, ID 0x074f, no DF, TTL 64 (route), UDP 1 -> 6081.
Bytes ExpectedTx4(const Bytes& inner, const Bytes& opts, uint16_t udp_check) {
  Bytes b;
  Append(b, {2, 0, 0, 0, 0, 0x0a, 2, 0, 0, 0, 0, 0x0b, 0x08, 0x00});
  const size_t udp_len = 16 + opts.size() + inner.size();
  Append(b, {0x45, 0, 0, 0, 0x07, 0x4f, 0, 0, 64, 17, 0, 0, 10, 1, 0, 2, 10, 1, 0, 1});
  Put16(b, 16, static_cast<uint16_t>(20 + udp_len));
  Put16(b, 24, static_cast<uint16_t>(~Fold(Sum16(b, 14, 34))));
  Append(b, {0, 1, 0x17, 0xc1, 0, 0, 0, 0});
  Put16(b, 38, static_cast<uint16_t>(udp_len));
  Put16(b, 40, udp_check);
  Append(b, {static_cast<int>(opts.size() / 4), 0, 0x65, 0x58, 0, 0, 42, 0});
  b.insert(b.end(), opts.begin(), opts.end());
  b.insert(b.end(), inner.begin(), inner.end());
  return b;
}

TEST(KernelGeneveXmit, Ipv4DefaultIsNoOuterChecksumUnlikeVxlan) {
  EXPECT_FALSE(GeneveConfig{}.UdpCsumTx());
  GeneveConfig six;
  six.ipv6 = true;
  EXPECT_TRUE(six.UdpCsumTx());  // an IPv6 remote starts with TUNNEL_CSUM
  Counters c;
  const Bytes inner = Inner(false);
  auto r = GeneveXmit(Skb(inner, IpSummed::kPartial), TxConfig(), Route(), kLabKernel, &c);
  ASSERT_TRUE(r.sent) << r.reason;
  EXPECT_EQ(ToHex(r.skb.pkt.bytes()), ToHex(ExpectedTx4(inner, {}, 0)));
  // The inner UDP is still the device's to finish, 50 bytes further on.
  EXPECT_EQ(r.skb.ip_summed, IpSummed::kPartial);
  EXPECT_EQ(r.skb.csum_start, 84);
  EXPECT_EQ(r.skb.csum_offset, 6);
  EXPECT_TRUE(r.skb.encapsulation);
  // The skb came without header offsets (Skb() sets none): the inner network
  // and transport headers are found behind the IPv4 ethertype, after the
  // outer 14 + 20 + 8 + 8 bytes and the inner Ethernet header (by hand).
  EXPECT_EQ(r.skb.pkt.inner_l3_ofs, 64);
  EXPECT_EQ(r.skb.pkt.inner_l4_ofs, 84);
  EXPECT_EQ(c.Get("geneve0:tx_packets"), 1u);
  EXPECT_EQ(c.Get("geneve0:tx_bytes"), 40u);  // from the inner IP header
}

TEST(KernelGeneveXmit, UdpCsumWithPartialInnerUsesLocalChecksumOffload) {
  GeneveConfig cfg = TxConfig();
  cfg.udp_csum = true;
  const Bytes inner = Inner(false);
  auto r = GeneveXmit(Skb(inner, IpSummed::kPartial), cfg, Route());
  ASSERT_TRUE(r.sent);
  Bytes got = r.skb.pkt.bytes();
  ASSERT_EQ(got.size(), 104u);
  const uint16_t outer = At16(got, 40);
  EXPECT_NE(outer, 0);
  Put16(got, 40, 0);
  EXPECT_EQ(ToHex(got), ToHex(ExpectedTx4(inner, {}, 0)));
  // Once the device fills the inner checksum both UDP checksums verify.
  Put16(got, 40, outer);
  Put16(got, 90, 0);
  Put16(got, 90, static_cast<uint16_t>(~Fold(Sum16(got, 84, got.size(), Pseudo4(got, 64, 20)))));
  EXPECT_TRUE(UdpVerifies(got, 64, 84, false));
  EXPECT_TRUE(UdpVerifies(got, 14, 34, false));
  EXPECT_EQ(r.skb.ip_summed, IpSummed::kPartial);
  EXPECT_EQ(r.skb.csum_start, 84);
}

TEST(KernelGeneveXmit, OptionsAndGsoTypeWithChecksum) {
  GeneveConfig cfg = TxConfig();
  cfg.udp_csum = true;
  cfg.options = {0x01, 0x02, 0x03, 0x01, 0xaa, 0xbb, 0xcc, 0xdd};  // one 4-byte option
  const Bytes inner = Inner(false);
  SkBuff s = Skb(inner, IpSummed::kPartial);
  s.gso_size = 4;
  s.gso_type = gso::kUdpL4;
  auto r = GeneveXmit(s, cfg, Route());
  ASSERT_TRUE(r.sent);
  EXPECT_EQ(r.skb.gso_type, gso::kUdpL4 | gso::kUdpTunnelCsum);
  const Bytes& got = r.skb.pkt.bytes();
  // GSO: the field holds the folded pseudo-header for segmentation.
  const uint16_t ulen = static_cast<uint16_t>(got.size() - 34);
  EXPECT_EQ(At16(got, 40), Fold(Pseudo4(got, 14, ulen)));
  // opt_len 2 words, protocol TEB, VNI 42, then the option bytes.
  EXPECT_EQ(ToHex(Bytes(got.begin() + 42, got.begin() + 58)), "0200655800002a0001020301aabbccdd");
  cfg.udp_csum = false;
  r = GeneveXmit(s, cfg, Route());
  EXPECT_EQ(r.skb.gso_type, gso::kUdpL4 | gso::kUdpTunnel);
  EXPECT_EQ(At16(r.skb.pkt.bytes(), 40), 0);
}

TEST(KernelGeneveXmit, Ipv6UnderlayChecksumAndZeroCsumTx) {
  GeneveConfig cfg = TxConfig();
  cfg.ipv6 = true;
  cfg.local = kV6Local;
  cfg.remote = kV6Remote;
  const Bytes inner = Inner(true);
  auto r = GeneveXmit(Skb(inner), cfg, Route());
  ASSERT_TRUE(r.sent);
  const Bytes& got = r.skb.pkt.bytes();
  ASSERT_EQ(got.size(), 14u + 40 + 16 + inner.size());
  EXPECT_EQ(At16(got, 12), 0x86dd);
  EXPECT_EQ(got[20], 17);
  // A finished inner packet: the outer UDP becomes PARTIAL with the
  // pseudo-header sum in the field (udp6_set_csum).
  const uint16_t ulen = static_cast<uint16_t>(got.size() - 54);
  EXPECT_EQ(At16(got, 58), ulen);
  EXPECT_EQ(At16(got, 60), Fold(Pseudo6(got, 14, ulen)));
  EXPECT_EQ(r.skb.ip_summed, IpSummed::kPartial);
  EXPECT_EQ(r.skb.csum_start, 54);
  EXPECT_EQ(r.skb.csum_offset, 6);
  cfg.udp6_zero_csum_tx = true;
  r = GeneveXmit(Skb(inner), cfg, Route());
  ASSERT_TRUE(r.sent);
  EXPECT_EQ(At16(r.skb.pkt.bytes(), 60), 0);
  EXPECT_NE(r.skb.ip_summed, IpSummed::kPartial);
}

TEST(KernelGeneveXmit, SourcePortFromTheFlowHashOverOneTo65535) {
  // include/net/udp.h udp_flow_src_port: hash ^= hash << 16, then
  // min + ((hash * (max - min)) >> 32); geneve passes 1 and USHRT_MAX.
  // 0x12345678 ^ 0x56780000 = 0x444c5678; * 65534 >> 32 = 17483 (0x444b).
  UnderlayRoute rt = Route();
  rt.flow_hash = 0x12345678;
  auto r = GeneveXmit(Skb(Inner(true)), TxConfig(), rt);
  ASSERT_TRUE(r.sent);
  EXPECT_EQ(At16(r.skb.pkt.bytes(), 34), 0x444b + 1);
  GeneveConfig cfg = TxConfig();
  cfg.port_min = 40000;
  cfg.port_max = 40001;  // srcport 40000 40001: one port
  r = GeneveXmit(Skb(Inner(true)), cfg, rt);
  EXPECT_EQ(At16(r.skb.pkt.bytes(), 34), 40000);
}

TEST(KernelGeneveXmit, ShortFrameIsATxError) {
  Counters c;
  Bytes b = Inner(true);
  b.resize(20);
  auto r = GeneveXmit(Skb(b), TxConfig(), Route(), kLabKernel, &c);
  EXPECT_FALSE(r.sent);
  EXPECT_EQ(c.Get("geneve0:tx_errors"), 1u);
}

TEST(KernelGeneveRcv, GoodOuterChecksumDeliversInnerWithOptionsPulled) {
  Counters c;
  Outer o;
  o.options = {0x01, 0x02, 0x03, 0x01, 0xaa, 0xbb, 0xcc, 0xdd};
  const Bytes inner = Inner(true);
  auto r = GeneveRcv(Skb(BuildOuter(o, inner)), RxConfig(), kLabKernel, &c);
  ASSERT_TRUE(r.delivered) << r.reason;
  EXPECT_EQ(ToHex(r.skb.pkt.bytes()), ToHex(inner));
  EXPECT_EQ(r.skb.pkt.l3_ofs, 14);
  EXPECT_EQ(r.skb.pkt.l4_ofs, 34);
  // The socket verified the outer checksum in software: COMPLETE over what
  // is left, from the inner IP header after the pulls.
  EXPECT_EQ(r.skb.ip_summed, IpSummed::kComplete);
  EXPECT_EQ(r.skb.csum_from, 14);
  EXPECT_EQ(Fold(r.skb.csum + Pseudo4(inner, 14, 20)), 0xffff);
  EXPECT_FALSE(r.skb.encapsulation);
  EXPECT_EQ(c.Get("Udp:InDatagrams"), 1u);
  EXPECT_EQ(c.Get("geneve0:rx_packets"), 1u);
  EXPECT_EQ(c.Get("geneve0:rx_bytes"), 40u);
}

TEST(KernelGeneveRcv, BadOuterChecksumIsDroppedAndCounted) {
  Counters c;
  Bytes b = BuildOuter(Outer{}, Inner(true));
  Put16(b, 40, static_cast<uint16_t>(At16(b, 40) ^ 0x0100));
  auto r = GeneveRcv(Skb(b), RxConfig(), kLabKernel, &c);
  EXPECT_FALSE(r.delivered);
  EXPECT_EQ(c.Get("Udp:InCsumErrors"), 1u);
  EXPECT_EQ(c.Get("Udp:InErrors"), 1u);
  EXPECT_EQ(c.Get("Udp:InDatagrams"), 0u);
  EXPECT_EQ(c.Get("geneve0:rx_packets"), 0u);
  EXPECT_EQ(c.Get("geneve0:rx_errors"), 0u);
}

TEST(KernelGeneveRcv, Ipv6ZeroChecksumNeedsUdp6ZeroCsumRx) {
  Outer o;
  o.v6 = true;
  o.csum = false;
  const Bytes b = BuildOuter(o, Inner(true));
  Counters c;
  auto r = GeneveRcv(Skb(b), RxConfig(true), kLabKernel, &c);
  EXPECT_FALSE(r.delivered);
  EXPECT_EQ(c.Get("Udp6InCsumErrors"), 1u);
  EXPECT_EQ(c.Get("geneve0:rx_packets"), 0u);
  GeneveConfig cfg = RxConfig(true);
  cfg.udp6_zero_csum_rx = true;
  Counters c2;
  r = GeneveRcv(Skb(b), cfg, kLabKernel, &c2);
  ASSERT_TRUE(r.delivered) << r.reason;
  EXPECT_EQ(ToHex(r.skb.pkt.bytes()), ToHex(Inner(true)));
  EXPECT_EQ(r.skb.ip_summed, IpSummed::kNone);  // nothing verified
  EXPECT_EQ(c2.Get("geneve0:rx_packets"), 1u);
  // With a checksum the IPv6 socket verifies it as IPv4's does.
  o.csum = true;
  Counters c3;
  r = GeneveRcv(Skb(BuildOuter(o, Inner(true))), RxConfig(true), kLabKernel, &c3);
  EXPECT_TRUE(r.delivered) << r.reason;
  EXPECT_EQ(c3.Get("Udp6InDatagrams"), 1u);
}

TEST(KernelGeneveRcv, CriticalBitDropsUnlessMetadataIsCollected) {
  Outer o;
  o.flags = 0x40;                                    // C
  o.options = {0x01, 0x02, 0x83, 0x01, 0, 0, 0, 1};  // a critical option type
  const Bytes b = BuildOuter(o, Inner(true));
  Counters c;
  auto r = GeneveRcv(Skb(b), RxConfig(), kLabKernel, &c);
  EXPECT_FALSE(r.delivered);
  EXPECT_EQ(c.Get("geneve0:rx_frame_errors"), 1u);
  EXPECT_EQ(c.Get("geneve0:rx_errors"), 1u);
  EXPECT_EQ(c.Get("Udp:InDatagrams"), 1u);  // the socket took it first
  GeneveConfig cfg = RxConfig();
  cfg.collect_metadata = true;
  EXPECT_TRUE(GeneveRcv(Skb(b), cfg).delivered);
  // The O bit alone does not stop the device (only GRO looks at it).
  o.flags = 0x80;
  EXPECT_TRUE(GeneveRcv(Skb(BuildOuter(o, Inner(true))), RxConfig()).delivered);
}

TEST(KernelGeneveRcv, VersionVniSourceAndOwnMac) {
  Outer o;
  o.ver = 1;
  Counters c;
  EXPECT_FALSE(GeneveRcv(Skb(BuildOuter(o, Inner(true))), RxConfig(), kLabKernel, &c).delivered);
  o.ver = 0;
  o.vni = 43;
  EXPECT_FALSE(GeneveRcv(Skb(BuildOuter(o, Inner(true))), RxConfig(), kLabKernel, &c).delivered);
  GeneveConfig other = RxConfig();
  other.remote = {10, 1, 0, 9};  // the device's remote is not the sender
  EXPECT_FALSE(GeneveRcv(Skb(BuildOuter(Outer{}, Inner(true))), other, kLabKernel, &c).delivered);
  EXPECT_EQ(c.Get("geneve0:rx_errors"), 0u);  // silent drops
  EXPECT_EQ(c.Get("geneve0:rx_dropped"), 0u);
  GeneveConfig own = RxConfig();
  own.mac = {2, 0, 0, 0, 1, 0x0b};  // the inner source
  EXPECT_FALSE(GeneveRcv(Skb(BuildOuter(Outer{}, Inner(true))), own, kLabKernel, &c).delivered);
  EXPECT_EQ(c.Get("geneve0:rx_errors"), 1u);
  EXPECT_EQ(c.Get("geneve0:rx_frame_errors"), 0u);
}

TEST(KernelGeneveRcv, OptionsLongerThanThePacketAreRxDropped) {
  Outer o;
  o.options = {1, 2, 3, 4};
  Bytes b = BuildOuter(o, {});
  b[42] = 0x3f;  // 252 bytes of options claimed
  // Keep the outer UDP checksum right for the changed byte.
  Put16(b, 40, 0);
  Put16(b, 40, static_cast<uint16_t>(~Fold(Sum16(b, 34, b.size(), Pseudo4(b, 14, 20)))));
  Counters c;
  EXPECT_FALSE(GeneveRcv(Skb(b), RxConfig(), kLabKernel, &c).delivered);
  EXPECT_EQ(c.Get("geneve0:rx_dropped"), 1u);
}

}  // namespace
}  // namespace offlab::kernel
