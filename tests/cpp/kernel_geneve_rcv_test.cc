// geneve_rx's decisions after the socket (drivers/net/geneve.c at v6.18):
// the protocol types a device takes (inner_proto_inherit), ECN
// decapsulation (include/net/inet_ecn.h __INET_ECN_decapsulate: an outer CE
// marks an ECT inner packet CE and drops a not-ECT one; INET_ECN_decapsulate
// then has an outer ECT(1) turn an ECT(0) inner into ECT(1) with
// INET_ECN_set_ect1, RFC 6040 4.2), a too-short inner
// header and a device that is down. Frames are built by hand
// (kernel_geneve_test_frames.h); checksums by the plain loop there.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "kernel_geneve_test_frames.h"
#include "offlab/linux/geneve.h"
#include "offlab/net/counters.h"

namespace offlab::kernel {
namespace {

using namespace genevetest;

// Inner(true) with its IPv4 DS field set to `tos` (header checksum redone).
Bytes Inner4(uint8_t tos) {
  Bytes b = Inner(true);
  b[15] = tos;
  Put16(b, 24, 0);
  Put16(b, 24, static_cast<uint16_t>(~Fold(Sum16(b, 14, 34))));
  return b;
}

// An IPv6 inner frame fd00::a -> fd00::b, UDP 34904 -> 5555
// "hello-offlab", traffic class `tc`, UDP checksum from the loop.
Bytes Inner6(uint8_t tc) {
  Bytes b;
  Append(b, {2, 0, 0, 0, 1, 0x0a, 2, 0, 0, 0, 1, 0x0b, 0x86, 0xdd});
  Append(b, {0x60 | (tc >> 4), (tc & 0xf) << 4, 0, 0, 0, 20, 17, 64});
  for (int k : {0x0a, 0x0b}) Append(b, {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, k});
  Append(b, {0x88, 0x58, 0x15, 0xb3, 0x00, 0x14, 0, 0});
  for (char ch : std::string("hello-offlab")) b.push_back(static_cast<uint8_t>(ch));
  Put16(b, 60, static_cast<uint16_t>(~Fold(Sum16(b, 54, b.size(), Pseudo6(b, 14, 20)))));
  return b;
}

// The inner frame without its Ethernet header (a protocol-type payload).
Bytes L3(const Bytes& frame) { return Bytes(frame.begin() + 14, frame.end()); }

TEST(KernelGeneveRcv, ProtocolTypesTakenWithInnerProtoInherit) {
  // An unknown type is dropped before any device is found (no counter).
  Outer o;
  o.proto = 0x0800;
  const Bytes v4 = BuildOuter(o, L3(Inner(true)));
  o.proto = 0x86dd;
  const Bytes v6 = BuildOuter(o, L3(Inner6(0)));
  o.proto = 0x88cc;
  const Bytes lldp = BuildOuter(o, L3(Inner(true)));

  Counters c;
  auto r = GeneveRcv(Skb(lldp), RxConfig(), kLabKernel, &c);
  EXPECT_FALSE(r.delivered);
  EXPECT_EQ(r.reason, "GENEVE_PROTO");
  EXPECT_EQ(c.Get("geneve0:rx_dropped"), 0u);

  // IPv4/IPv6 payloads: rx_dropped by a plain (Ethernet) device ...
  for (const Bytes& b : {v4, v6}) {
    Counters d;
    r = GeneveRcv(Skb(b), RxConfig(), kLabKernel, &d);
    EXPECT_FALSE(r.delivered);
    EXPECT_EQ(d.Get("geneve0:rx_dropped"), 1u);
  }
  // ... and delivered from the network header by an inner_proto_inherit one.
  GeneveConfig inherit = RxConfig();
  inherit.inner_proto_inherit = true;
  r = GeneveRcv(Skb(v4), inherit);
  ASSERT_TRUE(r.delivered) << r.reason;
  EXPECT_EQ(r.skb.pkt.bytes(), L3(Inner(true)));
  r = GeneveRcv(Skb(v6), inherit);
  ASSERT_TRUE(r.delivered) << r.reason;
  EXPECT_EQ(r.skb.pkt.bytes(), L3(Inner6(0)));
  r = GeneveRcv(Skb(lldp), inherit);
  EXPECT_FALSE(r.delivered);
}

// __INET_ECN_decapsulate for every outer x inner ECN pair (IPv4 inner).
TEST(KernelGeneveRcv, EcnDecapsulationIpv4Inner) {
  for (uint8_t outer = 0; outer < 4; outer++) {
    for (uint8_t inner = 0; inner < 4; inner++) {
      Outer o;
      o.tos = outer;
      Counters c;
      auto r = GeneveRcv(Skb(BuildOuter(o, Inner4(inner))), RxConfig(), kLabKernel, &c);
      const std::string at = std::to_string(outer) + "/" + std::to_string(inner);
      if (outer == 3 && inner == 0) {
        EXPECT_FALSE(r.delivered) << at;
        EXPECT_EQ(c.Get("geneve0:rx_frame_errors"), 1u) << at;
        EXPECT_EQ(c.Get("geneve0:rx_errors"), 1u) << at;
        continue;
      }
      ASSERT_TRUE(r.delivered) << at << r.reason;
      // CE is copied in only from a CE outer; an ECT(1) outer makes an
      // ECT(0) inner ECT(1) (INET_ECN_set_ect1); otherwise the inner is as sent.
      const uint8_t ds = outer == 3                 ? static_cast<uint8_t>(inner | 3)
                         : outer == 1 && inner == 2 ? uint8_t{1}
                                                    : inner;
      const Bytes want = Inner4(ds);
      EXPECT_EQ(r.skb.pkt.bytes(), want) << at;
      EXPECT_EQ(c.Get("geneve0:rx_frame_errors"), 0u) << at;
    }
  }
}

// INET_ECN_set_ect1 for an ECT(1) outer over an ECT(0) inner came with
// b723748750ec "tunnel: Propagate ECT(1) when decapsulating as recommended
// by RFC6040" (a [PATCH net] of 27 Apr 2020: v5.7, also in 5.4.41); v5.6
// leaves the inner ECT(0).
TEST(KernelGeneveRcv, EcnEct1PropagatedFrom57) {
  Outer o;
  o.tos = 1;
  const Bytes wire = BuildOuter(o, Inner4(2));
  auto r = GeneveRcv(Skb(wire), RxConfig(), KernelVersion{5, 6, false});
  ASSERT_TRUE(r.delivered) << r.reason;
  EXPECT_EQ(r.skb.pkt.bytes(), Inner4(2));
  r = GeneveRcv(Skb(wire), RxConfig(), KernelVersion{5, 7, false});
  ASSERT_TRUE(r.delivered) << r.reason;
  EXPECT_EQ(r.skb.pkt.bytes(), Inner4(1));
}

// IP6_ECN_set_ce keeps a COMPLETE skb->csum in step with the traffic class
// it changes; the sum left must match the delivered bytes.
TEST(KernelGeneveRcv, EcnCeOnIpv6InnerKeepsTheCompleteSum) {
  for (bool outer_v6 : {false, true}) {
    // ECT(1), ECT(0), CE, and a DSCP with ECT(1): the traffic class
    // straddles the first two bytes of the IPv6 header.
    for (uint8_t tc : {0x01, 0x02, 0x03, 0xb9}) {
      Outer o;
      o.v6 = outer_v6;
      o.tos = 3;
      Counters c;
      auto r = GeneveRcv(Skb(BuildOuter(o, Inner6(tc))), RxConfig(outer_v6), kLabKernel, &c);
      ASSERT_TRUE(r.delivered) << r.reason << int{tc};
      const Bytes want = Inner6(static_cast<uint8_t>(tc | 3));
      const Bytes& got = r.skb.pkt.bytes();
      EXPECT_EQ(got, want) << int{tc};
      // The socket verified the outer checksum in software: COMPLETE.
      ASSERT_EQ(r.skb.ip_summed, IpSummed::kComplete);
      EXPECT_EQ(Fold(r.skb.csum) % 0xffff, Fold(Sum16(got, r.skb.csum_from, got.size())) % 0xffff)
          << int{tc};
    }
    // An ECT(1) outer over ECT(0) (also behind a DSCP): IP6_ECN_set_ect1
    // flips the ECN bits to ECT(1) and keeps the COMPLETE sum in step.
    for (uint8_t tc : {0x02, 0xba}) {
      Outer o;
      o.v6 = outer_v6;
      o.tos = 1;
      auto r = GeneveRcv(Skb(BuildOuter(o, Inner6(tc))), RxConfig(outer_v6));
      ASSERT_TRUE(r.delivered) << r.reason << int{tc};
      const Bytes& got = r.skb.pkt.bytes();
      EXPECT_EQ(got, Inner6(static_cast<uint8_t>(tc ^ 3))) << int{tc};
      ASSERT_EQ(r.skb.ip_summed, IpSummed::kComplete);
      EXPECT_EQ(Fold(r.skb.csum) % 0xffff, Fold(Sum16(got, r.skb.csum_from, got.size())) % 0xffff)
          << int{tc};
    }
    // Not-ECT under CE (also behind a DSCP): dropped.
    for (uint8_t tc : {0x00, 0xb8}) {
      Outer o;
      o.v6 = outer_v6;
      o.tos = 3;
      Counters d;
      EXPECT_FALSE(
          GeneveRcv(Skb(BuildOuter(o, Inner6(tc))), RxConfig(outer_v6), kLabKernel, &d).delivered);
      EXPECT_EQ(d.Get("geneve0:rx_frame_errors"), 1u);
    }
  }
}

// An inner frame too short for its IP header: rx_length_errors; a device
// that is down: rx_dropped.
TEST(KernelGeneveRcv, ShortInnerHeaderAndDeviceDown) {
  Bytes cut = Inner(true);
  cut.resize(14 + 19);
  Counters c;
  auto r = GeneveRcv(Skb(BuildOuter(Outer{}, cut)), RxConfig(), kLabKernel, &c);
  EXPECT_FALSE(r.delivered);
  EXPECT_EQ(c.Get("geneve0:rx_length_errors"), 1u);
  EXPECT_EQ(c.Get("geneve0:rx_errors"), 1u);
  // A frame of another ethertype needs no IP header.
  Bytes arp = cut;
  arp[12] = 0x08;
  arp[13] = 0x06;
  EXPECT_TRUE(GeneveRcv(Skb(BuildOuter(Outer{}, arp)), RxConfig()).delivered);

  GeneveConfig down = RxConfig();
  down.up = false;
  Counters d;
  r = GeneveRcv(Skb(BuildOuter(Outer{}, Inner(true))), down, kLabKernel, &d);
  EXPECT_FALSE(r.delivered);
  EXPECT_EQ(d.Get("geneve0:rx_dropped"), 1u);
  EXPECT_EQ(d.Get("geneve0:rx_packets"), 0u);
}

// iptunnel_xmit_stats counts from the inner network header, which for a
// frame of no IP ethertype is right after its Ethernet header, behind the
// Geneve header and its options.
TEST(KernelGeneveXmitStats, TxBytesOfANonIpFrameWithOptions) {
  Bytes arp = Inner(true);
  arp[12] = 0x08;
  arp[13] = 0x06;
  arp.resize(14 + 28);
  GeneveConfig cfg = TxConfig();
  cfg.options = {0x01, 0x02, 0x03, 0x01, 0xaa, 0xbb, 0xcc, 0xdd};
  Counters c;
  auto r = GeneveXmit(Skb(arp), cfg, Route(), kLabKernel, &c);
  ASSERT_TRUE(r.sent) << r.reason;
  EXPECT_EQ(c.Get("geneve0:tx_bytes"), 28u);
  EXPECT_EQ(r.skb.len(), 14u + 20 + 8 + 8 + 8 + 42);
}

}  // namespace
}  // namespace offlab::kernel
