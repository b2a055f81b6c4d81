// Edges of plain UDP GRO (models/src/linux/gro_udp.cc,
// udp_gro_receive_segment): a zero checksum or a UDP length that is not
// the packet's ends the train, a longer datagram is not merged and a
// shorter one is merged as the last, at most UDP_GRO_CNT_MAX (64)
// segments, ports tell flows apart, the network-header flush checks that
// reached UDP segments in v6.10, and a UDP_GRO socket found after another
// socket in the list.
//
// Source: torvalds/linux v6.18 net/ipv4/udp_offload.c
// udp_gro_receive_segment ("requires non zero csum, for symmetry with
// GSO"; "if (ulen <= sizeof(*uh) || ulen != skb_gro_len(skb))"; "Match
// ports only"; "if (ulen > ntohs(uh2->len) || flush) pp = p"; "if (ret ||
// ulen != ntohs(uh2->len) || NAPI_GRO_CB(p)->count >= UDP_GRO_CNT_MAX) pp
// = p"), include/net/udp.h UDP_GRO_CNT_MAX 64, 4b0ebbca3e16 (v6.10, "net:
// gro: add flush check in udp_gro_receive_segment"). Frames:
// kernel_gro_test_frames.h (plain-loop sums).
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

GroConfig Fwd(kernel::KernelVersion kv = kernel::kLabKernel) {
  GroConfig c;
  c.kv = kv;
  c.features = kernel::netif::kGro | kernel::netif::kGroUdpFwd;
  return c;
}

// IPv4 UDP 55555 -> 9000 carrying 8 + n bytes (VxlanFrame's 8-byte header
// is data here), IP ID `id`.
Bytes Datagram(size_t n, uint16_t id, bool csum = true, uint16_t sport = 55555) {
  Outer o;
  o.dport = 9000;
  o.sport = sport;
  o.id = id;
  o.udp_csum = csum;
  return VxlanFrame(o, Bytes(n, static_cast<uint8_t>(id)));
}

std::vector<SkBuff> Gro(const GroConfig& c, const std::vector<Bytes>& frames) {
  GroCell g(c);
  for (const Bytes& f : frames) g.Receive(DriverSkb(f, IpSummed::kUnnecessary));
  return g.Flush();
}

TEST(KernelGroUdpEdges, ZeroChecksumDatagramsAreNotMerged) {
  GroCell g(Fwd());
  EXPECT_EQ(g.Receive(DriverSkb(Datagram(600, 1, false), IpSummed::kUnnecessary)),
            GroResult::kNormal);
  EXPECT_EQ(g.last_reason(), "udp_zero_csum");
  EXPECT_EQ(g.Receive(DriverSkb(Datagram(600, 2, false), IpSummed::kUnnecessary)),
            GroResult::kNormal);
  EXPECT_EQ(g.stats().merged, 0u);
  EXPECT_EQ(g.Flush().size(), 2u);
}

TEST(KernelGroUdpEdges, AUdpLengthThatIsNotThePacketsIsNotMerged) {
  // uh->len one short of the 616 bytes from the UDP header: flush.
  Bytes f = Datagram(600, 2);
  Put16(f, 38, static_cast<uint16_t>(f.size() - 34 - 1));
  FixL4Csum(f, 14, 34, 17, 6);
  GroCell g(Fwd());
  EXPECT_EQ(g.Receive(DriverSkb(Datagram(600, 1), IpSummed::kUnnecessary)), GroResult::kHeld);
  EXPECT_EQ(g.Receive(DriverSkb(f, IpSummed::kUnnecessary)), GroResult::kNormal);
  EXPECT_EQ(g.last_reason(), "udp_len");
  // A datagram of the UDP header alone (ulen 8) is never merged either.
  Outer o;
  o.dport = 9000;
  Bytes empty = VxlanFrame(o, {});
  empty.resize(42);
  Put16(empty, 16, 28);
  FixIpv4Csum(empty, 14);
  Put16(empty, 38, 8);
  FixL4Csum(empty, 14, 34, 17, 6);
  EXPECT_EQ(g.Receive(DriverSkb(empty, IpSummed::kUnnecessary)), GroResult::kNormal);
  EXPECT_EQ(g.last_reason(), "udp_len");
}

