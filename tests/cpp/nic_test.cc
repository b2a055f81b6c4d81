// Reference §1.1 "netdev-dpdk TX" row (partial = a request the NIC performs),
// the §6 "_disabled" exception, hardware TSO, the X710 and Intel outer UDP
// quirks (the E810 one also in e810_outer_udp_test.cc), and receive coalescing.
//
// Frames: OVS's vectors R1-R3/R7 where they apply, else scapy 2.8 with the
// expression given; eth, oeth and vx() as in egress_test.cc.
#include "offlab/nic/nic.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "offlab/nic/caps.h"
#include "offlab/ovs/egress.h"
#include "offlab/ovs/faults.h"
#include "offlab/ovs/gso.h"
#include "offlab/ovs/send_prepare.h"
#include "offlab/ovs/tunnel.h"
#include "test_util.h"

namespace offlab {
namespace {

using testing::H;
using testing::Hex;
using testing::kFrameG;
using testing::kFrameR2;
using testing::Parsed;
using testing::Push;
using testing::R3Outer;
using testing::R3Tunnel;
using testing::Sub;
using testing::With;

constexpr CsumStatus kGood = CsumStatus::kGood;
constexpr CsumStatus kPartial = CsumStatus::kPartial;

NicTx Nic(uint32_t caps, uint32_t disabled = 0) {
  NicTx n;
  n.caps = caps;
  n.disabled = disabled;
  return n;
}

const std::string kR1Stale = Sub(kFrameG, "c0a87b01d478", "c0a80101d478");
const std::string kR1 = Sub(Sub(kR1Stale, "433c", "bd3c"), "6b72", "e572");
const std::string kR2Stale = Sub(kFrameG, "d4781451", "d47808ae");
const std::string kUdp4 =
    H("0a8f394fe0738abf7e2f05840800 4500003c000000004011035dc0a87b02c0a87b01"
      "1388177000286c50 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
const std::string kSctp4 =
    H("0a8f394fe0738abf7e2f05840800 4500003000000000408402f6c0a87b02c0a87b01"
      "1388177001020304a7c0ffe4 000102030405060708090a0b0c0d0e0f");

// --- checksum requests ------------------------------------------------------------------

TEST(NicTransmit, RequestedAndAdvertisedIsComputed) {
  struct Case {
    const char* name;
    std::string in, out;
    uint32_t caps;
  };
  const Case cases[] = {
      {"ipv4+tcp (R1)", kR1Stale, kR1, cap::kIpv4Cksum | cap::kTcpCksum},
      {"udp", Sub(kUdp4, "6c50", "1234"), kUdp4, cap::kIpv4Cksum | cap::kUdpCksum},
      {"sctp", Sub(kSctp4, "a7c0ffe4", "00000000"), kSctp4, cap::kIpv4Cksum | cap::kSctpCksum},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<std::string> violations;
    PacketBatch out = NicTransmit(With(c.in, kPartial, kPartial), Nic(c.caps), &violations);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(Hex(out[0]), c.out);
    EXPECT_TRUE(violations.empty());
    EXPECT_EQ(out[0].offloads.ip(), kGood);
    EXPECT_EQ(out[0].offloads.l4(), kGood);
  }
}

TEST(NicTransmit, AdvertisedButDisabledLeavesTheBytes) {
  const uint32_t caps = cap::kIpv4Cksum | cap::kTcpCksum;
  std::vector<std::string> violations;
  PacketBatch out = NicTransmit(With(kR1Stale, kPartial, kPartial), Nic(caps, caps), &violations);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Hex(out[0]), kR1Stale);
  EXPECT_TRUE(violations.empty());
}

TEST(NicTransmit, NotAdvertisedIsAViolationAndBytesStay) {
  std::vector<std::string> violations;
  PacketBatch out =
      NicTransmit(With(kR1Stale, kPartial, kPartial), Nic(cap::kUdpCksum), &violations);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Hex(out[0]), kR1Stale);
  ASSERT_EQ(violations.size(), 2u);
  EXPECT_NE(violations[0].find("ipv4_cksum"), std::string::npos);
  EXPECT_NE(violations[1].find("tcp"), std::string::npos);
}

TEST(NicTransmit, TunnelledRequestsInnerThenOuter) {
  // R1 (IP and TCP partial) in the R3 tunnel with csum=true, nothing done by
  // the datapath: the NIC finishes the inner checksums, then the outer ones.
  // scapy: vx(<R1>) -> outer IP 339e, UDP 454d.
  const uint32_t caps = cap::kIpv4Cksum | cap::kTcpCksum | cap::kOuterIpCksum | cap::kOuterUdpCksum;
  Packet p = Push(With(kR1Stale, kPartial, kPartial), R3Tunnel(true));
  SendPrepare(p, caps);
  ASSERT_EQ(Hex(p), R3Outer("0000", "ffff") + kR1Stale);
  std::vector<std::string> violations;
  PacketBatch out = NicTransmit(p, Nic(caps), &violations);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Hex(out[0]), R3Outer("339e", "454d") + kR1);
  EXPECT_TRUE(violations.empty());

