// Edges of the driver receive model for NICs that report
// CHECKSUM_UNNECESSARY (models/src/linux/rx.cc): Geneve and GRE tunnels the
// ice / i40e packet types describe (inner checksum, csum_level 1), a bad
// outer UDP checksum (ice's EUDPE; i40e has no such error), a bad outer
// IPv4 header on i40e (EIPE, counted with the checksum errors), SCTP, and
// ICMPv6 reported unverified by libeth. Frames are built here, checksums
// by test_util.h's plain-loop oracle.
//
// Source: Linux v6.18.19 (6952350/linux-6.18.y f3fce0151d48)
// drivers/net/ethernet/intel/ice/ice_txrx_lib.c ice_rx_csum (EIPE ->
// hw_rx_eipe_error, EUDPE / L4E -> checksum_fail: hw_csum_rx_error++,
// csum_level 1 for tunnel packet types), i40e/i40e_txrx.c i40e_rx_checksum
// (IPE, EIPE, L4E -> hw_csum_rx_error++; no outer UDP error), ixgbe_main.c
// ixgbe_rx_checksum (L4CS only for TCP/UDP), include/net/libeth/rx.h
// libeth_rx_pt_has_checksum; the profiles' kernel sections (e810, x710,
// ixgbe_82599) cite the same lines.
#include <gtest/gtest.h>

#include "offlab/linux/rx.h"
#include "test_util.h"