TEST(KernelGroUdpEdges, ALongerDatagramEndsTheTrainAShorterOneIsItsLast) {
  // 600, 600, 800: the 800 is not merged; the held 2-segment packet is
  // completed and the 800 starts a packet of its own.
  auto out = Gro(Fwd(), {Datagram(600, 1), Datagram(600, 2), Datagram(800, 3)});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].len(), 14u + 20 + 8 + 2 * 608);
  EXPECT_EQ(out[0].gso_segs, 2);
  EXPECT_EQ(out[1].len(), 14u + 20 + 8 + 808);
  EXPECT_FALSE(out[1].is_gso());
  // 600, 400, 600: the 400 is merged as the last segment; the next 600
  // starts again.
  out = Gro(Fwd(), {Datagram(600, 1), Datagram(400, 2), Datagram(600, 3)});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].len(), 14u + 20 + 8 + 608 + 408);
  EXPECT_EQ(out[0].gso_segs, 2);
  EXPECT_EQ(out[0].gso_size, 608);
  EXPECT_EQ(out[1].len(), 14u + 20 + 8 + 608);
}

TEST(KernelGroUdpEdges, AtMostSixtyFourSegments) {
  std::vector<Bytes> frames;
  for (uint16_t i = 0; i < 65; i++) frames.push_back(Datagram(92, static_cast<uint16_t>(i + 1)));
  auto out = Gro(Fwd(), frames);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].gso_segs, 64);
  EXPECT_EQ(out[0].len(), 14u + 20 + 8 + 64 * 100);
  EXPECT_EQ(out[1].len(), 14u + 20 + 8 + 100);
}

TEST(KernelGroUdpEdges, PortsTellFlowsApart) {
  // Two source ports interleaved (each flow's IP IDs consecutive): two
  // packets of two segments each.
  auto out = Gro(Fwd(), {Datagram(600, 1, true, 1000), Datagram(600, 11, true, 2000),
                         Datagram(600, 2, true, 1000), Datagram(600, 12, true, 2000)});
  ASSERT_EQ(out.size(), 2u);
  for (const SkBuff& s : out) EXPECT_EQ(s.gso_segs, 2);
  EXPECT_EQ(Be16(out[0].pkt.bytes(), 34), 1000);
  EXPECT_EQ(Be16(out[1].pkt.bytes(), 34), 2000);
}

TEST(KernelGroUdpEdges, NetworkHeaderFlushReachedUdpSegmentsIn610) {
  // A TTL change between datagrams: v6.18 flushes (inet_gro_flush), v6.6
  // did not look and merged.
  Bytes ttl = Datagram(600, 2);
  ttl[22] = 63;
  FixIpv4Csum(ttl, 14);
  auto now = Gro(Fwd(), {Datagram(600, 1), ttl});
  EXPECT_EQ(now.size(), 2u);
  auto v66 = Gro(Fwd({6, 6, false}), {Datagram(600, 1), ttl});
  ASSERT_EQ(v66.size(), 1u);
  EXPECT_EQ(v66[0].gso_segs, 2);
}

TEST(KernelGroUdpEdges, AUdpGroSocketAfterAnotherInTheList) {
  // No forwarding feature: only a socket with UDP_GRO on the destination
  // port aggregates. The first socket in the list is another port's, and
  // the VXLAN and Geneve sockets are on their own ports.
  GroConfig c;
  c.vxlan = {kernel::GroVxlanSocket{}};
  c.geneve = {kernel::GroGeneveSocket{}};
  c.udp_sockets = {{7000, true}, {9000, true}};
  auto out = Gro(c, {Datagram(600, 1), Datagram(600, 2)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].gso_segs, 2);
  // The socket on 9000 without UDP_GRO: nothing is merged.
  c.udp_sockets = {{7000, true}, {9000, false}};
  EXPECT_EQ(Gro(c, {Datagram(600, 1), Datagram(600, 2)}).size(), 2u);
}

TEST(KernelGroUdpEdges, ATunnelFlowNeedsBothOrNeitherOuterChecksum) {
  // udp_gro_receive on a tunnel socket: "Match ports and either checksums
  // are either both zero or nonzero": VXLAN frames with and without the
  // outer UDP checksum, same ports and VNI, are two flows.
  GroConfig c;
  c.vxlan.push_back({});
  Seg s;
  std::vector<Bytes> frames;
  for (int k = 0; k < 2; k++) {
    const Bytes inner = TcpFrame(s);
    Outer with, without;
    with.id = static_cast<uint16_t>(10 + k);
    without.id = static_cast<uint16_t>(20 + k);
    without.udp_csum = false;
    frames.push_back(VxlanFrame(with, inner));
    frames.push_back(VxlanFrame(without, inner));
    s.seq += static_cast<uint32_t>(s.payload_len), s.id++,
        s.fill = static_cast<uint8_t>(s.fill + 7);
  }
  GroCell g(c);
  for (const Bytes& f : frames) g.Receive(DriverSkb(f));
  const auto out = g.Flush();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].gso_segs, 2);
  EXPECT_EQ(out[1].gso_segs, 2);
}

}  // namespace
}  // namespace offlab::testing
