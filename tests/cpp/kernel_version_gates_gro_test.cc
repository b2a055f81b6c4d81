// Kernel version gates of GRO (gro_flush.cc, gro_tcp.cc, gro_udp.cc,
// gro_inet.cc, gro_vxlan.cc, gro_geneve.cc, gro_csum.cc): each rule is
// checked at exactly the release that brought it and at the release before,
// so moving a gate by one release either way fails a test. Expected results
// follow the kernel changes the model cites:
//  - v3.14 b582ef0990d4 "net: Add GRO support for UDP encapsulating
//    protocols" (UDP GRO, VXLAN GRO comparing the VNI only);
//  - v3.16 skb_gro_checksum_* (the legacy ip_summed switch before);
//  - v3.18 57c67ff4bd92 "udp: additional GRO support" (the outer UDP
//    checksum validated instead of needing encapsulation/COMPLETE);
//  - v4.0 VXLAN RCO, the VXLAN flags word compared, Geneve GRO;
//  - v4.7 "GRO: Add support for TCP with fixed IPv4 ID field" (flush_id
//    per level with is_atomic, SKB_GSO_TCP_FIXEDID);
//  - v5.0 e20cf8d3f1f7 UDP GRO for UDP_GRO sockets, v5.6 9fd1ff5d2ac7
//    fraglist GRO, v5.12 89e5c58fc1e2 (`uh->check &&`);
//  - v6.9 "net: gro: add flush check in udp_gro_receive_segment" (6.9-rc7);
//  - v6.10 Richard Gobert's "net: gro: move L3 flush checks to
//    tcp_gro_receive and udp_gro_receive_segment" (ip_fixedid per packet);
//  - v6.15 "gro: prevent ACE field corruption & better AccECN handling";
//  - v6.18 ip_fixedid per level, fixed IDs without DF.
// Frames: kernel_gro_test_frames.h (plain-loop checksums).
#include <gtest/gtest.h>

#include "kernel_gro_test_frames.h"
#include "offlab/linux/gro.h"
#include "offlab/linux/gro_cb.h"

