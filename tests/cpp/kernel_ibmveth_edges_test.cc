// Edges of the ibmveth transmit model (models/src/linux/device_tx_ibmveth.cc):
// the features ibmveth_probe registers for each firmware / trunk
// combination, the driver's own linearization before the long-term
// buffers (more than 5 frags, a trunk's frag_list), the TCP-only checksum
// offload over IPv6, and a TCPv6 largesend without firmware PLSO (no IPv4
// marks to write). Checksums by test_util.h's plain-loop oracle.
//
// Source: torvalds/linux drivers/net/ethernet/ibm/ibmveth.c ibmveth_probe
// (v6.18 :1831-1855, v4.11 :1610-1627: NETIF_F_SG; IP/IPV6/RXCSUM with
// "ibm,illan-options"; TSO/TSO6 with large send and not old_large_send;
// NETIF_F_FRAGLIST on an active trunk, by v4.19) and ibmveth_start_xmit
// (v4.19 :1041-1051 __skb_linearize for a trunk's frag_list or more than 5
// frags; :1244-1254 "veth can't checksum offload UDP"; :1272-1286 the
// largesend marks, IPv4 only).
#include <gtest/gtest.h>

#include "kernel_test_skb.h"
#include "offlab/linux/device_tx_ibmveth.h"
#include "offlab/net/counters.h"