  // The outer UDP offload failing: the 0xffff placeholder leaves (R3: both
  // disabled, outer ffff).
  out = NicTransmit(p, Nic(caps, cap::kOuterUdpCksum), &violations);
  EXPECT_EQ(Hex(out[0]), R3Outer("339e", "ffff") + kR1);
}

// --- segmentation -----------------------------------------------------------------------

TEST(NicTransmit, HardwareTsoGivesR7Segments) {
  Packet p = Parsed(testing::R7Frame());
  p.tso_segsz = 500;
  std::vector<std::string> violations;
  PacketBatch out =
      NicTransmit(p, Nic(cap::kTcpTso | cap::kTcpCksum | cap::kIpv4Cksum), &violations);
  ASSERT_EQ(out.size(), 4u);
  for (int k = 0; k < 4; k++) EXPECT_EQ(Hex(out[k]), testing::R7Segment(k)) << k;
  EXPECT_TRUE(violations.empty());

  // Without TCP_TSO the request is refused and the frame leaves whole.
  out = NicTransmit(p, Nic(cap::kTcpCksum | cap::kIpv4Cksum), &violations);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].size(), 2054u);
  EXPECT_EQ(violations.size(), 1u);
}

TEST(NicTransmit, TsoIpv4OnlySendsAnIpv6TsoPacketWhole) {
  // DPDK's TAP PMD: rte_gso segments IPv4 TCP only; an IPv6 TSO packet
  // leaves as one frame with its TCP checksum computed over all of it.
  NicTx nic = Nic(cap::kTcpTso | cap::kTcpCksum | cap::kIpv4Cksum);
  nic.tso_ipv4_only = true;
  Packet p4 = Parsed(testing::R7Frame());
  p4.tso_segsz = 500;
  EXPECT_EQ(NicTransmit(p4, nic).size(), 4u);
  // IPv6 (payload length 0x07e4 = 20 + 2000), TCP with a zero checksum field.
  const std::string v6 = H("0a8f394fe0738abf7e2f058486dd 6000000007e40640"
                           "20010db8000000000000000000000002 20010db8000000000000000000000001"
                           "d4781451000000000000000050100000 00000000") +
                         std::string(4000, '0');
  Packet p6 = With(v6, CsumStatus::kUnknown, kPartial);
  p6.tso_segsz = 500;
  std::vector<std::string> violations;
  PacketBatch out = NicTransmit(p6, nic, &violations);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(violations.empty());
  const Bytes f = out[0].bytes();
  EXPECT_EQ(f.size(), 14u + 40 + 20 + 2000);
  EXPECT_TRUE(testing::OracleL4Ok(f, 14, 54, 6));
  nic.tso_ipv4_only = false;  // any other NIC segments it
  EXPECT_EQ(NicTransmit(p6, nic).size(), 4u);
}

