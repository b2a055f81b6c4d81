// GRO of plain UDP (udp_gro_receive_segment, v6.18 net/ipv4/udp_offload.c):
// what a UDP_GRO socket or NETIF_F_GRO_UDP_FWD forwarding merges. Datagrams
// need a checksum ("requires non zero csum, for symmetry with GSO") and a
// UDP length equal to what follows; a longer datagram ends the held packet
// before it, a shorter one is merged as the last; a packet holds at most
// UDP_GRO_CNT_MAX (64). Frames come from the GRO test frames (plain-loop
// checksums).
#include <gtest/gtest.h>

#include "kernel_gro_test_frames.h"
#include "offlab/linux/gro.h"

namespace offlab::testing {
namespace {

using kernel::GroCell;
using kernel::GroConfig;
using kernel::IpSummed;
using kernel::SkBuff;

// A datagram to port 9000 of 8 + n bytes of data (VxlanFrame's 8-byte header
// is data here).
Bytes Datagram(size_t n, uint16_t id, bool csum = true, uint16_t sport = 55555) {
  Outer o;
  o.dport = 9000;
  o.sport = sport;
  o.id = id;
  o.udp_csum = csum;
  Bytes payload(n, static_cast<uint8_t>(id));
  return VxlanFrame(o, payload);
}

GroConfig Fwd() {
  GroConfig c;
  c.features = kernel::netif::kGro | kernel::netif::kGroUdpFwd;
  return c;
}

std::vector<SkBuff> Gro(const GroConfig& c, const std::vector<Bytes>& frames,
                        IpSummed st = IpSummed::kUnnecessary) {
  GroCell g(c);
  for (const Bytes& f : frames) g.Receive(DriverSkb(f, st));
  return g.Flush();
}

TEST(KernelGroUdpSegment, ForwardingMergesEqualDatagrams) {
  auto out = Gro(Fwd(), {Datagram(600, 1), Datagram(600, 2), Datagram(600, 3)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].gso_type, kernel::gso::kUdpL4);
  EXPECT_EQ(out[0].gso_segs, 3);
  EXPECT_EQ(out[0].pkt.size(), 42u + 3 * 608u);
  // Without GRO_UDP_FWD and without a socket: nothing merges.
  GroConfig plain;
  EXPECT_EQ(Gro(plain, {Datagram(600, 1), Datagram(600, 2)}).size(), 2u);
}

TEST(KernelGroUdpSegment, RxGroListChainsDatagramsWithoutASocket) {
  // udp_gro_receive: with NETIF_F_GRO_FRAGLIST and no socket, is_flist is set
  // for every datagram; those of one flow chain on the frag_list
  // (skb_gro_receive_list) and udp4_gro_complete marks the head
  // SKB_GSO_FRAGLIST | SKB_GSO_UDP_L4 with the count as gso_segs.
  GroConfig c;
  c.features = kernel::netif::kGro | kernel::netif::kGroFraglist;
  auto out = Gro(c, {Datagram(600, 1), Datagram(600, 2), Datagram(600, 3)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].gso_type, kernel::gso::kFraglist | kernel::gso::kUdpL4);
  EXPECT_EQ(out[0].gso_segs, 3);
}

TEST(KernelGroUdpSegment, ZeroChecksumAndWrongLengthAreNotMerged) {
  auto out = Gro(Fwd(), {Datagram(600, 1, false), Datagram(600, 2, false)});
  EXPECT_EQ(out.size(), 2u);
  GroCell g(Fwd());
  g.Receive(DriverSkb(Datagram(600, 1, false), IpSummed::kUnnecessary));
  EXPECT_EQ(g.last_reason(), "udp_zero_csum");
  // A UDP length one short of what follows it (the IP length says more).
  std::vector<Bytes> frames = {Datagram(600, 1), Datagram(600, 2)};
  for (Bytes& f : frames) Put16(f, 38, static_cast<uint16_t>(Be16(f, 38) - 1));
  GroCell h(Fwd());
  for (const Bytes& f : frames) h.Receive(DriverSkb(f, IpSummed::kUnnecessary));
  EXPECT_EQ(h.last_reason(), "udp_len");
  EXPECT_EQ(h.Flush().size(), 2u);
}

TEST(KernelGroUdpSegment, ShorterEndsAsTheLastLongerStartsAnew) {
  // 600, 600, 300 (merged as the last), then 600 starts a new packet.
  auto out = Gro(Fwd(), {Datagram(600, 1), Datagram(600, 2), Datagram(300, 3), Datagram(600, 4)});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].gso_segs, 3);
  EXPECT_EQ(out[0].pkt.size(), 42u + 2 * 608u + 308u);
  EXPECT_EQ(out[1].pkt.size(), 42u + 608u);
  // 600 then 900: the longer one cannot join.
  out = Gro(Fwd(), {Datagram(600, 1), Datagram(900, 2)});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].pkt.size(), 42u + 608u);
  EXPECT_EQ(out[1].pkt.size(), 42u + 908u);
}

TEST(KernelGroUdpSegment, AtMost64PerPacketAndPortsSeparateFlows) {
  std::vector<Bytes> frames;
  for (uint16_t k = 0; k < 70; k++) frames.push_back(Datagram(100, k));
  auto out = Gro(Fwd(), frames);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].gso_segs, 64);
  EXPECT_EQ(out[1].gso_segs, 6);
  // Another source port is another flow (each flow's IP IDs consecutive:
  // since v6.10 the IP ID rule applies to UDP too).
  out = Gro(Fwd(), {Datagram(600, 1), Datagram(600, 11, true, 55556), Datagram(600, 2),
                    Datagram(600, 12, true, 55556)});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].gso_segs, 2);
  EXPECT_EQ(out[1].gso_segs, 2);
}

}  // namespace
}  // namespace offlab::testing
