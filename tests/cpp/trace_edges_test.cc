/* SPDX-License-Identifier: Apache-2.0 */

/*
 * The C++ trace reader (models/src/net/trace.cc) on the rules of
 * docs/trace-format.md the sample traces never break: the comment's JSON
 * object and the type of each key, the keys a tx record requires, offsets in
 * layer order inside the frame, and pcapng blocks whose lengths do not add
 * up (pcapng draft-ietf-opsawg-pcapng sections 3.1, 4.3). Every rejection
 * names the file, the packet and the rule.
 */

#include <gtest/gtest.h>

#include <string>

#include "offlab/net/error.h"
#include "offlab/net/trace.h"

namespace offlab::trace {
namespace {

void U32(Bytes& b, uint32_t v) {
  for (int i = 0; i < 4; i++) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

// A little-endian block: type, total length, body padded to 32 bits, length.
Bytes Block(uint32_t type, const Bytes& body) {
  Bytes b;
  const uint32_t len = static_cast<uint32_t>(12 + (body.size() + 3) / 4 * 4);
  U32(b, type);
  U32(b, len);
  b.insert(b.end(), body.begin(), body.end());
  b.resize(len - 4, 0);
  U32(b, len);
  return b;
}

Bytes Header() {
  Bytes out = Block(0x0A0D0D0A, {0x4D, 0x3C, 0x2B, 0x1A, 1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff,
                                 0xff, 0xff, 0xff});
  const Bytes idb = Block(1, {1, 0, 0, 0, 0, 0, 0, 0});
  out.insert(out.end(), idb.begin(), idb.end());
  return out;
}

// An enhanced packet block body: interface, timestamp, lengths, a frame of
// `n` bytes 0, 1, 2, ... and `options`.
Bytes Epb(uint32_t iface, uint32_t cap, uint32_t orig, size_t n, const Bytes& options) {
  Bytes e;
  for (uint32_t v : {iface, 0u, 0u, cap, orig}) U32(e, v);
  for (size_t i = 0; i < n; i++) e.push_back(static_cast<uint8_t>(i));
  e.resize(20 + (n + 3) / 4 * 4, 0);
  e.insert(e.end(), options.begin(), options.end());
  return e;
}

// One 60-byte frame with comment `text` (option code `code`).
Bytes Capture(const std::string& text, uint16_t code = 1) {
  Bytes opt = {static_cast<uint8_t>(code), static_cast<uint8_t>(code >> 8),
               static_cast<uint8_t>(text.size()), static_cast<uint8_t>(text.size() >> 8)};
  opt.insert(opt.end(), text.begin(), text.end());
  opt.resize(4 + (text.size() + 3) / 4 * 4, 0);
  Bytes out = Header();
  const Bytes b = Block(6, Epb(0, 60, 60, 60, opt));
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

std::string ErrorOf(const Bytes& capture) {
  try {
    ParseTrace(capture, "mem");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

const std::string kTx = R"(offlab {"role": "tx", "offloads": 7, "tso_segsz": 0, )";

TEST(TraceEdges, ACompleteTxRecord) {
  const auto t = ParseTrace(
      Capture(kTx + R"("ofs": {"l3": 14, "l4": 34, "inner_l2": null}, "profile": "e810"})"), "m");
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].role, Role::kTx);
  EXPECT_EQ(t[0].offloads, 7u);
  EXPECT_EQ(t[0].ofs, (std::array<uint16_t, 5>{14, 34, kNoOffset, kNoOffset, kNoOffset}));
  EXPECT_EQ(t[0].profile, "e810");
  const Packet p = t[0].ToPacket();
  EXPECT_EQ(p.l3_ofs, 14);
  EXPECT_EQ(p.l4_ofs, 34);
  EXPECT_EQ(p.inner_l2_ofs, kNoOffset);
  EXPECT_EQ(p.offloads.word(), 7u);
  EXPECT_EQ(p.size(), 60u);
}

TEST(TraceEdges, TxRecordRules) {
  EXPECT_EQ(ErrorOf(Capture(R"(offlab {"role": "tx", "tso_segsz": 0, "ofs": {}})")),
            "mem: packet 1: tx record without 'offloads'");
  EXPECT_EQ(ErrorOf(Capture(R"(offlab {"role": "tx", "offloads": 0, "ofs": {}})")),
            "mem: packet 1: tx record without 'tso_segsz'");
  EXPECT_EQ(ErrorOf(Capture(R"(offlab {"role": "tx", "offloads": 0, "tso_segsz": 0})")),
            "mem: packet 1: tx record without 'ofs'");
  EXPECT_EQ(ErrorOf(Capture(kTx + R"("ofs": 5})")), "mem: packet 1: ofs must be an object");
  EXPECT_EQ(ErrorOf(Capture(kTx + R"("ofs": {"l3": 34, "l4": 14}})")),
            "mem: packet 1: ofs.l4 is before the previous layer");
  // An offset is at most the frame's length (60 bytes here).
  EXPECT_EQ(ErrorOf(Capture(kTx + R"("ofs": {"l3": 61}})")),
            "mem: packet 1: ofs.l3 must be an integer 0..60");
  EXPECT_EQ(ErrorOf(Capture(kTx + R"("ofs": {"l3": 60}})")), "");
  EXPECT_EQ(ErrorOf(Capture(R"(offlab {"tso_segsz": 65536})")),
            "mem: packet 1: tso_segsz must be an integer 0..65535");
  EXPECT_EQ(ErrorOf(Capture(R"(offlab {"tso_segsz": 65535})")), "");
}

TEST(TraceEdges, CommentShapeAndTypes) {
  EXPECT_EQ(ErrorOf(Capture(R"(offlab [1, 2])")), "mem: packet 1: comment is not a JSON object");
  EXPECT_EQ(ErrorOf(Capture(R"(offlab {"role": "sender"})")),
            "mem: packet 1: role must be tx, wire or step, not 'sender'");
  EXPECT_EQ(ErrorOf(Capture(R"(offlab {"rx": 5})")), "mem: packet 1: rx must be an object");
  EXPECT_EQ(ErrorOf(Capture(R"(offlab {"rx": {"e810": "good"}})")),
            "mem: packet 1: rx report must be an object");
  EXPECT_EQ(ErrorOf(Capture(R"(offlab {"rx": {"e810": {"inner_l4": "worse"}}})")),
            "mem: packet 1: rx.inner_l4: unknown checksum status 'worse' (unknown, bad, good or "
            "partial)");
  const std::string bad_json = ErrorOf(Capture(R"(offlab {"role": )"));
  EXPECT_EQ(bad_json.rfind("mem: packet 1: comment is not JSON (", 0), 0u) << bad_json;
}

TEST(TraceEdges, CommentsReadAndIgnored) {
  // Trailing NULs after the JSON are padding, not text.
  auto t = ParseTrace(Capture(std::string(R"(offlab {"role": "wire"})") + '\0' + '\0'), "m");
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].role, Role::kWire);
  EXPECT_EQ(t[0].of, -1);
  // An offlab text in an option other than opt_comment is not metadata.
  t = ParseTrace(Capture(R"(offlab {"role": "sender"})", 2988), "m");
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].role, Role::kStep);
  // The rx report per profile, each status by name.
  t = ParseTrace(
      Capture(R"(offlab {"rx": {"a": {"ip": "bad", "l4": "partial", "inner_ip": "good"}}})"), "m");
  ASSERT_EQ(t[0].rx.count("a"), 1u);
  EXPECT_EQ(t[0].rx.at("a").ip, CsumStatus::kBad);
  EXPECT_EQ(t[0].rx.at("a").l4, CsumStatus::kPartial);
  EXPECT_EQ(t[0].rx.at("a").inner_ip, CsumStatus::kGood);
  EXPECT_EQ(t[0].rx.at("a").inner_l4, CsumStatus::kUnknown);
}