TEST(NicTransmit, HardwareTunnelTsoGivesCorrectSegments) {
  Packet inner = Parsed(testing::R7Frame());
  inner.tso_segsz = 500;
  Packet p = Push(inner, R3Tunnel(false));
  const uint32_t caps =
      cap::kTcpTso | cap::kVxlanTnlTso | cap::kTcpCksum | cap::kIpv4Cksum | cap::kOuterIpCksum;
  PacketBatch ready = NetdevSend({p}, caps);
  ASSERT_EQ(ready.size(), 1u);
  std::vector<std::string> violations;
  PacketBatch out = NicTransmit(ready[0], Nic(caps), &violations);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_TRUE(violations.empty());
  // scapy: oeth/IP(src="1.1.2.88",dst="1.1.2.92",ttl=64,id=k,flags="DF",tos=1)/
  //   UDP(sport=57363,dport=4789,chksum=0)/VXLAN(vni=123,flags=0x08)/Raw(R7 seg k)
  const char* ip[] = {"000040004011 31e9", "000140004011 31e8", "000240004011 31e7",
                      "000340004011 31e6"};
  for (int k = 0; k < 4; k++) {
    EXPECT_EQ(Hex(out[k]), H(std::string("aa66aa660001aa66aa6600000800 4501024e") + ip[k] +
                             "010102580101025c e01312b5023a0000 0800000000007b00") +
                               testing::R7Segment(k))
        << k;
  }

  // TCP_TSO alone does not cover a VXLAN TSO packet.
  out = NicTransmit(ready[0], Nic(caps & ~cap::kVxlanTnlTso), &violations);
  EXPECT_EQ(out.size(), 1u);
  EXPECT_EQ(violations.size(), 1u);
}

// --- outer UDP quirks ---------------------------------------------------------------------

// R2 partial in the R3 tunnel with csum=true, prepared for a NIC that
// advertises OUTER_UDP_CKSUM: the placeholder 0xffff is left for it.
Packet ReadyForOuterUdpOffload(uint32_t caps) {
  Packet inner = Parsed(kR2Stale);
  inner.offloads.set_ip(kGood);
  inner.offloads.set_l4(kPartial);
  Packet p = Push(inner, R3Tunnel(true));
  SendPrepare(p, caps);
  EXPECT_EQ(Hex(p), R3Outer("0000", "ffff") + kR2Stale);
  return p;
}

TEST(NicTransmit, X710LeavesTheOuterUdpAsIs) {
  NicTx nic = Nic(cap::kTcpCksum | cap::kOuterIpCksum | cap::kOuterUdpCksum);
  nic.outer_udp_left_as_is = true;
  PacketBatch out = NicTransmit(ReadyForOuterUdpOffload(nic.caps), nic);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Hex(out[0]), R3Outer("339e", "ffff") + kFrameR2);
  EXPECT_FALSE(testing::OracleL4Ok(out[0].bytes(), 14, 34, 17));
}

TEST(NicTransmit, IntelPseudoSeedFromTheDriverGivesTheCorrectOuterChecksum) {
  // The hardware sums the UDP segment onto what the field holds, expecting the
  // pseudo-header sum there; the driver's tx_prepare writes it (DPDK
  // f876dbef0809). By hand (Python): the correct outer UDP checksum is bf4d.
  NicTx nic = Nic(cap::kTcpCksum | cap::kOuterIpCksum | cap::kOuterUdpCksum);
  nic.outer_udp_needs_pseudo_seed = true;
  PacketBatch out = NicTransmit(ReadyForOuterUdpOffload(nic.caps), nic);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Hex(out[0]), R3Outer("339e", "bf4d") + kFrameR2);
  EXPECT_TRUE(testing::OracleL4Ok(out[0].bytes(), 14, 34, 17));
}

TEST(NicTransmit, IntelPseudoSeedMissingGivesAWrongOuterChecksum) {
  // DPDK before f876dbef0809 (fault intel-outer-udp-unseeded): the field keeps
  // the placeholder 0xffff, which adds nothing. By hand (Python):
  // ~fold(sum of e01312b50086ffff 0800000000007b00 + R2) = c69a; correct is bf4d.
  NicTx nic = Nic(cap::kTcpCksum | cap::kOuterIpCksum | cap::kOuterUdpCksum);
  nic.outer_udp_needs_pseudo_seed = true;
  Packet p = ReadyForOuterUdpOffload(nic.caps);
  ScopedFault fault(Fault::kIntelOuterUdpUnseeded);
  PacketBatch out = NicTransmit(p, nic);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Hex(out[0]), R3Outer("339e", "c69a") + kFrameR2);
  EXPECT_FALSE(testing::OracleL4Ok(out[0].bytes(), 14, 34, 17));
}

// --- coalescing -----------------------------------------------------------------------------

