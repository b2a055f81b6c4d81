// GRO of plain TCP: merge results checked byte for byte against packets
// built in the test (kernel_gro_test_frames.h), the checksum rules (what a
// bad checksum does, what each driver state costs in software), the flush
// rules of tcp_gro_receive and the IP ID rule across kernels.
#include <gtest/gtest.h>

#include "kernel_gro_test_frames.h"
#include "offlab/linux/gro.h"
#include "offlab/linux/gro_cb.h"
#include "offlab/linux/skb_csum.h"
#include "offlab/net/work.h"

namespace offlab::testing {
namespace {

using kernel::GroCell;
using kernel::GroConfig;
using kernel::GroResult;
using kernel::IpSummed;
using kernel::SkBuff;

std::vector<Bytes> Train(int n, Seg s = {}) { return SegTrain(n, s); }

GroConfig Kv(int maj, int min, bool rhel7 = false) {
  GroConfig c;
  c.kv = {maj, min, rhel7};
  return c;
}

TEST(KernelGroTcp, MergesInOrderSegmentsByteForByte) {
  const auto segs = Train(4);
  GroCell gro;
  EXPECT_EQ(gro.Receive(DriverSkb(segs[0])), GroResult::kHeld);
  for (int k = 1; k < 4; k++) EXPECT_EQ(gro.Receive(DriverSkb(segs[k])), GroResult::kMerged);
  auto out = gro.Flush();
  ASSERT_EQ(out.size(), 1u);
  const SkBuff& m = out[0];
  EXPECT_EQ(m.pkt.bytes(), ExpectedMerged(segs, 34, 20));
  EXPECT_EQ(m.pkt.size(), 54u + 4000u);
  EXPECT_EQ(m.ip_summed, IpSummed::kPartial);
  EXPECT_EQ(m.csum_start, 34);
  EXPECT_EQ(m.csum_offset, 16);
  EXPECT_EQ(m.gso_size, 1000);
  EXPECT_EQ(m.gso_segs, 4);
  EXPECT_EQ(m.gso_type, kernel::gso::kTcpv4);
  EXPECT_FALSE(m.encapsulation);
  // Linear frames (no page frags, no head_frag) are chained on frag_list.
  EXPECT_EQ(m.frag_list_lens, (std::vector<uint32_t>{1000, 1000, 1000}));
  EXPECT_EQ(m.nr_frags, 0);
  // CHECKSUM_NONE: every segment summed in software once (TCP header + data).
  EXPECT_EQ(gro.stats().csum_bytes, 4u * 1020u);
  EXPECT_EQ(gro.stats().merged, 3u);
  // Completing the PARTIAL checksum gives a TCP checksum that verifies.
  SkBuff done = m;
  ASSERT_TRUE(kernel::SkbCompletePartial(done));
  EXPECT_TRUE(OracleL4Ok(done.pkt.bytes(), 14, 34, 6));
}

TEST(KernelGroTcp, PageFragsAndHeadFrag) {
  const auto segs = Train(3);
  GroCell gro;
  SkBuff first = DriverSkb(segs[0]);
  first.nr_frags = 1;
  gro.Receive(std::move(first));
  SkBuff second = DriverSkb(segs[1]);
  second.nr_frags = 1;
  EXPECT_EQ(gro.Receive(std::move(second)), GroResult::kMergedFree);
  auto out = gro.Flush();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].nr_frags, 2);
  EXPECT_TRUE(out[0].frag_list_lens.empty());

  GroConfig c;
  c.head_frag = true;
  GroCell hf(c);
  for (const Bytes& s : segs) hf.Receive(DriverSkb(s));
  out = hf.Flush();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].nr_frags, 2);  // one stolen head per merged segment
  EXPECT_TRUE(out[0].frag_list_lens.empty());
}

TEST(KernelGroTcp, BadTcpChecksumGoesUpUnmerged) {
  Seg s;
  auto segs = Train(3, s);
  Seg bad = s;
  bad.seq += 1000;
  bad.id++;
  bad.fill = 7;
  bad.bad_tcp_csum = true;
  segs[1] = TcpFrame(bad);
  GroCell gro;
  EXPECT_EQ(gro.Receive(DriverSkb(segs[0])), GroResult::kHeld);
  EXPECT_EQ(gro.Receive(DriverSkb(segs[1])), GroResult::kNormal);
  EXPECT_EQ(gro.last_reason(), "tcp_csum");
  // The lab kernel hands up the same three frames in this order (bad one
  // with no checksum verdict, the other two CHECKSUM_UNNECESSARY).
  // The held packet is not flushed by the bad one; the third (seq 3000 after
  // a held 1000..2000) does not follow it, so it ends it and is held.
  EXPECT_EQ(gro.Receive(DriverSkb(segs[2])), GroResult::kHeld);
  auto out = gro.Flush();
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].pkt.bytes(), segs[1]);
  EXPECT_EQ(out[0].ip_summed, IpSummed::kNone);  // as the driver left it
  EXPECT_EQ(out[1].pkt.bytes(), segs[0]);
  EXPECT_EQ(out[1].gso_size, 0);
  EXPECT_EQ(out[1].ip_summed, IpSummed::kUnnecessary);  // verified in software
  EXPECT_EQ(out[2].pkt.bytes(), segs[2]);
  EXPECT_EQ(gro.stats().not_validated.at("tcp_csum"), 1u);
}

