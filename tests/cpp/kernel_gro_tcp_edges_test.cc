// Edges of TCP GRO (models/src/linux/gro_tcp.cc): a later segment's PSH
// carried into the merged header, CWR on the first segment (merged as
// TCP_ECN before v6.15, a flush after), fixed inner IPv4 IDs inside VXLAN
// completed as SKB_GSO_TCP_FIXEDID_INNER (v6.18), and TCP headers that
// are too short for GRO. Frames: kernel_gro_test_frames.h.
//
// Source: torvalds/linux v6.18 net/ipv4/tcp_offload.c tcp_gro_receive
// ("tcp_flag_word(th2) |= flags & (TCP_FLAG_FIN | TCP_FLAG_PSH)"; FIN
// and PSH left out of the flags comparison, CWR too before v6.15),
// tcp_gro_pull_header ("thlen = th->doff * 4; if (thlen < sizeof(*th))
// return NULL"), tcp_gro_complete ("if (th->cwr) ... SKB_GSO_TCP_ECN"
// before "gro: prevent ACE field corruption & better AccECN handling",
// v6.15), tcp4_gro_complete (ip_fixedid bits times SKB_GSO_TCP_FIXEDID).
#include <gtest/gtest.h>

#include "kernel_gro_test_frames.h"
#include "offlab/linux/gro.h"

namespace offlab::testing {
namespace {

using kernel::GroCell;
using kernel::GroConfig;
using kernel::GroResult;
using kernel::SkBuff;

std::vector<SkBuff> Gro(const GroConfig& c, const std::vector<Bytes>& frames) {
  GroCell g(c);
  for (const Bytes& f : frames) g.Receive(DriverSkb(f));
  return g.Flush();
}

TEST(KernelGroTcpEdges, ALaterSegmentsPshIsCarriedIntoTheMergedHeader) {
  Seg s;
  std::vector<Bytes> segs = SegTrain(1, s);
  Seg psh = s;
  psh.flags = 0x18;  // ACK | PSH
  psh.seq += 1000, psh.id++, psh.fill = 7;
  segs.push_back(TcpFrame(psh));
  const auto out = Gro({}, segs);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].gso_segs, 2);
  EXPECT_EQ(out[0].pkt.bytes()[47], 0x18);
}

TEST(KernelGroTcpEdges, CwrOnTheFirstSegmentMergesAsEcnBefore615Only) {
  // Before v6.15 CWR was left out of the flag comparison: ACK|CWR then ACK
  // merge, and tcp_gro_complete marks the packet SKB_GSO_TCP_ECN. From
  // v6.15 the comparison keeps CWR (the AccECN ACE field), so the two
  // differ and the second segment ends the packet.
  Seg s;
  s.flags = 0x90;  // ACK | CWR
  std::vector<Bytes> segs = SegTrain(1, s);
  Seg next = s;
  next.flags = 0x10;
  next.seq += 1000, next.id++, next.fill = 7;
  segs.push_back(TcpFrame(next));
  GroConfig old;
  old.kv = {6, 12, false};
  const auto v612 = Gro(old, segs);
  ASSERT_EQ(v612.size(), 1u);
  EXPECT_EQ(v612[0].gso_segs, 2);
  EXPECT_TRUE(v612[0].gso_type & kernel::gso::kTcpEcn);
  EXPECT_FALSE(v612[0].gso_type & kernel::gro_gso::kTcpAccecn);
  EXPECT_EQ(Gro({}, segs).size(), 2u);
}

TEST(KernelGroTcpEdges, FixedInnerIdsInsideVxlanAreFixedidInner) {
  // Inner IDs all 100 (DF), outer IDs 7, 8: the inner level is a fixed-ID
  // flow, the outer an incrementing one.
  Seg s;
  std::vector<Bytes> frames;
  Outer o;
  for (int k = 0; k < 2; k++) {
    frames.push_back(VxlanFrame(o, TcpFrame(s)));
    s.seq += 1000, s.fill = static_cast<uint8_t>(s.fill + 7);
    o.id++;
  }
  GroConfig c;
  c.vxlan.push_back({});
  const auto out = Gro(c, frames);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(out[0].gso_type & kernel::gro_gso::kTcpFixedidInner618);
  EXPECT_FALSE(out[0].gso_type & kernel::gro_gso::kTcpFixedid618);
}

TEST(KernelGroTcpEdges, TcpHeadersTooShortForGroGoUp) {
  // Data offset 4, or 10 bytes of TCP header: tcp_gro_pull_header fails.
  Bytes doff4 = SegTrain(1)[0];
  doff4[46] = 0x40;
  GroCell g;
  EXPECT_EQ(g.Receive(DriverSkb(doff4)), GroResult::kNormal);
  Seg s;
  s.payload_len = 0;
  Bytes cut = TcpFrame(s);
  cut.resize(44);
  Put16(cut, 16, 30);
  FixIpv4Csum(cut, 14);
  EXPECT_EQ(g.Receive(DriverSkb(cut)), GroResult::kNormal);
  EXPECT_EQ(g.stats().merged, 0u);
}

}  // namespace
}  // namespace offlab::testing
