// tcp_gro_receive / tcp_gro_complete and dev_gro_receive rules the other
// GRO tests leave out: TCP options compared word by word, an already
// aggregated (GSO) skb joining a held packet, CWR marking the merged
// packet, and a driver's CHECKSUM_COMPLETE sum that does not start at the
// network header.
//
// Sources (torvalds/linux v6.18): net/ipv4/tcp_offload.c tcp_gro_receive:
// "for (i = sizeof(*th); i < thlen; i += 4) flush |= *(u32 *)((u8 *)th + i)
// ^ *(u32 *)((u8 *)th2 + i);" and "if (unlikely(skb_is_gso(skb))) flush |=
// (mss != skb_shinfo(skb)->gso_size);", and since v6.15 ("gro: prevent ACE
// field corruption & better AccECN handling") a CWR difference flushes;
// tcp_gro_complete: "if (th->cwr) skb_shinfo(skb)->gso_type |=
// SKB_GSO_TCP_ACCECN;" (SKB_GSO_TCP_ECN before v6.15). net/core/gro.c dev_gro_receive:
// NAPI_GRO_CB(skb)->count = gso_segs for a TCP GSO skb (v6.4, before it every GSO skb flushed, as
// in v6.1); eth_type_trans's skb_postpull_rcsum leaves skb->csum over the bytes from the network
// header (a driver's sum over the whole frame loses the MAC header; the model also takes a sum that
// starts behind the network header and adds the header bytes, so both reach the same GRO sum).
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

// NOP, NOP, timestamps (kind 8, length 10) TSval `tsval`, TSecr 1.
Bytes Timestamps(uint32_t tsval) {
  return {1,
          1,
          8,
          10,
          static_cast<uint8_t>(tsval >> 24),
          static_cast<uint8_t>(tsval >> 16),
          static_cast<uint8_t>(tsval >> 8),
          static_cast<uint8_t>(tsval),
          0,
          0,
          0,
          1};
}

size_t Merged(GroConfig c, const std::vector<SkBuff>& in) {
  GroCell g(c);
  for (const SkBuff& s : in) g.Receive(s);
  g.Flush();
  return g.stats().merged;
}

TEST(KernelGroTcpMergeRules, OptionsMustMatchWordForWord) {
  Seg s;
  s.options = Timestamps(100);
  auto same = SegTrain(2, s);
  EXPECT_EQ(Merged({}, {DriverSkb(same[0], IpSummed::kUnnecessary),
                        DriverSkb(same[1], IpSummed::kUnnecessary)}),
            1u);
  Seg later = s;
  later.seq += 1000;
  later.options = Timestamps(101);  // the TSval word differs
  EXPECT_EQ(Merged({}, {DriverSkb(same[0], IpSummed::kUnnecessary),
                        DriverSkb(TcpFrame(later), IpSummed::kUnnecessary)}),
            0u);
}

TEST(KernelGroTcpMergeRules, AGsoSkbJoinsOnlyWithTheHeldMss) {
  Seg a;  // 1000 payload bytes: the held packet's mss
  Seg b = a;
  b.seq += 1000;
  b.payload_len = 2000;
  SkBuff gso = DriverSkb(TcpFrame(b), IpSummed::kUnnecessary);
  gso.gso_type = kernel::gso::kTcpv4;
  gso.gso_size = 1000;
  gso.gso_segs = 2;
  const SkBuff first = DriverSkb(TcpFrame(a), IpSummed::kUnnecessary);
  EXPECT_EQ(Merged({}, {first, gso}), 1u);
  SkBuff other = gso;
  other.gso_size = 500;
  other.gso_segs = 4;
  EXPECT_EQ(Merged({}, {first, other}), 0u);
  // v6.1: every GSO skb is flushed, whatever its size.
  GroConfig v61;
  v61.kv = {6, 1};
  GroCell g(v61);
  g.Receive(first);
  EXPECT_EQ(g.Receive(gso), GroResult::kNormal);
}