TEST(TraceEdges, BlockLengthsThatDoNotAddUp) {
  const Bytes good = Capture("");
  const size_t epb_at = Header().size();
  ASSERT_EQ(ErrorOf(good), "");
  const std::string corrupt = "mem: corrupt or truncated block at byte " + std::to_string(epb_at);
  auto with_len = [&](uint32_t len) {
    Bytes b = good;
    for (int i = 0; i < 4; i++) b[epb_at + 4 + i] = static_cast<uint8_t>(len >> (8 * i));
    return b;
  };
  const uint32_t len = static_cast<uint32_t>(good.size() - epb_at);
  EXPECT_EQ(ErrorOf(with_len(8)), corrupt);        // below the 12-byte minimum
  EXPECT_EQ(ErrorOf(with_len(len - 2)), corrupt);  // not a multiple of 4
  EXPECT_EQ(ErrorOf(with_len(len + 4)), corrupt);  // past the end of the file
  EXPECT_EQ(ErrorOf(with_len(len - 4)), corrupt);  // trailing length disagrees
}

TEST(TraceEdges, PacketBlocksThatDoNotAddUp) {
  auto capture = [](const Bytes& epb) {
    Bytes out = Header();
    const Bytes b = Block(6, epb);
    out.insert(out.end(), b.begin(), b.end());
    return out;
  };
  // A 16-byte body: shorter than the 20 bytes of fixed fields.
  EXPECT_EQ(ErrorOf(capture(Bytes(16, 0))), "mem: packet 1: corrupt packet block");
  // Interface 1 was never described.
  EXPECT_EQ(ErrorOf(capture(Epb(1, 60, 60, 60, {}))),
            "mem: packet 1: not on an Ethernet interface");
  // 64 bytes captured in a block holding 60.
  EXPECT_EQ(ErrorOf(capture(Epb(0, 64, 64, 60, {}))),
            "mem: packet 1: captured length runs past the block");
}

}  // namespace
}  // namespace offlab::trace