namespace offlab::kernel {
namespace {

using testing::OracleCrc32c;
using testing::OracleL4Csum;
using testing::OracleSum;
using testing::Put16;

// Ethernet + IPv4 (proto, 10.0.0.1 -> 10.0.0.2) + `l4` bytes; the IPv4
// header checksum and the UDP length set, no L4 checksum.
Bytes Ip4(uint8_t proto, const Bytes& l4) {
  Bytes f = FromHex("020202020202 040404040404 0800 45000000 00010000 4000 0000 0a000001 0a000002");
  f[23] = proto;
  f.insert(f.end(), l4.begin(), l4.end());
  Put16(f, 16, static_cast<uint16_t>(f.size() - 14));
  Put16(f, 24, static_cast<uint16_t>(~OracleSum(f.data() + 14, 20)));
  if (proto == 17) Put16(f, 38, static_cast<uint16_t>(f.size() - 34));
  return f;
}

// A TCP frame (ACK, 100 payload bytes) with a right checksum.
Bytes Tcp() {
  Bytes f = Ip4(6, FromHex("04d20050 00000001 00000000 5010 03e8 0000 0000"));
  f.insert(f.end(), 100, 'y');
  Put16(f, 16, static_cast<uint16_t>(f.size() - 14));
  Put16(f, 24, 0);
  Put16(f, 24, static_cast<uint16_t>(~OracleSum(f.data() + 14, 20)));
  Put16(f, 50, OracleL4Csum(f, 14, 34, 6, 16));
  return f;
}

// Outer UDP (dport, no checksum) + an 8-byte tunnel header + `inner`.
Bytes UdpTunnel(const std::string& ports_hdr, const Bytes& inner) {
  Bytes l4 = FromHex(ports_hdr);
  l4.insert(l4.end(), inner.begin(), inner.end());
  return Ip4(17, l4);
}
Bytes Vxlan(const Bytes& inner) { return UdpTunnel("c0de12b5 00000000 08000000 00002a00", inner); }
Bytes Geneve(const Bytes& inner) { return UdpTunnel("c0de17c1 00000000 00006558 00002a00", inner); }
// GRE (no flags) carrying the inner IPv4 packet.
Bytes Gre(const Bytes& inner) {
  Bytes l4 = FromHex("00000800");
  l4.insert(l4.end(), inner.begin() + 14, inner.end());
  return Ip4(47, l4);
}

TEST(KernelRxEdges, GeneveAndGreInnerChecksumsAtLevelOne) {
  for (const char* nic : {"e810", "x710"}) {
    const NicProfile p = BuiltinProfile(nic);
    for (const Bytes& f : {Geneve(Tcp()), Gre(Tcp())}) {
      const SkBuff s = DriverReceive(f, p);
      EXPECT_EQ(s.ip_summed, IpSummed::kUnnecessary) << nic;
      EXPECT_EQ(s.csum_level, 1) << nic;
    }
    // A wrong inner TCP checksum: NONE.
    Bytes bad = Geneve(Tcp());
    bad[bad.size() - 1] ^= 1;
    EXPECT_EQ(DriverReceive(bad, p).ip_summed, IpSummed::kNone) << nic;
  }
  // ixgbe parses no tunnel and flags no L4 checksum for GRE: NONE.
  EXPECT_EQ(DriverReceive(Gre(Tcp()), BuiltinProfile("ixgbe_82599")).ip_summed, IpSummed::kNone);
}

// VXLAN with a present outer UDP checksum, made right, then `flip` xored
// into its low byte.
Bytes VxlanWithOuterCsum(uint8_t flip) {
  Bytes f = Vxlan(Tcp());
  Put16(f, 40, OracleL4Csum(f, 14, 34, 17, 6));
  f[41] ^= flip;
  return f;
}

TEST(KernelRxEdges, ABadOuterUdpChecksumIsAnErrorOnIceOnly) {
  // ice: EUDPE -> checksum_fail, counted; i40e checks IPE, EIPE and L4E
  // only, so the verified inner checksum still stands.
  Counters c;
  const SkBuff ice = DriverReceive(VxlanWithOuterCsum(1), BuiltinProfile("e810"), kLabKernel, &c);
  EXPECT_EQ(ice.ip_summed, IpSummed::kNone);
  EXPECT_EQ(c.Get("rx_csum_bad.nic"), 1u);
  const SkBuff i40e = DriverReceive(VxlanWithOuterCsum(1), BuiltinProfile("x710"), kLabKernel, &c);
  EXPECT_EQ(i40e.ip_summed, IpSummed::kUnnecessary);
  EXPECT_EQ(i40e.csum_level, 1);
  EXPECT_EQ(c.Get("port.rx_csum_bad"), 0u);
  // Right, the outer checksum changes nothing on ice.
  const SkBuff ok = DriverReceive(VxlanWithOuterCsum(0), BuiltinProfile("e810"));
  EXPECT_EQ(ok.ip_summed, IpSummed::kUnnecessary);
  EXPECT_EQ(ok.csum_level, 1);
}

TEST(KernelRxEdges, ABadOuterIpv4HeaderIsACsumErrorOnI40e) {
  // i40e has no separate EIPE statistic: hw_csum_rx_error++ (ice counts it
  // as rx_eipe_error instead, see KernelRxIce).
  Bytes f = Vxlan(Tcp());
  f[22] ^= 1;  // TTL: the outer header checksum is wrong now
  Counters c;
  EXPECT_EQ(DriverReceive(f, BuiltinProfile("x710"), kLabKernel, &c).ip_summed, IpSummed::kNone);
  EXPECT_EQ(c.Get("port.rx_csum_bad"), 1u);
}

// SCTP common header 8000 -> 53 with a DATA chunk, CRC32c right
// (little-endian) unless `bad`.
Bytes Sctp(bool bad) {
  Bytes f = Ip4(132, FromHex("1f400035 00000001 00000000"
                             "00030014 00000001 00000000 00000000 01020304"));
  const uint32_t crc = OracleCrc32c(f.data() + 34, f.size() - 34);
  for (int b = 0; b < 4; b++) f[42 + b] = static_cast<uint8_t>(crc >> (8 * b));
  if (bad) f[f.size() - 1] ^= 1;
  return f;
}

TEST(KernelRxEdges, SctpIsVerifiedLikeTcp) {
  const NicProfile p = BuiltinProfile("e810");
  Counters c;
  const SkBuff good = DriverReceive(Sctp(false), p, kLabKernel, &c);
  EXPECT_EQ(good.ip_summed, IpSummed::kUnnecessary);
  EXPECT_EQ(good.csum_level, 0);
  EXPECT_EQ(DriverReceive(Sctp(true), p, kLabKernel, &c).ip_summed, IpSummed::kNone);
  EXPECT_EQ(c.Get("rx_csum_bad.nic"), 1u);
}

TEST(KernelRxEdges, Icmpv6IsReportedUnverifiedByLibethOnly) {
  // IPv6 ICMPv6 echo request with a wrong checksum.
  Bytes f = FromHex(
      "020202020202 040404040404 86dd 60000000 0008 3a 40"
      "20010db8000000000000000000000001 20010db8000000000000000000000002"
      "80001234 00010001");
  EXPECT_EQ(DriverReceive(f, BuiltinProfile("x710")).ip_summed, IpSummed::kUnnecessary);
  EXPECT_EQ(DriverReceive(f, BuiltinProfile("ixgbe_82599")).ip_summed, IpSummed::kNone);
}

}  // namespace
}  // namespace offlab::kernel