// eth/ip4(id=k)/TCP(sport=54392,dport=5201,flags="A",seq=1000+100k,ack=0,window=0)/
//   Raw(pattern[100k:100k+100]) with pattern = bytes(i % 251 for i in range(300)).
std::string Pattern(size_t from, size_t to) {
  std::string s;
  for (size_t i = from; i < to; i++) s += ToHex(Bytes{static_cast<uint8_t>(i % 251)});
  return s;
}
std::string Segment(int k) {
  static const char* ip[] = {"00000000400603 18", "00010000400603 17", "00020000400603 16"};
  static const char* tcp[] = {"000003e80000000050100000af9c0000",
                              "0000044c0000000050100000139d0000",
                              "000004b0000000005010000018380000"};
  return H(std::string("0a8f394fe0738abf7e2f05840800 4500008c") + ip[k] +
           "c0a87b02c0a87b01 d4781451" + tcp[k]) +
         Pattern(100 * k, 100 * k + 100);
}
// scapy: vx(<segment k>) with UDP chksum 0 or computed (bf29 for every k).
std::string VxSegment(int k, bool csum) {
  return H(std::string("aa66aa660001aa66aa6600000800 450000be000040004011337a010102580101025c"
                       "e01312b500aa") +
           (csum ? "bf29" : "0000") + "0800000000007b00") +
         Segment(k);
}

NicProfile Validating(bool inner) {
  NicProfile prof;
  prof.name = "test";
  prof.rx_plain = {.outer_ip = true, .outer_l4 = true};
  prof.rx_vxlan = {.outer_ip = true, .outer_l4 = true, .inner_ip = inner, .inner_l4 = inner};
  return prof;
}

std::vector<std::pair<Packet, RxStatus>> Receive(const std::vector<std::string>& frames,
                                                 const NicProfile& prof) {
  std::vector<std::pair<Packet, RxStatus>> out;
  for (const std::string& f : frames) {
    RxStatus st;
    Packet p = NicReceive(FromHex(f), prof, &st);
    out.emplace_back(std::move(p), st);
  }
  return out;
}

TEST(Coalesce, MergesInOrderValidatedSegments) {
  CoalesceStats stats;
  PacketBatch out =
      Coalesce(Receive({Segment(0), Segment(1), Segment(2)}, Validating(false)), 65535, &stats);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(stats.merged, 2u);
  // The first header with the total length of all three (40 + 300 = 0x154);
  // its checksums are stale and partial, so this is a TSO packet.
  EXPECT_EQ(Hex(out[0]),
            Sub(Segment(0).substr(0, 2 * 54), "4500008c", "45000154") + Pattern(0, 300));
  EXPECT_EQ(out[0].tso_segsz, 100);
  EXPECT_EQ(out[0].offloads.word(), 0x90u | 0x108 | 0x200);

  // Segmenting it again gives back the original frames.
  Packet merged = out[0];
  Parse(merged);
  PacketBatch again = NetdevSend({merged}, 0);
  ASSERT_EQ(again.size(), 3u);
  for (int k = 0; k < 3; k++) EXPECT_EQ(Hex(again[k]), Segment(k)) << k;
}

// Segment k of a second flow: source port 0xd479. The TCP checksum is one
// less than Segment(k)'s (RFC 1624: the sum grows by one).
std::string OtherFlowSegment(int k) {
  static const char* csum[][2] = {{"af9c", "af9b"}, {"139d", "139c"}, {"1838", "1837"}};
  std::string s = Sub(Segment(k), "d4781451", "d4791451");
  return Sub(s, std::string("50100000") + csum[k][0], std::string("50100000") + csum[k][1]);
}

TEST(Coalesce, FlushesFlowsOldestFirst) {
  // Linux completes a poll's GRO packets oldest first (net/core/gro.c,
  // __napi_gro_flush_chain walks its list in reverse).
  CoalesceStats stats;
  PacketBatch out =
      Coalesce(Receive({OtherFlowSegment(0), Segment(0), OtherFlowSegment(1), Segment(1)},
                       Validating(false)),
               65535, &stats);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(stats.merged, 2u);
  EXPECT_EQ(stats.not_validated, 0u);
  const std::string other = Sub(OtherFlowSegment(0).substr(0, 2 * 54), "4500008c", "450000f0");
  EXPECT_EQ(Hex(out[0]), other + Pattern(0, 200));
  EXPECT_EQ(Hex(out[1]),
            Sub(Segment(0).substr(0, 2 * 54), "4500008c", "450000f0") + Pattern(0, 200));
}

