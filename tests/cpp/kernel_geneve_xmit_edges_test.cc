// Edges of geneve_xmit (models/src/linux/geneve_xmit.cc): options that are
// not whole 4-byte words or do not fit the 6-bit length, the O and C bits
// of the header, and a non-IP inner frame (no inner network header, no TTL
// to inherit: the route's hop limit).
//
// Source: RFC 8926 section 3.4 (Ver 2 bits, Opt Len 6 bits in 4-byte
// words, O = 0x80 and C = 0x40 of the second byte, protocol 0x6558, VNI);
// torvalds/linux v6.18 drivers/net/geneve.c geneve_build_header (opt_len /
// 4, oam / critical from TUNNEL_OAM / TUNNEL_CRIT_OPT) and
// ip_tunnel_get_ttl (the route's TTL for a protocol that is not IP).
#include <gtest/gtest.h>

#include <tuple>

#include "kernel_geneve_test_frames.h"
#include "offlab/linux/geneve.h"
#include "offlab/net/counters.h"

namespace offlab::kernel {
namespace {

using namespace genevetest;  // Inner, Skb, TxConfig, Route, ...

TEST(KernelGeneveXmitEdges, OptionsMustBeWholeWordsWithinTheLengthField) {
  for (size_t n : {size_t{6}, size_t{256}}) {
    GeneveConfig cfg = TxConfig();
    cfg.options.assign(n, 0);
    Counters c;
    const auto r = GeneveXmit(Skb(Inner(false)), cfg, Route(), kLabKernel, &c);
    EXPECT_FALSE(r.sent) << n;
    EXPECT_EQ(r.reason, "BAD_OPTIONS") << n;
    EXPECT_EQ(c.Get("geneve0:tx_errors"), 1u) << n;
  }
  // 252 bytes (63 words) is the most the field holds.
  GeneveConfig max = TxConfig();
  max.options.assign(252, 0);
  const auto r = GeneveXmit(Skb(Inner(false)), max, Route());
  ASSERT_TRUE(r.sent) << r.reason;
  EXPECT_EQ(r.skb.pkt.bytes()[42], 63);
}

TEST(KernelGeneveXmitEdges, TheOamAndCriticalBits) {
  for (auto [oam, crit, byte] : {std::tuple{true, false, 0x80}, std::tuple{false, true, 0x40},
                                 std::tuple{true, true, 0xc0}}) {
    GeneveConfig cfg = TxConfig();
    cfg.oam = oam, cfg.critical = crit;
    const auto r = GeneveXmit(Skb(Inner(false)), cfg, Route());
    ASSERT_TRUE(r.sent) << r.reason;
    EXPECT_EQ(r.skb.pkt.bytes()[43], byte);
  }
}

TEST(KernelGeneveXmitEdges, ANonIpInnerFrameTakesTheRoutesTtl) {
  Bytes arp = Inner(false);
  arp[12] = 0x08, arp[13] = 0x06;
  GeneveConfig cfg = TxConfig();
  cfg.ttl_inherit = true;
  UnderlayRoute rt = Route();
  rt.hop_limit = 61;
  const auto r = GeneveXmit(Skb(arp), cfg, rt);
  ASSERT_TRUE(r.sent) << r.reason;
  EXPECT_EQ(r.skb.pkt.bytes()[22], 61);
}

}  // namespace
}  // namespace offlab::kernel