namespace offlab::testing {
namespace {

using kernel::GroCell;
using kernel::GroConfig;
using kernel::IpSummed;
using kernel::KernelVersion;
using kernel::SkBuff;
namespace gso = kernel::gso;

GroConfig At(int maj, int min) {
  GroConfig c;
  c.kv = KernelVersion{maj, min, false};
  return c;
}

struct GroRun {
  std::vector<SkBuff> out;
  uint64_t merged = 0;
  std::string last_reason;
};

GroRun Gro(const GroConfig& c, const std::vector<Bytes>& frames,
           IpSummed st = IpSummed::kUnnecessary) {
  GroCell g(c);
  GroRun r;
  for (const Bytes& f : frames) {
    g.Receive(DriverSkb(f, st));
    if (!g.last_reason().empty()) r.last_reason = g.last_reason();
  }
  r.out = g.Flush();
  r.merged = g.stats().merged;
  return r;
}

// Two TCP segments of one flow with the same IP ID 100 (DF as given).
std::vector<Bytes> FixedIdPair(bool df) {
  Seg s;
  s.df = df;
  Bytes a = TcpFrame(s);
  s.seq += 1000;
  s.fill = 7;
  return {a, TcpFrame(s)};
}

uint32_t GsoTypeOfOne(const GroRun& r) { return r.out.size() == 1 ? r.out[0].gso_type : 0u; }

TEST(KernelVersionGatesGro, FixedIdsWithDfMergeFrom47) {
  // Before 4.7 the ID must advance by the count; 4.7 lets an atomic (DF)
  // flow keep its ID and marks it SKB_GSO_TCP_FIXEDID.
  EXPECT_EQ(Gro(At(4, 6), FixedIdPair(true)).out.size(), 2u);
  EXPECT_EQ(GsoTypeOfOne(Gro(At(4, 7), FixedIdPair(true))), gso::kTcpv4 | gso::kTcpFixedid);
  // 6.9 (is_atomic) and 6.10 (ip_fixedid) mark it the same way.
  EXPECT_EQ(GsoTypeOfOne(Gro(At(6, 9), FixedIdPair(true))), gso::kTcpv4 | gso::kTcpFixedid);
  EXPECT_EQ(GsoTypeOfOne(Gro(At(6, 10), FixedIdPair(true))), gso::kTcpv4 | gso::kTcpFixedid);
  // An incrementing flow is never marked: from 4.7 to 6.9 an atomic flow
  // whose ID moved by one at its second segment turns incrementing
  // (is_atomic cleared), 6.10 never sets ip_fixedid.
  EXPECT_EQ(GsoTypeOfOne(Gro(At(4, 7), SegTrain(2))), gso::kTcpv4);
  EXPECT_EQ(GsoTypeOfOne(Gro(At(6, 9), SegTrain(2))), gso::kTcpv4);
  EXPECT_EQ(GsoTypeOfOne(Gro(At(6, 10), SegTrain(2))), gso::kTcpv4);
  // 6.18: the per-level bit (SKB_GSO_TCP_FIXEDID moved to bit 30).
  EXPECT_EQ(GsoTypeOfOne(Gro(At(6, 17), FixedIdPair(true))), gso::kTcpv4 | gso::kTcpFixedid);
  EXPECT_EQ(GsoTypeOfOne(Gro(At(6, 18), FixedIdPair(true))),
            gso::kTcpv4 | kernel::gro_gso::kTcpFixedid618);
}

TEST(KernelVersionGatesGro, FixedIdsWithoutDfMergeFrom618) {
  EXPECT_EQ(Gro(At(6, 17), FixedIdPair(false)).merged, 0u);
  EXPECT_EQ(Gro(At(6, 18), FixedIdPair(false)).merged, 1u);
}

// `n` VXLAN frames of one inner TCP flow. The outer IPv4 header has no DF
// and IDs outer_id, outer_id + outer_step, ...; the inner one DF and IDs
// 100, 100 + inner_step, ...
std::vector<Bytes> VxlanTrain(int n, uint16_t outer_step, uint16_t inner_step) {
  std::vector<Bytes> frames;
  auto inner = SegTrain(n);
  Outer o;
  for (int k = 0; k < n; k++) {
    Put16(inner[k], 18, static_cast<uint16_t>(100 + k * inner_step));
    FixIpv4Csum(inner[k], 14);
    o.id = static_cast<uint16_t>(7 + k * outer_step);
    Bytes f = VxlanFrame(o, inner[k]);
    Put16(f, 20, 0);  // outer flags: DF clear
    FixIpv4Csum(f, 14);
    frames.push_back(f);
  }
  return frames;
}

GroConfig VxlanAt(int maj, int min) {
  GroConfig c = At(maj, min);
  c.vxlan.push_back({});
  return c;
}

TEST(KernelVersionGatesGro, TunnelIdRulesPerRelease) {
  // Outer IDs incrementing without DF, inner IDs fixed with DF, 3 frames.
  const auto train = VxlanTrain(3, 1, 0);
  // < 4.7: the innermost level's "ID + count" test stands: the fixed
  // inner ID flushes.
  EXPECT_EQ(Gro(VxlanAt(4, 6), train).merged, 0u);
  // 4.7 .. 6.9: each level's flush_id; the outer advanced by the count,
  // the inner is atomic and fixed.
  EXPECT_EQ(Gro(VxlanAt(4, 7), train).merged, 2u);
  EXPECT_EQ(Gro(VxlanAt(6, 9), train).merged, 2u);
  // 6.10 .. 6.17: one ip_fixedid for the packet, set by the inner level at
  // the second frame, then demands a fixed outer ID at the third.
  EXPECT_EQ(Gro(VxlanAt(6, 10), train).merged, 1u);
  EXPECT_EQ(Gro(VxlanAt(6, 17), train).merged, 1u);
  // 6.18: ip_fixedid per level.
  EXPECT_EQ(Gro(VxlanAt(6, 18), train).merged, 2u);
}

TEST(KernelVersionGatesGro, FixedOuterIdWithoutDf) {
  // Outer IDs fixed without DF, inner incrementing with DF, 2 frames.
  const auto train = VxlanTrain(2, 0, 1);
  // 3.13 .. 4.6: only the innermost level's ID test counts (flush_id).
  EXPECT_EQ(Gro(VxlanAt(3, 18), train).merged, 1u);
  EXPECT_EQ(Gro(VxlanAt(4, 6), train).merged, 1u);
  // 4.7: a non-atomic outer level's flush_id 0xFFFF cannot be cleared.
  EXPECT_EQ(Gro(VxlanAt(4, 7), train).merged, 0u);
}

TEST(KernelVersionGatesGro, UdpTunnelNeedsEncapsulationBefore318) {
  // 3.14 .. 3.17: udp_gro_receive takes only skb->encapsulation or
  // CHECKSUM_COMPLETE; 3.18 validates the outer checksum instead, so a
  // driver's CHECKSUM_UNNECESSARY is enough.
  const auto train = VxlanTrain(2, 1, 1);
  const GroRun r317 = Gro(VxlanAt(3, 17), train);
  EXPECT_EQ(r317.merged, 0u);
  EXPECT_EQ(r317.last_reason, "udp_tunnel_not_encapsulated");
  EXPECT_EQ(Gro(VxlanAt(3, 18), train).merged, 1u);
}

TEST(KernelVersionGatesGro, UdpGroFrom314) {
  // A CHECKSUM_COMPLETE datagram to a port without a tunnel: from 3.14 UDP
  // has a gro_receive, which finds no tunnel socket; 3.13 has none.
  Outer o;
  o.dport = 9000;
  const Bytes d = VxlanFrame(o, Bytes(600, 1));
  EXPECT_NE(Gro(At(3, 13), {d}, IpSummed::kComplete).last_reason, "udp_no_tunnel");
  EXPECT_EQ(Gro(At(3, 14), {d}, IpSummed::kComplete).last_reason, "udp_no_tunnel");
}

TEST(KernelVersionGatesGro, LegacyChecksumsBefore316) {
  EXPECT_TRUE(kernel::UseLegacyChecksums(KernelVersion{3, 15, false}));
  EXPECT_FALSE(kernel::UseLegacyChecksums(KernelVersion{3, 16, false}));
}

TEST(KernelVersionGatesGro, VxlanFlagsWordComparedFrom40) {
  // The second frame's VXLAN flags word differs in a reserved bit: 3.19
  // compares the VNI only, 4.0 the flags too.
  auto train = VxlanTrain(2, 1, 1);
  train[1][45] = 0x01;
  FixL4Csum(train[1], 14, 34, 17, 6);
  EXPECT_EQ(Gro(VxlanAt(3, 19), train).merged, 1u);
  EXPECT_EQ(Gro(VxlanAt(4, 0), train).merged, 0u);
}

TEST(KernelVersionGatesGro, GeneveGroFrom40) {
  // The VXLAN train re-headed as Geneve (port 6081, protocol 0x6558).
  auto train = VxlanTrain(2, 1, 1);
  for (Bytes& f : train) {
    Put16(f, 36, 6081);
    f[42] = 0, f[43] = 0;
    Put16(f, 44, 0x6558);
    FixL4Csum(f, 14, 34, 17, 6);
  }
  auto at = [&](int maj, int min) {
    GroConfig c = At(maj, min);
    c.geneve.push_back({});
    return Gro(c, train).merged;
  };
  EXPECT_EQ(at(3, 19), 0u);
  EXPECT_EQ(at(4, 0), 1u);
}

TEST(KernelVersionGatesGro, CwrHeldPacketJoinsUntil614) {
  // The held packet carries CWR, the next segment not: before 6.15 CWR was
  // ignored in the flag comparison (and the merged packet is TCP_ECN);
  // from 6.15 the flag words must match.
  Seg s;
  s.flags = 0x90;  // ACK|CWR
  Bytes a = TcpFrame(s);
  s.flags = 0x10;
  s.seq += 1000;
  s.id++;
  s.fill = 7;
  const std::vector<Bytes> pair = {a, TcpFrame(s)};
  const GroRun r614 = Gro(At(6, 14), pair);
  ASSERT_EQ(r614.out.size(), 1u);
  EXPECT_EQ(r614.out[0].gso_type, gso::kTcpv4 | gso::kTcpEcn);
  EXPECT_EQ(Gro(At(6, 15), pair).merged, 0u);
}

// A TCP GSO skb of two 1000-byte segments (CWR on with `cwr`), after `a`.
SkBuff GsoPair(bool cwr) {
  Seg s;
  if (cwr) s.flags = 0x90;
  s.seq += 1000;
  s.payload_len = 2000;
  SkBuff gso = DriverSkb(TcpFrame(s), IpSummed::kUnnecessary);
  gso.gso_type = gso::kTcpv4;
  gso.gso_size = 1000;
  gso.gso_segs = 2;
  return gso;
}

TEST(KernelVersionGatesGro, GsoSkbJoinsAsItsSegmentsFrom64) {
  // 0b1605e45c36: a TCP GSO skb counts gso_segs and may join; 6.3 flushed
  // every GSO skb.
  auto joins = [](int maj, int min) {
    GroCell g(At(maj, min));
    g.Receive(DriverSkb(TcpFrame(Seg{}), IpSummed::kUnnecessary));
    return g.Receive(GsoPair(false)) == kernel::GroResult::kMerged;
  };
  EXPECT_FALSE(joins(6, 3));
  EXPECT_TRUE(joins(6, 4));
}

TEST(KernelVersionGatesGro, AggregatedCwrSkbIsAccecnFrom615) {
  // A lone aggregated CWR skb still goes through tcp_gro_complete: TCP_ECN
  // until 6.14, TCP_ACCECN from 6.15.
  auto type = [](int maj, int min) {
    GroCell g(At(maj, min));
    g.Receive(GsoPair(true));
    auto out = g.Flush();
    return out.size() == 1 ? out[0].gso_type : 0u;
  };
  EXPECT_EQ(type(6, 14), gso::kTcpv4 | gso::kTcpEcn);
  EXPECT_EQ(type(6, 15), gso::kTcpv4 | kernel::gro_gso::kTcpAccecn);
}

TEST(KernelVersionGatesGro, ForwardedTcpFraglistGroFrom611) {
  // "net: add heuristic for enabling TCP fraglist GRO" (v6.11): with
  // GRO_FRAGLIST and no local socket, TCP is chained on frag_list.
  auto type = [](int maj, int min) {
    GroConfig c = At(maj, min);
    c.features = kernel::netif::kGro | kernel::netif::kGroFraglist;
    c.tcp_local_socket = false;
    const GroRun r = Gro(c, SegTrain(2));
    return r.out.size() == 1 ? r.out[0].gso_type : 0u;
  };
  EXPECT_EQ(type(6, 10), gso::kTcpv4);
  EXPECT_EQ(type(6, 11), gso::kTcpv4 | gso::kFraglist);
}

// IPv4 UDP datagrams to port 9000 (VxlanFrame's 8-byte header is data).
std::vector<Bytes> Datagrams(int n) {
  std::vector<Bytes> d;
  for (int k = 0; k < n; k++) {
    Outer o;
    o.dport = 9000;
    o.id = static_cast<uint16_t>(1 + k);
    d.push_back(VxlanFrame(o, Bytes(600, static_cast<uint8_t>(k))));
  }
  return d;
}

TEST(KernelVersionGatesGro, UdpGroSocketFrom50) {
  auto at = [](int maj, int min) {
    GroConfig c = At(maj, min);
    c.udp_sockets.push_back({9000, true});
    return c;
  };
  EXPECT_EQ(Gro(at(4, 20), Datagrams(2)).merged, 0u);
  const GroRun r50 = Gro(at(5, 0), Datagrams(2));
  EXPECT_EQ(r50.merged, 1u);
  ASSERT_EQ(r50.out.size(), 1u);
  EXPECT_EQ(r50.out[0].gso_type, gso::kUdpL4);
}

TEST(KernelVersionGatesGro, UdpFraglistGroFrom56) {
  auto at = [](int maj, int min) {
    GroConfig c = At(maj, min);
    c.features = kernel::netif::kGro | kernel::netif::kGroFraglist;
    return c;
  };
  EXPECT_EQ(Gro(at(5, 5), Datagrams(2)).merged, 0u);
  const GroRun r56 = Gro(at(5, 6), Datagrams(2));
  ASSERT_EQ(r56.out.size(), 1u);
  EXPECT_EQ(r56.out[0].gso_type, gso::kFraglist | gso::kUdpL4);
}

TEST(KernelVersionGatesGro, UdpSegmentsGetTheL3FlushChecksFrom69) {
  // "net: gro: add flush check in udp_gro_receive_segment" (in Linux
  // 6.9-rc7): a datagram whose TTL differs stops the merge from 6.9 on;
  // 6.8's udp_gro_receive_segment never looked at NAPI_GRO_CB(p)->flush.
  auto d = Datagrams(2);
  d[1][22] = 63;
  FixIpv4Csum(d[1], 14);
  auto at = [&](int maj, int min) {
    GroConfig c = At(maj, min);
    c.features = kernel::netif::kGro | kernel::netif::kGroUdpFwd;
    return Gro(c, d).merged;
  };
  EXPECT_EQ(at(6, 8), 1u);
  EXPECT_EQ(at(6, 9), 0u);
}

TEST(KernelVersionGatesGro, ZeroChecksumTunnelMergesAgainFrom512) {
  // A VXLAN train without outer UDP checksum, not vouched for by the
  // driver: 3.18 .. 5.11 need a validated outer checksum, 5.12 exempts a
  // zero one.
  const auto inner = SegTrain(2);
  Outer o;
  o.udp_csum = false;
  std::vector<Bytes> train;
  for (size_t k = 0; k < 2; k++) {
    o.id = static_cast<uint16_t>(7 + k);
    train.push_back(VxlanFrame(o, inner[k]));
  }
  const GroRun r511 = Gro(VxlanAt(5, 11), train, IpSummed::kNone);
  EXPECT_EQ(r511.merged, 0u);
  EXPECT_EQ(Gro(VxlanAt(5, 12), train, IpSummed::kNone).merged, 1u);
}

}  // namespace
}  // namespace offlab::testing