TEST(Coalesce, RefusesOutOfOrderAndUnvalidatedSegments) {
  CoalesceStats stats;
  PacketBatch out =
      Coalesce(Receive({Segment(0), Segment(2), Segment(1)}, Validating(false)), 65535, &stats);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(stats.merged, 0u);
  EXPECT_EQ(Hex(out[1]), Segment(2));

  NicProfile blind;
  out = Coalesce(Receive({Segment(0), Segment(1), Segment(2)}, blind), 65535, &stats);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(stats.not_validated, 3u);
  for (int k = 0; k < 3; k++) EXPECT_EQ(Hex(out[k]), Segment(k));
}

TEST(Coalesce, RefusesASegmentWithAWrongIpv4HeaderChecksum) {
  // Linux's inet_gro_receive flushes a segment whose IPv4 header checksum
  // does not verify (ip_fast_csum(iph, 5) != 0), even with its TCP checksum
  // validated: merging it would hand on a header whose checksum the merge
  // recomputes. Segment(1) with the IPv4 checksum's low byte changed.
  std::string bad = Segment(1);
  const size_t at = 2 * (14 + 10);  // hex digits up to the IPv4 checksum
  bad[at + 3] = bad[at + 3] == '0' ? '1' : '0';
  CoalesceStats stats;
  PacketBatch out =
      Coalesce(Receive({Segment(0), bad, Segment(2)}, Validating(false)), 65535, &stats);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(stats.merged, 0u);
  EXPECT_EQ(Hex(out[0]), bad);  // passed on as received, ahead of the held segment
}

TEST(Coalesce, VxlanNeedsInnerValidationOrANonZeroOuterChecksum) {
  // No inner validation and outer UDP checksum 0: nothing vouches for the
  // inner TCP, so nothing merges.
  CoalesceStats stats;
  PacketBatch out = Coalesce(
      Receive({VxSegment(0, false), VxSegment(1, false), VxSegment(2, false)}, Validating(false)),
      65535, &stats);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(stats.not_validated, 3u);
  EXPECT_EQ(stats.merged, 0u);

  // The same NIC with inner validation merges them.
  out = Coalesce(
      Receive({VxSegment(0, false), VxSegment(1, false), VxSegment(2, false)}, Validating(true)),
      65535, &stats);
  EXPECT_EQ(out.size(), 1u);

  // A validated non-zero outer checksum covers the inner bytes too. Lengths:
  // outer IP 0xbe + 200 = 0x186, UDP 0xaa + 200 = 0x172, inner IP 0x154.
  out = Coalesce(
      Receive({VxSegment(0, true), VxSegment(1, true), VxSegment(2, true)}, Validating(false)),
      65535, &stats);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(stats.merged, 2u);
  const std::string head = VxSegment(0, true).substr(0, 2 * 104);
  EXPECT_EQ(Hex(out[0]), Sub(Sub(Sub(head, "450000be", "45000186"), "00aabf29", "0172bf29"),
                             "4500008c", "45000154") +
                             Pattern(0, 300));
  EXPECT_EQ(out[0].tso_segsz, 100);
  EXPECT_EQ(out[0].offloads.word(), 0x03981598u);
}

TEST(Coalesce, VxlanOuterChecksumDoesNotVouchForAWrongInnerOne) {
  // Linux validates the inner TCP checksum against the sum the verified outer
  // UDP checksum converts to (skb_gro_checksum_try_convert, then
  // tcp4_gro_receive's skb_gro_checksum_validate) and flushes a wrong one.
  // Segment 1's inner TCP checksum 139d -> 139e, its outer UDP checksum
  // recomputed by scapy (bf28), so only the inner one is wrong.
  std::string bad = Sub(VxSegment(1, true), "139d", "139e");
  bad = Sub(bad, "00aabf29", "00aabf28");
  CoalesceStats stats;
  PacketBatch out = Coalesce(
      Receive({VxSegment(0, true), bad, VxSegment(2, true)}, Validating(false)), 65535, &stats);
  EXPECT_EQ(stats.merged, 0u);
  ASSERT_EQ(out.size(), 3u);
  // The flow's held segment goes first, then the refused one as received.
  EXPECT_EQ(Hex(out[0]), VxSegment(0, true));
  EXPECT_EQ(Hex(out[1]), bad);
}

}  // namespace
}  // namespace offlab