namespace offlab::kernel {
namespace {

using testing::Ipv6Frame;
using testing::OracleL4Ok;
using testing::OraclePseudo;
using testing::Put16;

TEST(KernelIbmvethEdges, FeaturesFollowTheFirmwareAndTheTrunk) {
  const uint64_t soft = netif::kSg | netif::kGsoSoftware | netif::kGro;
  IbmvethConfig none;
  none.illan_options = false, none.large_send = false, none.active_trunk = false;
  EXPECT_EQ(IbmvethFeatures(none, kLabKernel).features, soft);
  IbmvethConfig csum = none;
  csum.illan_options = true;
  EXPECT_EQ(IbmvethFeatures(csum, kLabKernel).features,
            soft | netif::kIpCsum | netif::kIpv6Csum | netif::kRxCsum);
  IbmvethConfig old = none;
  old.large_send = true, old.old_large_send = true;
  EXPECT_EQ(IbmvethFeatures(old, kLabKernel).features, soft);
  old.old_large_send = false;
  EXPECT_EQ(IbmvethFeatures(old, kLabKernel).features, soft | netif::kTso | netif::kTso6);
  IbmvethConfig trunk = none;
  trunk.active_trunk = true;
  EXPECT_EQ(IbmvethFeatures(trunk, kLabKernel).features, soft | netif::kFraglist);
  EXPECT_EQ(IbmvethFeatures(trunk, KernelVersion{4, 11}).features, soft);
}

// A CHECKSUM_PARTIAL TCPv6 skb (TCP at 54, field = pseudo-header sum).
SkBuff Tcp6Partial(size_t payload) {
  Bytes f =
      Ipv6Frame(6, "", "d478145100000001000000005010010000000000" + std::string(2 * payload, '6'));
  size_t len = 0;
  Put16(f, 70, static_cast<uint16_t>(OraclePseudo(f, 14, 54, 6, &len)));
  SkBuff s;
  s.pkt = Packet(f);
  s.pkt.l3_ofs = 14, s.pkt.l4_ofs = 54;
  s.ip_summed = IpSummed::kPartial, s.csum_start = 54, s.csum_offset = 16;
  return s;
}

TEST(KernelIbmvethEdges, TheDriverLinearizesBeforeLongTermBuffers) {
  // v4.19: more than 5 frags, or an active trunk's frag_list.
  const KernelVersion v419{4, 19, false};
  IbmvethConfig cfg;
  SkBuff frags = Tcp6Partial(600);
  frags.nr_frags = 6;
  Counters c;
  IbmvethTx t = IbmvethStartXmit(frags, cfg, v419, &c);
  EXPECT_EQ(c.Get("ibmveth_tx_linearize"), 1u);
  EXPECT_EQ(t.skb.nr_frags, 0);
  SkBuff five = Tcp6Partial(600);
  five.nr_frags = 5;
  Counters c5;
  IbmvethStartXmit(five, cfg, v419, &c5);
  EXPECT_EQ(c5.Get("ibmveth_tx_linearize"), 0u);
  // A frag_list is linearized on an active trunk only.
  SkBuff chain = Tcp6Partial(600);
  chain.frag_list_lens = {300};
  Counters ct;
  IbmvethStartXmit(chain, cfg, v419, &ct);
  EXPECT_EQ(ct.Get("ibmveth_tx_linearize"), 1u);
  IbmvethConfig plain = cfg;
  plain.active_trunk = false;
  Counters cp;
  IbmvethStartXmit(chain, plain, v419, &cp);
  EXPECT_EQ(cp.Get("ibmveth_tx_linearize"), 0u);
  // v6.18 copies into its long-term buffer instead: no linearization.
  Counters c618;
  IbmvethStartXmit(frags, cfg, kLabKernel, &c618);
  EXPECT_EQ(c618.Get("ibmveth_tx_linearize"), 0u);
}

TEST(KernelIbmvethEdges, TcpOverIpv6IsOffloadedUdpIsNot) {
  // TCPv6: the field zeroed for the hypervisor (NO_CSUM | CSUM_GOOD).
  IbmvethTx t = IbmvethStartXmit(Tcp6Partial(10), IbmvethConfig{}, kLabKernel);
  ASSERT_TRUE(t.sent) << t.drop;
  EXPECT_EQ(t.skb.ip_summed, IpSummed::kPartial);
  EXPECT_EQ(t.skb.pkt.data()[70], 0);
  EXPECT_EQ(t.skb.pkt.data()[71], 0);
  // UDPv6: skb_checksum_help, a right checksum, CHECKSUM_NONE.
  Bytes u = Ipv6Frame(17, "", "1f900035000c000001020304");
  size_t len = 0;
  Put16(u, 60, static_cast<uint16_t>(OraclePseudo(u, 14, 54, 17, &len)));
  SkBuff s;
  s.pkt = Packet(u);
  s.pkt.l3_ofs = 14, s.pkt.l4_ofs = 54;
  s.ip_summed = IpSummed::kPartial, s.csum_start = 54, s.csum_offset = 6;
  IbmvethTx ut = IbmvethStartXmit(s, IbmvethConfig{}, kLabKernel);
  ASSERT_TRUE(ut.sent) << ut.drop;
  EXPECT_EQ(ut.skb.ip_summed, IpSummed::kNone);
  EXPECT_TRUE(OracleL4Ok(ut.skb.pkt.bytes(), 14, 54, 17));
}

TEST(KernelIbmvethEdges, ATcpv6LargesendWithoutPlsoCarriesNoMarks) {
  // The 0xffff IP checksum / MSS-in-TCP-checksum marks are IPv4's; a TCPv6
  // largesend only has its TCP field zeroed.
  SkBuff s = Tcp6Partial(3000);
  s.gso_size = 1000, s.gso_type = gso::kTcpv6, s.gso_segs = 3;
  IbmvethConfig cfg;
  cfg.fw_large_send = false;
  Counters c;
  IbmvethTx t = IbmvethStartXmit(s, cfg, kLabKernel, &c);
  ASSERT_TRUE(t.sent) << t.drop;
  EXPECT_TRUE(t.largesend);
  EXPECT_EQ(t.mss, 0);
  EXPECT_EQ(t.skb.pkt.data()[70], 0);
  EXPECT_EQ(t.skb.pkt.data()[71], 0);
  EXPECT_EQ(c.Get("ibmveth_tx_large_packets"), 1u);
}

}  // namespace
}  // namespace offlab::kernel
