// Receive coalescing (models/src/nic/coalesce.cc): in-order validated
// segments merge; out-of-order, unvalidated or wrong ones pass on as received.
//
// Frames: scapy 2.8 with the expression given.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "offlab/nic/nic.h"
#include "offlab/ovs/egress.h"
#include "test_util.h"

namespace offlab {
namespace {

using testing::H;
using testing::Hex;
using testing::Sub;

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

TEST(Coalesce, SegmentsFromAnotherIpv4SourceAreAnotherFlow) {
  // Segment 1 from 192.168.123.3 (scapy: IP checksum 0316, TCP 139c), same
  // MACs, ports and next sequence number: the IPv4 addresses are part of the
  // flow, so it does not join segment 0.
  const std::string other =
      Sub(Sub(Segment(1), "40060317c0a87b02", "40060316c0a87b03"), "50100000139d", "50100000139c");
  CoalesceStats stats;
  PacketBatch out = Coalesce(Receive({Segment(0), other}, Validating(false)), 65535, &stats);
  EXPECT_EQ(out.size(), 2u);
  EXPECT_EQ(stats.merged, 0u);
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

TEST(Coalesce, ASegmentLargerThanTheFirstIsNotMerged) {
  // tcp_gro_receive (net/ipv4/tcp_offload.c): flush |= (len - 1) >= mss,
  // where mss is the held packet's first segment size: a following segment
  // carrying more than that starts anew. Segment 1 with 200 payload bytes
  // (Pattern(100, 300)), IPv4 total length 0xf0, both checksums from the
  // plain-loop oracle.
  Bytes big =
      FromHex(Sub(Segment(1).substr(0, 2 * 54), "4500008c", "450000f0") + Pattern(100, 300));
  big[24] = big[25] = 0;
  const uint16_t ipc = static_cast<uint16_t>(~testing::OracleSum(&big[14], 20));
  big[24] = static_cast<uint8_t>(ipc >> 8);
  big[25] = static_cast<uint8_t>(ipc);
  const uint16_t tcpc = testing::OracleL4Csum(big, 14, 34, 6, 16);
  big[50] = static_cast<uint8_t>(tcpc >> 8);
  big[51] = static_cast<uint8_t>(tcpc);
  CoalesceStats stats;
  PacketBatch out = Coalesce(Receive({Segment(0), ToHex(big)}, Validating(false)), 65535, &stats);
  EXPECT_EQ(stats.merged, 0u);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Hex(out[0]), Segment(0));
  EXPECT_EQ(Hex(out[1]), ToHex(big));
  // The same bytes as two 100-byte segments merge (the rule is the size).
  out = Coalesce(Receive({Segment(0), Segment(1), Segment(2)}, Validating(false)), 65535, &stats);
  EXPECT_EQ(out.size(), 1u);
}

}  // namespace
}  // namespace offlab
