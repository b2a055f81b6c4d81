/* SPDX-License-Identifier: Apache-2.0 */

/*
 * The C++ trace reader on the committed sample traces and on broken files. Expected values are
 * derived by hand from the samples' construction (python/offlab/samples.py) and
 * docs/trace-format.md.
 */

#include "offlab/net/trace.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "offlab/net/error.h"

namespace offlab::trace {
namespace {

const std::string kTraces = OFFLAB_TEST_TRACES;

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string WriteTemp(const std::string& name, const std::string& bytes) {
  std::string path = ::testing::TempDir() + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

TEST(TraceReader, TcpPartialSample) {
  auto t = ReadTrace(kTraces + "/tcp-partial.pcapng");
  ASSERT_EQ(t.size(), 2u);
  const Record& tx = t[0];
  EXPECT_EQ(tx.role, Role::kTx);
  // Ethernet 14 + IPv4 20 + TCP 20 + 64 bytes of payload.
  EXPECT_EQ(tx.frame.size(), 118u);
  // IP partial (bits 4, 7), L4 partial (bits 3, 8), L4 protocol TCP (bit 9).
  EXPECT_EQ(tx.offloads, (1u << 4) | (1u << 7) | (1u << 3) | (1u << 8) | (1u << 9));
  EXPECT_EQ(tx.tso_segsz, 0);
  EXPECT_EQ(tx.ofs[0], 14);
  EXPECT_EQ(tx.ofs[1], 34);
  EXPECT_EQ(tx.ofs[2], kNoOffset);
  Packet p = tx.ToPacket();
  EXPECT_EQ(p.offloads.l4(), CsumStatus::kPartial);
  EXPECT_EQ(p.offloads.l4_proto(), L4Proto::kTcp);

  const Record& wire = t[1];
  EXPECT_EQ(wire.role, Role::kWire);
  EXPECT_EQ(wire.of, 0);
  EXPECT_EQ(wire.profile, "pcap");
  ASSERT_EQ(wire.rx.count("pcap"), 1u);
  EXPECT_EQ(wire.rx.at("pcap").ip, CsumStatus::kUnknown);
}

TEST(TraceReader, VxlanTsoSample) {
  auto t = ReadTrace(kTraces + "/vxlan-tso-partial.pcapng");
  ASSERT_EQ(t.size(), 4u);  // the TSO packet and its three segments
  EXPECT_EQ(t[0].tso_segsz, 1000);
  // Outer Ethernet 14, IPv4 20, UDP 8 + VXLAN 8, inner Ethernet 14, IPv4 20.
  EXPECT_EQ(t[0].ofs[0], 14);
  EXPECT_EQ(t[0].ofs[1], 34);
  EXPECT_EQ(t[0].ofs[2], 50);
  EXPECT_EQ(t[0].ofs[3], 64);
  EXPECT_EQ(t[0].ofs[4], 84);
  EXPECT_EQ(t[0].ToPacket().offloads.tunnel(), TunnelType::kVxlan);
  // 2900 payload bytes in 1000-byte segments: 1000, 1000, 900 + 104 bytes of headers.
  EXPECT_EQ(t[1].frame.size(), 1104u);
  EXPECT_EQ(t[3].frame.size(), 1004u);
}

TEST(TraceReader, BrokenFilesNameTheProblem) {
  const std::string good = Slurp(kTraces + "/tcp-partial.pcapng");
  auto fails = [](const std::string& path, const std::string& what) {
    try {
      ReadTrace(path);
      ADD_FAILURE() << path << " was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  fails(kTraces + "/does-not-exist.pcapng", "No such file");
  fails(WriteTemp("short.pcapng", good.substr(0, good.size() - 8)), "truncated block");
  fails(WriteTemp("garbage.pcapng", "hello, not a capture"), "not a pcapng");
  std::string bad_json = good;
  size_t at = bad_json.find("offlab {");
  bad_json[at + 8] = '[';
  fails(WriteTemp("json.pcapng", bad_json), "packet 1: comment is not JSON");
  std::string bad_role = good;
  at = bad_role.find("\"tx\"");
  bad_role.replace(at, 4, "\"tz\"");
  fails(WriteTemp("role.pcapng", bad_role), "packet 1: role must be");
  // A field of the wrong JSON type: a list where the op string belongs
  // ("send" and [1, 2] have the same length, so the block stays valid).
  std::string bad_type = good;
  at = bad_type.find("\"op\": \"send\"");
  bad_type.replace(at + 6, 6, "[1, 2]");
  fails(WriteTemp("type.pcapng", bad_type), "packet 1: comment has a field of the wrong type");
}

TEST(TraceReader, ParsesATraceInMemoryAsFromAFile) {
  const std::string good = Slurp(kTraces + "/vxlan-tso-partial.pcapng");
  const auto from_file = ReadTrace(kTraces + "/vxlan-tso-partial.pcapng");
  const auto in_memory = ParseTrace(Bytes(good.begin(), good.end()), "mem");
  ASSERT_EQ(in_memory.size(), from_file.size());
  for (size_t i = 0; i < in_memory.size(); i++) {
    EXPECT_EQ(in_memory[i].frame, from_file[i].frame);
    EXPECT_EQ(in_memory[i].offloads, from_file[i].offloads);
    EXPECT_EQ(in_memory[i].ofs, from_file[i].ofs);
  }
  try {
    ParseTrace(Bytes{1, 2, 3}, "mem");
    ADD_FAILURE() << "three bytes were accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("mem: not a pcapng", 0), 0u) << e.what();
  }
}

// A little-endian pcapng block (pcapng draft-ietf-opsawg-pcapng section 3.1):
// type, total length, body padded to 32 bits, total length again.
Bytes Block(uint32_t type, const Bytes& body) {
  Bytes b;
  auto u32 = [&b](uint32_t v) {
    for (int i = 0; i < 4; i++) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  const uint32_t len = static_cast<uint32_t>(12 + (body.size() + 3) / 4 * 4);
  u32(type);
  u32(len);
  b.insert(b.end(), body.begin(), body.end());
  b.resize(len - 4, 0);
  u32(len);
  return b;
}

// A section header, one Ethernet interface (LINKTYPE_ETHERNET 1) and one
// enhanced packet block of a 60-byte frame followed by `options`.
Bytes OneFrameCapture(const Bytes& options) {
  Bytes out = Block(0x0A0D0D0A, {0x4D, 0x3C, 0x2B, 0x1A, 1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff,
                                 0xff, 0xff, 0xff});
  const Bytes idb = Block(1, {1, 0, 0, 0, 0, 0, 0, 0});
  out.insert(out.end(), idb.begin(), idb.end());
  // interface 0, timestamp 0, captured = original = 60 bytes.
  Bytes epb = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 60, 0, 0, 0, 60, 0, 0, 0};
  epb.resize(epb.size() + 60, 0);
  epb.insert(epb.end(), options.begin(), options.end());
  const Bytes block = Block(6, epb);
  out.insert(out.end(), block.begin(), block.end());
  return out;
}

TEST(TraceReader, AnOptionMustEndInsideItsBlock) {
  // opt_comment (code 1) of 8 bytes, all of them in the block: read and
  // ignored (not an offlab comment).
  const Bytes fits = {1, 0, 8, 0, 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'};
  ASSERT_EQ(ParseTrace(OneFrameCapture(fits), "mem").size(), 1u);
  // The same option claiming 8 bytes with 4 left before the block's
  // trailing length: the reader must refuse it, not read the trailer (or
  // beyond) as the option's value.
  const Bytes runs_past = {1, 0, 8, 0, 'a', 'b', 'c', 'd'};
  try {
    ParseTrace(OneFrameCapture(runs_past), "mem");
    ADD_FAILURE() << "an option running 4 bytes past its block was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("packet 1: option runs past its block"), std::string::npos)
        << e.what();
  }
}

TEST(TraceReader, NothingAfterTheEndOfOptionsIsRead) {
  // opt_endofopt (code 0, length 0) ends the options (pcapng section 3.5):
  // what follows it inside the block, here bytes that would be an option
  // running past the block, is not read.
  const Bytes after_end = {0, 0, 0, 0, 1, 0, 0xff, 0};
  ASSERT_EQ(ParseTrace(OneFrameCapture(after_end), "mem").size(), 1u);
}

TEST(TraceReader, ACaptureCutShortOfThePacketIsRefused) {
  // The enhanced packet block's original length (body offset 16; the block
  // starts after the 28-byte section header and 20-byte interface block)
  // says more or fewer bytes than were captured: offlab replays whole
  // frames, so either is refused by name.
  constexpr size_t kOrigLen = 28 + 20 + 8 + 16;
  for (uint8_t orig : {64, 59}) {
    Bytes cut = OneFrameCapture({});
    ASSERT_EQ(cut[kOrigLen], 60);
    cut[kOrigLen] = orig;
    try {
      ParseTrace(cut, "mem");
      ADD_FAILURE() << "captured 60 of " << int{orig} << " bytes was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("packet 1: truncated capture (60 of " +
                                           std::to_string(orig) + " bytes)"),
                std::string::npos)
          << e.what();
    }
  }
}

// --- Blocks and comments outside the samples -------------------------------

// An option (pcapng section 3.5) holding `text`, padded to 32 bits.
Bytes Option(uint16_t code, const std::string& text) {
  // Sized once and filled in place (GCC 12's -O2 array-bounds check misreads
  // an insert into a four-byte vector).
  Bytes b(4 + (text.size() + 3) / 4 * 4, 0);
  b[0] = static_cast<uint8_t>(code);
  b[1] = static_cast<uint8_t>(code >> 8);
  b[2] = static_cast<uint8_t>(text.size());
  b[3] = static_cast<uint8_t>(text.size() >> 8);
  std::copy(text.begin(), text.end(), b.begin() + 4);
  return b;
}

// The error ParseTrace gives, "" if it accepts the capture.
std::string ErrorOf(const Bytes& capture) {
  try {
    ParseTrace(capture, "mem");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(TraceReader, CommentFieldsOutOfRangeOrUnknownAreNamed) {
  // docs/trace-format.md: offloads is a 32-bit word, rx statuses are the
  // four names of CsumStatus.
  EXPECT_EQ(ErrorOf(OneFrameCapture(Option(1, R"(offlab {"offloads": -1})"))),
            "mem: packet 1: offloads must be an integer 0..4294967295");
  EXPECT_EQ(ErrorOf(OneFrameCapture(Option(1, R"(offlab {"offloads": "many"})"))),
            "mem: packet 1: offloads must be an integer 0..4294967295");
  EXPECT_EQ(ErrorOf(OneFrameCapture(Option(1, R"(offlab {"rx": {"pcap": {"ip": "fine"}}})"))),
            "mem: packet 1: rx.ip: unknown checksum status 'fine' (unknown, bad, good or partial)");
}

TEST(TraceReader, StepRoleExplicitOrByDefault) {
  // docs/trace-format.md: role is tx, wire or step; without one, a record
  // whose op is not "wire" is a step.
  auto t = ParseTrace(OneFrameCapture(Option(1, R"(offlab {"role": "step", "op": "gso"})")), "m");
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].role, Role::kStep);
  EXPECT_EQ(t[0].op, "gso");
  t = ParseTrace(OneFrameCapture(Option(1, R"(offlab {"op": "gso"})")), "m");
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].role, Role::kStep);
}

TEST(TraceReader, AWireRecordMustNameATxRecord) {
  EXPECT_EQ(ErrorOf(OneFrameCapture(Option(1, R"(offlab {"role": "wire", "of": 5})"))),
            "mem: packet 1: 'of' = 5 does not name a tx record");
  // Record 0 exists but is the wire record itself, not a tx record.
  EXPECT_EQ(ErrorOf(OneFrameCapture(Option(1, R"(offlab {"role": "wire", "of": 0})"))),
            "mem: packet 1: 'of' = 0 does not name a tx record");
}

TEST(TraceReader, BytesAfterTheLastBlockTooFewForABlock) {
  // A block is at least 12 bytes (type, two lengths): 8 trailing bytes are
  // a truncated one at the offset where they start.
  Bytes cap = OneFrameCapture({});
  const size_t at = cap.size();
  cap.resize(at + 8, 0);
  EXPECT_EQ(ErrorOf(cap), "mem: truncated block at byte " + std::to_string(at));
}

TEST(TraceReader, PacketOnANonEthernetInterface) {
  // LINKTYPE_RAW (101) instead of LINKTYPE_ETHERNET in the interface block
  // (little-endian u16 at body offset 0, pcapng section 4.2).
  Bytes cap = OneFrameCapture({});
  constexpr size_t kLinkType = 28 + 8;
  ASSERT_EQ(cap[kLinkType], 1);
  cap[kLinkType] = 101;
  EXPECT_EQ(ErrorOf(cap), "mem: packet 1: not on an Ethernet interface");
}

// The same capture written big-endian: the section header's byte-order magic
// 0x1A2B3C4D reads 4D 3C 2B 1A swapped (pcapng section 4.1), and every later
// field of the section is big-endian.
TEST(TraceReader, BigEndianSection) {
  auto be32 = [](Bytes& b, uint32_t v) {
    for (int i = 3; i >= 0; i--) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  auto block = [&](uint32_t type, Bytes body) {
    Bytes b;
    body.resize((body.size() + 3) / 4 * 4, 0);
    const uint32_t len = static_cast<uint32_t>(12 + body.size());
    be32(b, type);
    be32(b, len);
    b.insert(b.end(), body.begin(), body.end());
    be32(b, len);
    return b;
  };
  Bytes cap = block(0x0A0D0D0A, {0x1A, 0x2B, 0x3C, 0x4D, 0, 1, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff,
                                 0xff, 0xff, 0xff});
  const Bytes idb = block(1, {0, 1, 0, 0, 0, 0, 0, 0});
  cap.insert(cap.end(), idb.begin(), idb.end());
  Bytes epb;
  for (uint32_t v : {0u, 0u, 0u, 14u, 14u}) be32(epb, v);
  for (uint8_t i = 0; i < 14; i++) epb.push_back(i);
  const Bytes e = block(6, epb);
  cap.insert(cap.end(), e.begin(), e.end());
  auto t = ParseTrace(cap, "be");
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].frame, (Bytes{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}));
}

TEST(TraceReader, ASectionHeaderWithoutAByteOrderMagic) {
  // pcapng section 4.1: the magic is 0x1A2B3C4D in the writer's byte order;
  // anything else is no section header offlab can read.
  Bytes cap = OneFrameCapture({});
  ASSERT_EQ(cap[8], 0x4D);
  cap[8] = 0x4E;
  EXPECT_EQ(ErrorOf(cap), "mem: bad byte-order magic at byte 0");
}

}  // namespace
}  // namespace offlab::trace