TEST(KernelGroTcpMergeRules, ADodgyGsoSkbFlushesInsteadOfJoining) {
  // dev_gro_receive since v6.4: "Only support TCP and non DODGY users." --
  // "if (!skb_is_gso_tcp(skb) || (skb_shinfo(skb)->gso_type & SKB_GSO_DODGY))
  // NAPI_GRO_CB(skb)->flush = 1;": the GSO skb that would join the held packet
  // at its mss (above) does not once it is SKB_GSO_DODGY, and goes up alone.
  Seg a;
  Seg b = a;
  b.seq += 1000;
  b.payload_len = 2000;
  SkBuff dodgy = DriverSkb(TcpFrame(b), IpSummed::kUnnecessary);
  dodgy.gso_type = kernel::gso::kTcpv4 | kernel::gso::kDodgy;
  dodgy.gso_size = 1000;
  dodgy.gso_segs = 2;
  const SkBuff first = DriverSkb(TcpFrame(a), IpSummed::kUnnecessary);
  EXPECT_EQ(Merged({}, {first, dodgy}), 0u);
  GroCell g(GroConfig{});
  g.Receive(first);
  EXPECT_EQ(g.Receive(dodgy), GroResult::kNormal);
}

TEST(KernelGroTcpMergeRules, CwrOnTheHeldPacketMarksItAtCompletion) {
  // v6.1: a CWR difference does not stop a merge ("flags ^ th2" masked
  // with ~(CWR | FIN | PSH)); the held CWR head marks the packet TCP_ECN.
  Seg s;
  s.flags = 0x90;  // CWR | ACK
  auto segs = SegTrain(2, s);
  segs[1][34 + 13] = 0x10;  // the second without CWR
  FixL4Csum(segs[1], 14, 34, 6, 16);
  GroConfig v61;
  v61.kv = {6, 1};
  GroCell g(v61);
  for (const Bytes& f : segs) g.Receive(DriverSkb(f, IpSummed::kUnnecessary));
  auto out = g.Flush();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].gso_type, kernel::gso::kTcpv4 | kernel::gso::kTcpEcn);
  // v6.18: CWR differences flush (masked with ~(FIN | PSH) only), so a CWR
  // packet completes alone; one that arrived aggregated (count 2) still
  // goes through tcp_gro_complete, which marks it TCP_ACCECN.
  Seg big = s;
  big.payload_len = 2000;
  SkBuff gso = DriverSkb(TcpFrame(big), IpSummed::kUnnecessary);
  gso.gso_type = kernel::gso::kTcpv4;
  gso.gso_size = 1000;
  gso.gso_segs = 2;
  GroCell h(GroConfig{});
  h.Receive(gso);
  out = h.Flush();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].gso_type, kernel::gso::kTcpv4 | kernel::gro_gso::kTcpAccecn);
  EXPECT_EQ(out[0].gso_segs, 2);
}

TEST(KernelGroTcpMergeRules, CompleteSumFromAnyOffsetIsRebasedToTheNetworkHeader) {
  // IPv4 summed from the MAC header (the MAC header comes out), IPv6 summed
  // from the TCP header (the IPv6 header, which does not sum to zero as an
  // IPv4 header does, goes in).
  Seg v6;
  v6.ipv6 = true;
  struct Case {
    std::vector<Bytes> segs;
    size_t from, l4;
  } cases[] = {{SegTrain(3), 0, 34}, {SegTrain(3, v6), 54, 54}};
  for (const Case& c : cases) {
    GroCell g{GroConfig{}};
    for (const Bytes& f : c.segs) {
      SkBuff s = DriverSkb(f);
      s.ip_summed = IpSummed::kComplete;
      s.csum_from = static_cast<uint16_t>(c.from);
      s.csum = OracleSum(f.data() + c.from, f.size() - c.from);
      g.Receive(s);
    }
    auto out = g.Flush();
    ASSERT_EQ(out.size(), 1u) << c.from;
    EXPECT_EQ(out[0].pkt.bytes(), ExpectedMerged(c.segs, c.l4, 20)) << c.from;
    // The rebased sum verified every TCP checksum: nothing was summed again
    // in software (a wrong one falls back to __skb_gro_checksum_complete).
    EXPECT_EQ(g.stats().csum_bytes, 0u) << c.from;
  }
}

}  // namespace
}  // namespace offlab::testing
