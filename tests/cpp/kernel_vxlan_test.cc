// The VXLAN driver model against bytes the 6.18 lab kernel put on a veth
// (captured with an AF_PACKET socket on the peer; vxlan id 42 dstport 4789
// srcport 40000 40001 local 10.1.0.2 remote 10.1.0.1), and against checksums
// derived here with a plain 16-bit loop (RFC 1071), never with offlab::csum.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "offlab/linux/features.h"
#include "offlab/linux/vxlan.h"
#include "offlab/net/bytes.h"
#include "offlab/net/counters.h"

namespace offlab::kernel {
namespace {

std::string Strip(const std::string& s) {
  std::string o;
  for (char ch : s)
    if (ch != ' ') o.push_back(ch);
  return o;
}

// RFC 1071 by hand: 32-bit accumulator, end-around carry.
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
// IPv4 pseudo-header sum for the IP header at `ip`, protocol `proto`.
uint32_t Pseudo4(const Bytes& b, size_t ip, uint8_t proto, uint16_t len) {
  return Sum16(b, ip + 12, ip + 20) + proto + len;
}
// True if the UDP/TCP checksum of the segment [l4, end) verifies.
bool L4Verifies(const Bytes& b, size_t ip, size_t l4, uint8_t proto) {
  const uint16_t len = static_cast<uint16_t>(b.size() - l4);
  return Fold(Sum16(b, l4, b.size(), Pseudo4(b, ip, proto, len))) == 0xffff;
}

// The inner frame vb's stack handed to vx0 for `sendto(b"hello-offlab",
// ("192.168.42.1", 5555))`: UDP CHECKSUM_PARTIAL, field = pseudo sum.
const char* kInnerUdpPartial =
    "02000000010a 02000000010b 0800"
    "450000282af4400040113a7d c0a82a02 c0a82a01"
    "8858 15b3 0014 d579 68656c6c6f2d6f66666c6162";
// What vB transmitted for it (outer ID 0x074f from the ID generator).
const char* kWireUdpLco =
    "02000000000a 02000000000b 0800"
    "4500005a074f000040115f40 0a010002 0a010001"
    "9c40 12b5 0046 d1cc 08000000 00002a00"
    "02000000010a02000000010b0800450000282af4400040113a7dc0a82a02c0a82a01885815b30014d579"
    "68656c6c6f2d6f66666c6162";

VxlanConfig LabConfig() {
  VxlanConfig c;
  c.name = "vx0";
  c.mac = {0x02, 0, 0, 0, 0x01, 0x0b};
  c.vni = 42;
  c.dstport = 4789;
  c.port_min = 40000;
  c.port_max = 40001;
  c.local = {10, 1, 0, 2};
  c.remote = {10, 1, 0, 1};
  return c;
}

UnderlayRoute LabRoute(uint16_t id) {
  UnderlayRoute r;
  r.src_mac = {0x02, 0, 0, 0, 0, 0x0b};
  r.dst_mac = {0x02, 0, 0, 0, 0, 0x0a};
  r.ip_id = id;
  r.flow_hash = 0xdeadbeef;  // any: the one-port range ignores it
  return r;
}

SkBuff Partial(const std::string& hex, uint16_t start, uint16_t off) {
  SkBuff s;
  s.pkt = Packet(FromHex(Strip(hex)));
  s.ip_summed = IpSummed::kPartial;
  s.csum_start = start;
  s.csum_offset = off;
  return s;
}

TEST(KernelVxlanXmit, PartialInnerGetsLcoOuterChecksumAsOnTheLabKernel) {
  Counters c;
  auto r =
      VxlanXmit(Partial(kInnerUdpPartial, 34, 6), LabConfig(), LabRoute(0x074f), kLabKernel, &c);
  ASSERT_TRUE(r.sent) << r.reason;
  EXPECT_EQ(ToHex(r.skb.pkt.bytes()), Strip(kWireUdpLco));
  // Handed to the device still PARTIAL for the inner UDP, encapsulated.
  EXPECT_EQ(r.skb.ip_summed, IpSummed::kPartial);
  EXPECT_EQ(r.skb.csum_start, 50 + 34);
  EXPECT_EQ(r.skb.csum_offset, 6);
  EXPECT_TRUE(r.skb.encapsulation);
  EXPECT_EQ(r.skb.pkt.inner_l2_ofs, 50);
  // The LCO value is right once the device fills the inner checksum.
  Bytes done = r.skb.pkt.bytes();
  done[90] = done[91] = 0;
  const uint16_t inner =
      static_cast<uint16_t>(~Fold(Sum16(done, 84, done.size(), Pseudo4(done, 64, 17, 20))));
  done[90] = static_cast<uint8_t>(inner >> 8);
  done[91] = static_cast<uint8_t>(inner);
  EXPECT_TRUE(L4Verifies(done, 64, 84, 17));
  EXPECT_TRUE(L4Verifies(done, 14, 34, 17));
  EXPECT_EQ(c.Get("vx0:tx_packets"), 1u);
  EXPECT_EQ(c.Get("vx0:tx_bytes"), 40u);  // from the inner IP header
}

TEST(KernelVxlanXmit, RemcsumTxEncodesStartInVniAndLeavesOuterPartial) {
  // Lab kernel with remcsumtx: flags 08 20, VNI low byte 0x80 | 34/2.
  const std::string inner =
      "02000000010a02000000010b0800 45000028 59d9 4000 4011 0b98 c0a82a02c0a82a01"
      "d143 15b3 0014 d579 68656c6c6f2d6f66666c6162";
  const std::string wire =
      "02000000000a02000000000b0800 4500005a 7507 0000 4011 f187 0a010002 0a010001"
      "9c40 12b5 0046 145c 08200000 00002a91" +
      inner;
  VxlanConfig cfg = LabConfig();
  cfg.remcsum_tx = true;
  auto r = VxlanXmit(Partial(inner, 34, 6), cfg, LabRoute(0x7507));
  ASSERT_TRUE(r.sent);
  EXPECT_EQ(ToHex(r.skb.pkt.bytes()), Strip(wire));
  // The outer UDP is what the device must finish; the field holds the
  // folded outer pseudo-header: 0a01+0002+0a01+0001+0011+0046.
  EXPECT_EQ(r.skb.ip_summed, IpSummed::kPartial);
  EXPECT_EQ(r.skb.csum_start, 34);
  EXPECT_EQ(r.skb.csum_offset, 6);
  EXPECT_FALSE(r.skb.encapsulation);
  EXPECT_EQ(0x0a01 + 0x0002 + 0x0a01 + 0x0001 + 0x0011 + 0x0046, 0x145c);
}

TEST(KernelVxlanXmit, RemcsumTxForTcpHasNoUdpBit) {
  const std::string inner =
      "02000000010a02000000010b0800 4500003c43a44000400621c4 c0a82a02c0a82a01"
      "c3cc15b31d7d157800000000a002faf0d5820000020405b40402080a29571c65000000000103030a";
  const std::string wire =
      "02000000000a02000000000b0800 4500006e 7700 0000 4011 ef7a 0a010002 0a010001"
      "9c40 12b5 005a 1470 08200000 00002a11" +
      inner;
  VxlanConfig cfg = LabConfig();
  cfg.remcsum_tx = true;
  auto r = VxlanXmit(Partial(inner, 34, 16), cfg, LabRoute(0x7700));
  ASSERT_TRUE(r.sent);
  EXPECT_EQ(ToHex(r.skb.pkt.bytes()), Strip(wire));
}

TEST(KernelVxlanXmit, RemcsumNeedsEvenStartWithinLimitAndL4Offset) {
  VxlanConfig cfg = LabConfig();
  cfg.remcsum_tx = true;
  // An odd start cannot be encoded: no RCO, the inner stays PARTIAL (LCO).
  auto r = VxlanXmit(Partial(kInnerUdpPartial, 33, 6), cfg, LabRoute(1));
  EXPECT_EQ(r.skb.pkt.data()[50 - 8 + 1], 0x00);
  EXPECT_EQ(r.skb.ip_summed, IpSummed::kPartial);
  EXPECT_EQ(r.skb.csum_start, 50 + 33);
  // An offset that is neither UDP's nor TCP's (e.g. ICMP's 2): no RCO.
  r = VxlanXmit(Partial(kInnerUdpPartial, 34, 2), cfg, LabRoute(1));
  EXPECT_EQ(r.skb.pkt.data()[50 - 1], 0x00);
}

TEST(KernelVxlanXmit, NoUdpCsumSendsZeroAndKeepsInnerPartial) {
  VxlanConfig cfg = LabConfig();
  cfg.udp_csum = false;
  auto r = VxlanXmit(Partial(kInnerUdpPartial, 34, 6), cfg, LabRoute(0x074f));
  EXPECT_EQ(At16(r.skb.pkt.bytes(), 40), 0);
  EXPECT_EQ(r.skb.ip_summed, IpSummed::kPartial);
  EXPECT_EQ(r.skb.csum_start, 84);
  EXPECT_TRUE(r.skb.encapsulation);
}

TEST(KernelVxlanXmit, UdpCsumDefaultFollowsKernelVersion) {
  // v4.6 turned IPv4 outer checksums on by default; 4.0 sent zero.
  auto old = VxlanXmit(Partial(kInnerUdpPartial, 34, 6), LabConfig(), LabRoute(1), {4, 0});
  EXPECT_EQ(At16(old.skb.pkt.bytes(), 40), 0);
  auto now = VxlanXmit(Partial(kInnerUdpPartial, 34, 6), LabConfig(), LabRoute(1));
  EXPECT_NE(At16(now.skb.pkt.bytes(), 40), 0);
}

TEST(KernelVxlanXmit, Pre46ChecksumHelpResolvesInnerThenSoftwareOuter) {
  // 4.4 with udpcsum on: iptunnel_handle_offloads(csum_help) finishes the
  // inner checksum; an underlay without checksum offload gets the outer
  // summed in software and the skb UNNECESSARY.
  VxlanConfig cfg = LabConfig();
  cfg.udp_csum = true;
  auto r = VxlanXmit(Partial(kInnerUdpPartial, 34, 6), cfg, LabRoute(0x074f), {4, 4});
  const Bytes b = r.skb.pkt.bytes();
  EXPECT_EQ(r.skb.ip_summed, IpSummed::kUnnecessary);
  EXPECT_FALSE(r.skb.encapsulation);
  EXPECT_TRUE(L4Verifies(b, 64, 84, 17));
  EXPECT_TRUE(L4Verifies(b, 14, 34, 17));
  // With an offloading underlay the outer is left PARTIAL.
  UnderlayRoute rt = LabRoute(0x074f);
  rt.dev_features = netif::kIpCsum;
  r = VxlanXmit(Partial(kInnerUdpPartial, 34, 6), cfg, rt, {4, 4});
  EXPECT_EQ(r.skb.ip_summed, IpSummed::kPartial);
  EXPECT_EQ(r.skb.csum_start, 34);
  EXPECT_EQ(At16(r.skb.pkt.bytes(), 40), 0x0a01 + 0x0002 + 0x0a01 + 0x0001 + 0x0011 + 0x0046);
}

TEST(KernelVxlanXmit, GsoAddsTunnelTypeAndPseudoOnlyChecksum) {
  SkBuff s = Partial(kInnerUdpPartial, 34, 6);
  s.gso_size = 4;
  s.gso_segs = 3;
  s.gso_type = gso::kUdpL4;
  auto r = VxlanXmit(std::move(s), LabConfig(), LabRoute(1));
  EXPECT_EQ(r.skb.gso_type, gso::kUdpL4 | gso::kUdpTunnelCsum);
  EXPECT_TRUE(r.skb.encapsulation);
  EXPECT_EQ(At16(r.skb.pkt.bytes(), 40), 0x145c);  // folded pseudo, UDP length 0x46
}

TEST(KernelVxlanXmit, SourcePortFormula) {
  UnderlayRoute rt;
  EXPECT_EQ(VxlanSourcePort(0x12345678, 40000, 40001, rt), 40000);
  // Default range 32768..60999: h ^= h << 16 = 0x444c5678, times 28231, >> 32.
  const uint64_t h = 0x444c5678ull;
  EXPECT_EQ(VxlanSourcePort(0x12345678, 0, 0, rt), 32768 + ((h * 28231) >> 32));
}

TEST(KernelVxlanXmit, TtlTosDfFromConfig) {
  VxlanConfig cfg = LabConfig();
  cfg.ttl = 7;
  cfg.tos = 0x20;
  cfg.df = VxlanDf::kInherit;  // inner has DF
  auto r = VxlanXmit(Partial(kInnerUdpPartial, 34, 6), cfg, LabRoute(0));
  const Bytes b = r.skb.pkt.bytes();
  EXPECT_EQ(b[22], 7);
  EXPECT_EQ(b[15], 0x20);
  EXPECT_EQ(At16(b, 20), 0x4000);
  EXPECT_EQ(Fold(Sum16(b, 14, 34)), 0xffff);  // ip_send_check
}

TEST(KernelVxlanXmit, Ipv6UnderlayAsOnTheLabKernel) {
  // vxlan id 43 dstport 4790 local fd00::2 remote fd00::1 ttl 9 tos 0x20.
  const std::string inner =
      "02000000020a02000000020b0800 45000028fc854000401166eb c0a82b02 c0a82b01"
      "b311 15b3 0014 d779 68656c6c6f2d6f66666c6162";
  const std::string wire =
      "02000000000a02000000000b86dd 62000000 0046 11 09"
      "fd000000000000000000000000000002 fd000000000000000000000000000001"
      "9c40 12b6 0046 eacb 08000000 00002b00" +
      inner;
  VxlanConfig cfg = LabConfig();
  cfg.ipv6 = true;
  cfg.vni = 43;
  cfg.dstport = 4790;
  cfg.local = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
  cfg.remote = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  cfg.ttl = 9;
  cfg.tos = 0x20;
  auto r = VxlanXmit(Partial(inner, 34, 6), cfg, LabRoute(0));
  EXPECT_EQ(ToHex(r.skb.pkt.bytes()), Strip(wire));
  EXPECT_EQ(r.skb.csum_start, 70 + 34);
}

// --- receive ------------------------------------------------------------

// The peer (va) of the lab setup receives what vb sent.
VxlanConfig PeerConfig() {
  VxlanConfig c = LabConfig();
  c.mac = {0x02, 0, 0, 0, 0x01, 0x0a};
  c.local = {10, 1, 0, 1};
  c.remote = {10, 1, 0, 2};
  return c;
}

// A wire frame as a NIC receives it: every pending checksum filled in by
// hand (what the sending device did), ip_summed NONE.
SkBuff OnWire(Bytes b, size_t l4_fix, size_t ip_fix, uint8_t proto, size_t field) {
  if (field) {
    b[field] = b[field + 1] = 0;
    const uint16_t len = static_cast<uint16_t>(b.size() - l4_fix);
    uint16_t v =
        static_cast<uint16_t>(~Fold(Sum16(b, l4_fix, b.size(), Pseudo4(b, ip_fix, proto, len))));
    if (v == 0) v = 0xffff;
    b[field] = static_cast<uint8_t>(v >> 8);
    b[field + 1] = static_cast<uint8_t>(v);
  }
  SkBuff s;
  s.pkt = Packet(b);
  return s;
}

// kWireUdpLco with the inner UDP checksum finished: the LCO outer verifies.
SkBuff LcoWire() { return OnWire(FromHex(Strip(kWireUdpLco)), 84, 64, 17, 90); }

TEST(KernelVxlanRcv, GoodFrameIsConvertedToCompleteForTheInnerStack) {
  Counters c;
  auto r = VxlanRcv(LcoWire(), PeerConfig(), kLabKernel, &c);
  ASSERT_TRUE(r.delivered) << r.reason;
  const Bytes in = r.skb.pkt.bytes();
  ASSERT_EQ(in.size(), 54u);
  EXPECT_EQ(r.skb.pkt.l3_ofs, 14);
  // Outer verified in software, the sum carried over the pulls: COMPLETE
  // from the inner IP header, good for the inner UDP checksum.
  EXPECT_EQ(r.skb.ip_summed, IpSummed::kComplete);
  EXPECT_EQ(r.skb.csum_from, 14);
  EXPECT_EQ(Fold(r.skb.csum + Pseudo4(in, 14, 17, 20)), 0xffff);
  EXPECT_EQ(r.pkt_type, PktType::kHost);
  EXPECT_EQ(c.Get("Udp:InDatagrams"), 1u);
  EXPECT_EQ(c.Get("vx0:rx_packets"), 1u);
  EXPECT_EQ(c.Get("vx0:rx_bytes"), 40u);  // the lab counts from the inner IP header
}

TEST(KernelVxlanRcv, BadOuterChecksumCountsUdpCsumErrors) {
  SkBuff s = LcoWire();
  s.pkt.data()[41] ^= 0x01;
  Counters c;
  auto r = VxlanRcv(std::move(s), PeerConfig(), kLabKernel, &c);
  EXPECT_FALSE(r.delivered);
  EXPECT_EQ(r.reason, "UDP_CSUM");
  EXPECT_EQ(c.Get("Udp:InCsumErrors"), 1u);
  EXPECT_EQ(c.Get("Udp:InErrors"), 1u);
  EXPECT_EQ(c.Get("Udp:InDatagrams"), 0u);
  EXPECT_EQ(c.Get("Ip:InDelivers"), 1u);
  EXPECT_EQ(c.Get("vx0:rx_packets"), 0u);
}

TEST(KernelVxlanRcv, UnnecessaryLevelsAreConsumedByTheOuterChecksum) {
  SkBuff s = LcoWire();
  s.ip_summed = IpSummed::kUnnecessary;
  s.csum_level = 1;
  auto r = VxlanRcv(s, PeerConfig());
  EXPECT_EQ(r.skb.ip_summed, IpSummed::kUnnecessary);
  EXPECT_EQ(r.skb.csum_level, 0);
  // Level 0: the outer used it up; the tunnel socket converts to COMPLETE.
  s.csum_level = 0;
  r = VxlanRcv(s, PeerConfig());
  EXPECT_EQ(r.skb.ip_summed, IpSummed::kComplete);
  EXPECT_EQ(Fold(r.skb.csum + Pseudo4(r.skb.pkt.bytes(), 14, 17, 20)), 0xffff);
}

TEST(KernelVxlanRcv, ZeroChecksumIpv4IsAccepted) {
  Bytes b = LcoWire().pkt.bytes();
  b[40] = b[41] = 0;
  Counters c;
  auto r = VxlanRcv(OnWire(b, 0, 0, 0, 0), PeerConfig(), kLabKernel, &c);
  EXPECT_TRUE(r.delivered);
  EXPECT_EQ(r.skb.ip_summed, IpSummed::kNone);  // nothing verified, nothing to convert
  EXPECT_EQ(c.Get("vx0:rx_packets"), 1u);
}

TEST(KernelVxlanRcv, ZeroChecksumIpv6RefusedUnlessUdp6ZeroCsumRx) {
  VxlanConfig tx = LabConfig();
  tx.ipv6 = true;
  tx.udp6_zero_csum_tx = true;
  tx.local = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
  tx.remote = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  SkBuff inner = LcoWire();  // any complete inner frame
  inner.pkt.Pull(50);
  inner.pkt.ResetOffsets();
  auto w = VxlanXmit(inner, tx, LabRoute(0));
  ASSERT_TRUE(w.sent);
  EXPECT_EQ(At16(w.skb.pkt.bytes(), 14 + 40 + 6), 0);
  VxlanConfig rx = PeerConfig();
  rx.ipv6 = true;
  rx.local = tx.remote;
  rx.remote = tx.local;
  SkBuff wire = OnWire(w.skb.pkt.bytes(), 0, 0, 0, 0);
  Counters c;
  auto r = VxlanRcv(wire, rx, kLabKernel, &c);
  EXPECT_FALSE(r.delivered);
  EXPECT_EQ(c.Get("Udp6InCsumErrors"), 1u);
  EXPECT_EQ(c.Get("Udp6InErrors"), 1u);
  rx.udp6_zero_csum_rx = true;
  r = VxlanRcv(wire, rx, kLabKernel, &c);
  EXPECT_TRUE(r.delivered) << r.reason;
  EXPECT_EQ(c.Get("Udp6InDatagrams"), 1u);
}

TEST(KernelVxlanRcv, RcoFlagWithoutRemcsumRxIsAHeaderError) {
  Bytes b = LcoWire().pkt.bytes();
  b[43] = 0x20;  // VXLAN_HF_RCO
  b[49] = 0x91;
  b[40] = b[41] = 0;
  SkBuff s = OnWire(b, 34, 14, 17, 40);
  Counters c;
  auto r = VxlanRcv(s, PeerConfig(), kLabKernel, &c);
  EXPECT_EQ(r.reason, "VXLAN_INVALID_HDR");
  EXPECT_EQ(c.Get("vx0:rx_frame_errors"), 1u);
  EXPECT_EQ(c.Get("vx0:rx_errors"), 1u);
  EXPECT_EQ(c.Get("Udp:InDatagrams"), 1u);  // the socket took it first
  Counters old;
  r = VxlanRcv(s, PeerConfig(), {6, 6}, &old);  // before the v6.14 counters
  EXPECT_FALSE(r.delivered);
  EXPECT_EQ(old.Get("vx0:rx_errors"), 0u);
}

TEST(KernelVxlanRcv, UnknownVniDropsWithoutDeviceCounters) {
  VxlanConfig cfg = PeerConfig();
  cfg.vni = 7;
  Counters c;
  auto r = VxlanRcv(LcoWire(), cfg, kLabKernel, &c);
  EXPECT_EQ(r.reason, "VXLAN_VNI_NOT_FOUND");
  EXPECT_EQ(c.Get("Udp:InDatagrams"), 1u);
  EXPECT_EQ(c.Get("vx0:rx_errors"), 0u);
}

TEST(KernelVxlanRcv, RcoRoundTripRestoresTheInnerChecksum) {
  VxlanConfig tx = LabConfig();
  tx.remcsum_tx = true;
  auto w = VxlanXmit(Partial(kInnerUdpPartial, 34, 6), tx, LabRoute(0x7507));
  ASSERT_EQ(w.skb.ip_summed, IpSummed::kPartial);
  ASSERT_EQ(w.skb.csum_start, 34);
  // The device finishes the outer UDP checksum; the inner one stays the
  // pseudo-header sum (0xd579) on the wire.
  SkBuff wire = OnWire(w.skb.pkt.bytes(), 34, 14, 17, 40);
  ASSERT_EQ(At16(wire.pkt.bytes(), 90), 0xd579);
  // The right inner checksum, by hand.
  Bytes want = wire.pkt.bytes();
  want[90] = want[91] = 0;
  const uint16_t good =
      static_cast<uint16_t>(~Fold(Sum16(want, 84, want.size(), Pseudo4(want, 64, 17, 20))));

  VxlanConfig rx = PeerConfig();
  rx.remcsum_rx = true;
  rx.remcsum_nopartial = true;
  auto r = VxlanRcv(wire, rx);
  ASSERT_TRUE(r.delivered) << r.reason;
  EXPECT_EQ(At16(r.skb.pkt.bytes(), 40), good);
  EXPECT_TRUE(L4Verifies(r.skb.pkt.bytes(), 14, 34, 17));
  EXPECT_EQ(r.skb.ip_summed, IpSummed::kComplete);
  EXPECT_EQ(Fold(r.skb.csum + Pseudo4(r.skb.pkt.bytes(), 14, 17, 20)), 0xffff);

  // Default (partial): the lab kernel leaves the field and the inner skb
  // CHECKSUM_PARTIAL, which the inner stack accepts.
  rx.remcsum_nopartial = false;
  r = VxlanRcv(wire, rx);
  ASSERT_TRUE(r.delivered);
  EXPECT_EQ(At16(r.skb.pkt.bytes(), 40), 0xd579);
  EXPECT_EQ(r.skb.ip_summed, IpSummed::kPartial);
  EXPECT_EQ(r.skb.csum_start, 34);
  EXPECT_EQ(r.skb.csum_offset, 6);
  Counters c;
  StackRxConfig host;
  host.udp_ports = {5555};
  SkBuff inner = r.skb;
  EXPECT_TRUE(StackRcv(inner, host, kLabKernel, &c).verdict.delivered);
  // v4.0 knew only the immediate form.
  r = VxlanRcv(wire, rx, {4, 0});
  EXPECT_EQ(At16(r.skb.pkt.bytes(), 40), good);
}

TEST(KernelVxlanRcv, InnerHeaderChecksAsOnTheLabKernel) {
  auto run = [](Bytes b, Counters* c) {
    b[40] = b[41] = 0;  // zero outer checksum: the inner edits need no fix-up
    return VxlanRcv(OnWire(b, 0, 0, 0, 0), PeerConfig(), kLabKernel, c);
  };
  const Bytes good = LcoWire().pkt.bytes();
  Counters c;
  Bytes b = good;
  b[56] = 0x03;  // multicast inner source MAC
  EXPECT_EQ(run(b, &c).reason, "MAC_INVALID_SOURCE");
  b = good;
  const auto own = PeerConfig().mac;  // the vxlan device's own MAC as source
  std::copy(own.begin(), own.end(), b.begin() + 56);
  EXPECT_EQ(run(b, &c).reason, "LOCAL_MAC");
  EXPECT_EQ(c.Get("vx0:rx_errors"), 0u);
  // Outer CE over a not-ECT inner: dropped as a frame error.
  b = good;
  b[15] = 0x03;
  b[24] = b[25] = 0;
  const uint16_t ipc = static_cast<uint16_t>(~Fold(Sum16(b, 14, 34)));
  b[24] = static_cast<uint8_t>(ipc >> 8);
  b[25] = static_cast<uint8_t>(ipc);
  EXPECT_EQ(run(b, &c).reason, "IP_TUNNEL_ECN");
  EXPECT_EQ(c.Get("vx0:rx_frame_errors"), 1u);
  // An inner IPv4 ethertype with less than a header behind it.
  b = good;
  b.resize(50 + 14 + 10);
  b[38] = 0;
  b[39] = static_cast<uint8_t>(b.size() - 34);
  b[16] = 0;
  b[17] = static_cast<uint8_t>(b.size() - 14);
  b[24] = b[25] = 0;
  const uint16_t ipc2 = static_cast<uint16_t>(~Fold(Sum16(b, 14, 34)));
  b[24] = static_cast<uint8_t>(ipc2 >> 8);
  b[25] = static_cast<uint8_t>(ipc2);
  EXPECT_EQ(run(b, &c).reason, "PKT_TOO_SMALL");
  EXPECT_EQ(c.Get("vx0:rx_length_errors"), 1u);
  EXPECT_EQ(c.Get("vx0:rx_errors"), 2u);
  EXPECT_EQ(c.Get("vx0:rx_packets"), 0u);
}

}  // namespace
}  // namespace offlab::kernel