TEST(KernelGroTcp, BadIpHeaderChecksumIsNotSummed) {
  Seg s;
  s.bad_ip_csum = true;
  GroCell gro;
  EXPECT_EQ(gro.Receive(DriverSkb(TcpFrame(s))), GroResult::kNormal);
  EXPECT_EQ(gro.last_reason(), "ip_header_csum");
  EXPECT_EQ(gro.stats().csum_bytes, 0u);
  auto out = gro.Flush();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].ip_summed, IpSummed::kNone);
}

TEST(KernelGroTcp, OutOfOrderSequenceFlushesTheHeldPacket) {
  const auto segs = Train(3);
  GroCell gro;
  gro.Receive(DriverSkb(segs[0]));
  EXPECT_EQ(gro.Receive(DriverSkb(segs[2])), GroResult::kHeld);
  EXPECT_EQ(gro.Receive(DriverSkb(segs[1])), GroResult::kHeld);
  auto out = gro.Flush();
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].pkt.bytes(), segs[0]);
  EXPECT_EQ(out[1].pkt.bytes(), segs[2]);
  EXPECT_EQ(out[2].pkt.bytes(), segs[1]);
}

TEST(KernelGroTcp, PshEndsThePacketAndIsKept) {
  Seg s;
  auto segs = Train(3, s);
  Seg psh = s;
  psh.seq += 1000;
  psh.id++;
  psh.fill = 7;
  psh.flags = 0x18;  // ACK|PSH
  segs[1] = TcpFrame(psh);
  GroCell gro;
  gro.Receive(DriverSkb(segs[0]));
  EXPECT_EQ(gro.Receive(DriverSkb(segs[1])), GroResult::kMerged);
  EXPECT_EQ(gro.held(), 0u);  // flushed at once
  EXPECT_EQ(gro.Receive(DriverSkb(segs[2])), GroResult::kHeld);
  auto out = gro.Flush();
  ASSERT_EQ(out.size(), 2u);
  Bytes want = ExpectedMerged({segs[0], segs[1]}, 34, 20);
  want[34 + 13] = 0x18;  // PSH carried into the merged header
  EXPECT_EQ(out[0].pkt.bytes(), want);
  EXPECT_EQ(out[0].gso_segs, 2);
  // A lone PSH or FIN segment goes up at once.
  Seg fin = s;
  fin.flags = 0x11;
  GroCell g2;
  EXPECT_EQ(g2.Receive(DriverSkb(TcpFrame(fin))), GroResult::kNormal);
}

TEST(KernelGroTcp, ShortLastSegmentEndsThePacket) {
  Seg s;
  auto segs = Train(2, s);
  Seg tail = s;
  tail.seq += 2000;
  tail.id = static_cast<uint16_t>(tail.id + 2);
  tail.payload_len = 300;
  segs.push_back(TcpFrame(tail));
  Seg longer = tail;
  longer.seq += 300;
  longer.id++;
  longer.payload_len = 1400;  // above the held mss: never joins
  GroCell gro;
  for (int k = 0; k < 2; k++) gro.Receive(DriverSkb(segs[k]));
  EXPECT_EQ(gro.Receive(DriverSkb(segs[2])), GroResult::kMerged);
  EXPECT_EQ(gro.held(), 0u);
  auto out = gro.Flush();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].gso_size, 1000);
  EXPECT_EQ(out[0].gso_segs, 3);
  EXPECT_EQ(out[0].pkt.size(), 54u + 2300u);

  GroCell g2;
  g2.Receive(DriverSkb(segs[0]));
  Seg big = s;
  big.seq += 1000;
  big.id++;
  big.payload_len = 1400;
  EXPECT_EQ(g2.Receive(DriverSkb(TcpFrame(big))), GroResult::kHeld);
  EXPECT_EQ(g2.Flush().size(), 2u);
}

