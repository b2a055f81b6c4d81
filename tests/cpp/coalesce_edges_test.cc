// SPDX-License-Identifier: Apache-2.0
//
// Receive coalescing (models/src/nic/coalesce.cc) at the edges of Linux GRO's
// merge rules (net/ipv4/tcp_offload.c tcp_gro_receive): a segment whose ACK
// number differs from the flow's, or with a flag other than ACK/PSH (here
// SYN), flushes the flow and passes as received; an aggregate stops growing
// at the size limit (gro_max_size); a frame that is no TCP segment GRO can
// read (UDP, or a tunnel whose inner frame is cut short) passes as received
// and is not counted as unvalidated.
// Frames: coalesce_test.cc's segments (scapy: eth/ip4(id=k)/TCP(sport=54392,
// dport=5201,flags="A",seq=1000+100k)/Raw(pattern[100k:100k+100])), edited
// with their TCP checksums adjusted by hand (RFC 1624).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "offlab/nic/nic.h"
#include "test_util.h"

namespace offlab {
namespace {

using testing::H;
using testing::Hex;
using testing::Sub;

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

NicProfile Validating() {
  NicProfile prof;
  prof.name = "test";
  prof.rx_plain = {.outer_ip = true, .outer_l4 = true};
  prof.rx_vxlan = {.outer_ip = true, .outer_l4 = true, .inner_ip = true, .inner_l4 = true};
  return prof;
}

PacketBatch CoalesceRun(const std::vector<std::string>& frames, size_t max_bytes,
                        CoalesceStats* stats) {
  std::vector<std::pair<Packet, RxStatus>> in;
  for (const std::string& f : frames) {
    RxStatus st;
    Packet p = NicReceive(FromHex(f), Validating(), &st);
    in.emplace_back(std::move(p), st);
  }
  return Coalesce(std::move(in), max_bytes, stats);
}

TEST(CoalesceEdges, AnotherAckOrASynIsNotMerged) {
  // Segment 1 acknowledging 1 (checksum 139d - 1).
  const std::string ack1 =
      Sub(Segment(1), "0000044c0000000050100000139d", "0000044c0000000150100000139c");
  // Segment 1 with SYN|ACK (5010 -> 5012: checksum 139d - 2).
  const std::string syn = Sub(Segment(1), "50100000139d", "50120000139b");
  for (const std::string& second : {ack1, syn}) {
    CoalesceStats stats;
    const PacketBatch out = CoalesceRun({Segment(0), second}, 65535, &stats);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(stats.merged, 0u);
    EXPECT_EQ(stats.not_validated, 0u);
    EXPECT_EQ(Hex(out[1]), second);
  }
}

TEST(CoalesceEdges, AnAggregateStopsAtTheSizeLimit) {
  // Room for one segment and a half: nothing merges.
  CoalesceStats stats;
  PacketBatch out = CoalesceRun({Segment(0), Segment(1), Segment(2)}, 54 + 150, &stats);
  EXPECT_EQ(out.size(), 3u);
  EXPECT_EQ(stats.merged, 0u);
  // Room for exactly two.
  out = CoalesceRun({Segment(0), Segment(1), Segment(2)}, 54 + 200, &stats);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(stats.merged, 1u);
  EXPECT_EQ(out[0].size(), 54u + 200u);
  EXPECT_EQ(Hex(out[1]), Segment(2));
}

TEST(CoalesceEdges, FramesGroCannotReadPassAsReceived) {
  // scapy: ip4/UDP(sport=5000,dport=6000)/Raw(bytes(range(32))).
  const std::string udp =
      H("0a8f394fe0738abf7e2f05840800 4500003c000000004011035dc0a87b02c0a87b01"
        "1388177000286c50 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
  // VXLAN (outer UDP checksum 0) with 13 bytes after its header.
  Bytes vx =
      FromHex(H("aa66aa660001aa66aa6600000800 45000039 0000 4000 40 11 0000"
                "010102580101025c e01312b5 0025 0000 0800000000007b00"
                "00112233445566778899aabbcc"));
  testing::Put16(vx, 24, static_cast<uint16_t>(~testing::OracleSum(vx.data() + 14, 20)));
  CoalesceStats stats;
  const PacketBatch out = CoalesceRun({udp, ToHex(vx), Segment(0)}, 65535, &stats);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(Hex(out[0]), udp);
  EXPECT_EQ(Hex(out[1]), ToHex(vx));
  EXPECT_EQ(stats.not_validated, 0u);
  EXPECT_EQ(stats.frames_in, 3u);
  EXPECT_EQ(stats.packets_out, 3u);
}

}  // namespace
}  // namespace offlab