TEST(KernelGroTcp, WindowOrTtlChangeDoesNotMerge) {
  Seg s;
  auto segs = Train(2, s);
  Seg w = s;
  w.seq += 1000;
  w.id++;
  w.window = 600;
  GroCell gro;
  gro.Receive(DriverSkb(segs[0]));
  EXPECT_EQ(gro.Receive(DriverSkb(TcpFrame(w))), GroResult::kHeld);
  EXPECT_EQ(gro.last_reason(), "tcp_flags_or_window");
  Seg t = s;
  t.seq += 1000;
  t.id++;
  t.ttl = 63;
  GroCell g2;
  g2.Receive(DriverSkb(segs[0]));
  EXPECT_EQ(g2.Receive(DriverSkb(TcpFrame(t))), GroResult::kHeld);
  EXPECT_EQ(g2.last_reason(), "ip_id_ttl_tos");
}

TEST(KernelGroTcp, DriverChecksumStates) {
  const auto segs = Train(3);
  // UNNECESSARY: nothing summed.
  GroCell un;
  for (const Bytes& s : segs) un.Receive(DriverSkb(s, IpSummed::kUnnecessary));
  EXPECT_EQ(un.stats().csum_bytes, 0u);
  EXPECT_EQ(un.stats().merged, 2u);
  // COMPLETE with the right sum: nothing summed either.
  GroCell co;
  for (const Bytes& s : segs) co.Receive(DriverSkb(s, IpSummed::kComplete));
  EXPECT_EQ(co.stats().csum_bytes, 0u);
  EXPECT_EQ(co.stats().merged, 2u);
  // COMPLETE with a wrong sum: the software sum decides (and the data is good).
  GroCell wrong;
  SkBuff b = DriverSkb(segs[0], IpSummed::kComplete);
  b.csum ^= 0x1234;
  wrong.Receive(std::move(b));
  EXPECT_EQ(wrong.stats().csum_bytes, 1020u);
  EXPECT_EQ(wrong.Receive(DriverSkb(segs[1], IpSummed::kComplete)), GroResult::kMerged);
  // GRO off: passed up untouched, no checksum work.
  GroConfig off;
  off.features = 0;
  GroCell none(off);
  EXPECT_EQ(none.Receive(DriverSkb(segs[0])), GroResult::kNormal);
  EXPECT_EQ(none.stats().csum_bytes, 0u);
  EXPECT_EQ(none.Flush()[0].ip_summed, IpSummed::kNone);
}

TEST(KernelGroTcp, IpIdRuleAcrossKernels) {
  // Two segments, same IP ID, DF clear: merged by the lab kernel (6.18,
  // veth GRO, seen as one 2054-byte TCPV4 GSO skb).
  Seg s;
  s.df = false;
  Bytes a = TcpFrame(s);
  s.seq += 1000;
  s.fill = 7;
  Bytes b = TcpFrame(s);
  auto merges = [&](GroConfig c) {
    GroCell g(c);
    g.Receive(DriverSkb(a));
    return g.Receive(DriverSkb(b)) == GroResult::kMerged;
  };
  EXPECT_TRUE(merges(Kv(6, 18)));   // fixed IDs allowed without DF
  EXPECT_FALSE(merges(Kv(6, 12)));  // fixed IDs need DF
  EXPECT_FALSE(merges(Kv(4, 9)));
  EXPECT_FALSE(merges(Kv(3, 10, true)));
  // With DF: fixed IDs merge from 4.7 on, and are flagged for GSO.
  Seg d;
  Bytes c1 = TcpFrame(d);
  d.seq += 1000;
  d.fill = 7;
  Bytes c2 = TcpFrame(d);
  auto gso_type = [&](GroConfig c) {
    GroCell g(c);
    g.Receive(DriverSkb(c1));
    g.Receive(DriverSkb(c2));
    auto out = g.Flush();
    return out.size() == 1 ? out[0].gso_type : 0u;
  };
  EXPECT_EQ(gso_type(Kv(6, 18)), kernel::gso::kTcpv4 | kernel::gro_gso::kTcpFixedid618);
  EXPECT_EQ(gso_type(Kv(6, 12)), kernel::gso::kTcpv4 | kernel::gso::kTcpFixedid);
  EXPECT_EQ(gso_type(Kv(4, 9)), kernel::gso::kTcpv4 | kernel::gso::kTcpFixedid);
  EXPECT_EQ(gso_type(Kv(4, 4)), 0u);  // 4.4: IDs must increment
  // Incrementing IDs with DF merge in every version and are never flagged:
  // before 4.7 there is no such flag, and from 4.7 an atomic flow whose ID
  // moved by one at its second segment counts as incrementing.
  const auto inc = SegTrain(2);
  c1 = inc[0];
  c2 = inc[1];
  EXPECT_EQ(gso_type(Kv(4, 6)), kernel::gso::kTcpv4);
  EXPECT_EQ(gso_type(Kv(4, 9)), kernel::gso::kTcpv4);
}

TEST(KernelGroTcp, Ipv6MergesAndSetsPayloadLength) {
  Seg s;
  s.ipv6 = true;
  const auto segs = Train(3, s);
  GroCell gro;
  for (const Bytes& f : segs) gro.Receive(DriverSkb(f));
  auto out = gro.Flush();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].pkt.bytes(), ExpectedMerged(segs, 54, 20));
  EXPECT_EQ(out[0].gso_type, kernel::gso::kTcpv6);
  EXPECT_EQ(out[0].csum_start, 54);
  EXPECT_EQ(out[0].gso_segs, 3);
}

TEST(KernelGroTcp, Ipv6HopLimitOrTrafficClassChangeDoesNotMerge) {
  // ipv6_gro_flush (include/net/gro.h, v6.18): the traffic class and the hop
  // limit must match the held packet's; the flow label may differ.
  Seg s;
  s.ipv6 = true;
  const auto segs = Train(2, s);
  for (int field = 0; field < 2; field++) {
    Seg t = s;
    t.seq += 1000;
    if (field == 0) t.ttl = 63;  // hop limit
    if (field == 1) t.tos = 0x20;
    GroCell gro;
    EXPECT_EQ(gro.Receive(DriverSkb(segs[0])), GroResult::kHeld);
    EXPECT_EQ(gro.Receive(DriverSkb(TcpFrame(t))), GroResult::kHeld) << field;
    EXPECT_EQ(gro.Flush().size(), 2u) << field;
  }
  // The same segment with the held packet's hop limit and class merges.
  GroCell gro;
  gro.Receive(DriverSkb(segs[0]));
  EXPECT_EQ(gro.Receive(DriverSkb(segs[1])), GroResult::kMerged);
}

TEST(KernelGroTcp, Ipv6SegmentsFromAnotherSourceAreAnotherFlow) {
  // ipv6_gro_receive (net/ipv6/ip6_offload.c): addresses, next header and
  // flow label must match for same_flow; with the same MAC header, ports and
  // sequence a segment from another source address is not merged.
  Seg s;
  s.ipv6 = true;
  const auto segs = Train(2, s);
  Seg t = s;
  t.seq += 1000;
  t.src[3] = 9;
  GroCell gro;
  EXPECT_EQ(gro.Receive(DriverSkb(segs[0])), GroResult::kHeld);
  EXPECT_EQ(gro.Receive(DriverSkb(TcpFrame(t))), GroResult::kHeld);
  EXPECT_EQ(gro.Flush().size(), 2u);
}

TEST(KernelGroTcp, FullBucketEvictsItsOldest) {
  GroCell gro;
  std::vector<Bytes> firsts;
  for (int k = 0; k < 9; k++) {
    Seg s;
    s.sport = static_cast<uint16_t>(41000 + k);
    firsts.push_back(TcpFrame(s));
    EXPECT_EQ(gro.Receive(DriverSkb(firsts.back())), GroResult::kHeld);
  }
  EXPECT_EQ(gro.held(), 8u);
  EXPECT_EQ(gro.stats().evicted, 1u);
  auto out = gro.Flush();
  ASSERT_EQ(out.size(), 9u);
  EXPECT_EQ(out[0].pkt.bytes(), firsts[0]);  // evicted first
  EXPECT_EQ(out[1].pkt.bytes(), firsts[1]);  // then oldest first
}

TEST(KernelGroTcp, TruncatedFramesAreSafe) {
  const Bytes f = TcpFrame(Seg{});
  GroCell gro;
  for (size_t n = 0; n < 80; n++) {
    Bytes cut(f.begin(), f.begin() + static_cast<long>(n));
    SkBuff skb = DriverSkb(cut);
    gro.Receive(std::move(skb));
  }
  EXPECT_EQ(gro.Flush().size(), 80u);
}

TEST(KernelGroVersions, LegacyChecksumRulesInOld3xKernelsButNotRhel7) {
  // v3.14 tcp4_gro_receive switches on ip_summed (before 573e8fca255a "net:
  // skb_gro_checksum_* functions"); v4.0 has the helpers, and RHEL 7's 3.10
  // carries them (its GRO rules are backported).
  EXPECT_TRUE(kernel::UseLegacyChecksums(kernel::KernelVersion{3, 14, false}));
  EXPECT_FALSE(kernel::UseLegacyChecksums(kernel::KernelVersion{4, 0, false}));
  EXPECT_FALSE(kernel::UseLegacyChecksums(kernel::KernelVersion{3, 10, true}));
}

}  // namespace
}  // namespace offlab::testing
