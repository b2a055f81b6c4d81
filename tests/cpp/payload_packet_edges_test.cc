// SPDX-License-Identifier: Apache-2.0
//
// Shared payloads and packet buffers (models/src/net/payload.cc, packet.cc,
// bytes.cc) at the edges the datapath tests do not reach: a range that
// starts past the first slices of a rope, a truncation at or past the end,
// sums of the same offset with different lengths, the all-zero buffer grown
// for a larger request, a head split off a packet with no tail, offsets
// pushed past 16 bits, and hex digits of either case. Every expected value
// is the same bytes laid out contiguously, by hand or by the plain oracle of
// test_util.h.
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/bytes.h"
#include "offlab/net/error.h"
#include "offlab/net/packet.h"
#include "offlab/net/payload.h"
#include "test_util.h"

namespace offlab {
namespace {

// Three slices of three buffers: 00..09, 0a..13 (from the middle of its
// buffer), 14..1d.
Rope ThreeSlices(Bytes* flat) {
  Rope r;
  for (int k = 0; k < 3; k++) {
    Bytes b(20, 0xee);
    for (int i = 0; i < 10; i++) b[5 + i] = static_cast<uint8_t>(10 * k + i);
    r.Append(Slice{PayloadBuf::Own(std::move(b)), 5, 10});
  }
  flat->clear();
  for (int i = 0; i < 30; i++) flat->push_back(static_cast<uint8_t>(i));
  return r;
}

uint32_t Fold(uint64_t s) {
  while (s >> 16) s = (s & 0xffff) + (s >> 16);
  return static_cast<uint32_t>(s);
}

TEST(PayloadPacketEdges, RangesStartingInALaterSlice) {
  Bytes flat;
  const Rope r = ThreeSlices(&flat);
  ASSERT_EQ(r.count(), 3u);
  // Bytes 23..26: in the third slice only.
  Bytes out(4);
  r.CopyTo(out.data(), 23, 4);
  EXPECT_EQ(out, Bytes(flat.begin() + 23, flat.begin() + 27));
  const Rope sub = r.Sub(23, 4);
  EXPECT_EQ(sub.size(), 4u);
  EXPECT_EQ(sub.count(), 1u);
  // Bytes 15..24: the end of the second and the start of the third.
  Bytes mid(10);
  r.CopyTo(mid.data(), 15, 10);
  EXPECT_EQ(mid, Bytes(flat.begin() + 15, flat.begin() + 25));
  // The sum of bytes 11..28 (an odd start: the pieces shift by a byte).
  EXPECT_EQ(Fold(r.Sum(11, 17, false)), testing::OracleSum(flat.data() + 11, 17));
  EXPECT_EQ(Fold(r.Sum(20, 10, false)), testing::OracleSum(flat.data() + 20, 10));
}

TEST(PayloadPacketEdges, AllZeroOfAZeroRangeInANonZeroBuffer) {
  Bytes b(16, 0);
  b[0] = 1;
  b[15] = 2;
  const PayloadRef buf = PayloadBuf::Own(std::move(b));
  EXPECT_FALSE(buf->AllZero());
  EXPECT_FALSE(buf->AllZero());  // the kept answer
  Rope r;
  r.Append(Slice{buf, 0, 16});
  EXPECT_TRUE(r.AllZero(1, 14));
  EXPECT_FALSE(r.AllZero(0, 14));
  EXPECT_FALSE(r.AllZero(2, 14));
  // A buffer of zeros only is known to be so.
  const PayloadRef zeros = PayloadBuf::Own(Bytes(8, 0));
  EXPECT_TRUE(zeros->AllZero());
}

TEST(PayloadPacketEdges, TheZeroBufferGrowsForALargerRequest) {
  const PayloadRef small = PayloadBuf::Zeros(10);
  EXPECT_GE(small->size(), 10u);
  const size_t big_n = small->size() + 1000;
  const PayloadRef big = PayloadBuf::Zeros(big_n);
  EXPECT_GE(big->size(), big_n);
  EXPECT_TRUE(big->AllZero());
  EXPECT_EQ(big->SliceSum(100, 500), 0);
  // A request the current one covers gets that one again.
  EXPECT_EQ(PayloadBuf::Zeros(big_n - 1).get(), big.get());
}

TEST(PayloadPacketEdges, SliceSumsOfOneOffsetAndTwoLengths) {
  Bytes b = {0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0};
  const PayloadRef buf = PayloadBuf::Copy(b.data(), b.size());
  EXPECT_EQ(buf->SliceSum(0, 4), 0x1234 + 0x5678);
  EXPECT_EQ(buf->SliceSum(0, 6), testing::OracleSum(b.data(), 6));
  EXPECT_EQ(buf->SliceSum(0, 4), 0x1234 + 0x5678);  // not the 6-byte one
  EXPECT_EQ(buf->SliceSum(2, 2), 0x5678);
}

TEST(PayloadPacketEdges, TruncateAtOrPastTheEndKeepsEverything) {
  Bytes flat;
  Rope r = ThreeSlices(&flat);
  r.Truncate(30);
  EXPECT_EQ(r.size(), 30u);
  r.Truncate(31);
  EXPECT_EQ(r.size(), 30u);
  EXPECT_EQ(r.count(), 3u);
  r.Truncate(15);
  EXPECT_EQ(r.size(), 15u);
  EXPECT_EQ(r.count(), 2u);
  Bytes out(15);
  r.CopyTo(out.data());
  EXPECT_EQ(out, Bytes(flat.begin(), flat.begin() + 15));
}

TEST(PayloadPacketEdges, HeadSharedOffAPacketWithoutATail) {
  const Bytes b = FromHex("00112233445566778899");
  Packet p(b);
  auto [head, tail] = std::move(p).TakeHeadShared(4);
  EXPECT_EQ(ToHex(head), "00112233");
  ASSERT_EQ(tail.size(), 6u);
  Bytes rest(6);
  tail.CopyTo(rest.data());
  EXPECT_EQ(ToHex(rest), "445566778899");
  EXPECT_EQ(p.size(), 0u);
  // Asking for all of it gives the bytes whole and no tail.
  Packet q(b);
  auto [all, none] = std::move(q).TakeHeadShared(10);
  EXPECT_EQ(all, b);
  EXPECT_TRUE(none.empty());
}

TEST(PayloadPacketEdges, PacketConstructionAndOffsets) {
  // A null pointer gives zeros; a zero length gives nothing.
  const Packet z(nullptr, 5, 2);
  EXPECT_EQ(ToHex(z.bytes()), "0000000000");
  EXPECT_EQ(z.headroom(), 2u);
  const uint8_t one = 7;
  const Packet e(&one, 0, 3);
  EXPECT_EQ(e.size(), 0u);
  EXPECT_EQ(e.headroom(), 3u);
  // An offset pushed to 65535 or beyond is unset (kNoOffset is 65535).
  Packet p(FromHex("0011"));
  p.l3_ofs = 65500;
  p.l4_ofs = 65534;
  p.inner_l2_ofs = 1;
  p.Push(1);
  EXPECT_EQ(p.l3_ofs, 65501);
  EXPECT_EQ(p.l4_ofs, kNoOffset);
  EXPECT_EQ(p.inner_l2_ofs, 2);
  // Appending an empty or out-of-range piece of a packet adds nothing.
  Packet dst(FromHex("aa"));
  dst.AppendFrom(p, 3, 5);
  dst.AppendFrom(p, 1, 0);
  EXPECT_EQ(ToHex(dst.bytes()), "aa");
  dst.AppendFrom(p, 1, 5);
  EXPECT_EQ(ToHex(dst.bytes()), "aa0011");
}

TEST(PayloadPacketEdges, PullIntoTheSharedTail) {
  Packet p(FromHex("0001"));
  Rope tail;
  const Bytes t = FromHex("02030405");
  tail.Append(Slice{PayloadBuf::Copy(t.data(), t.size()), 0, t.size()});
  p.AppendTail(tail);
  p.l3_ofs = 4;
  p.Pull(3);
  EXPECT_EQ(ToHex(p.bytes()), "030405");
  EXPECT_EQ(p.l3_ofs, 1);
}

TEST(PayloadPacketEdges, HexDigitsOfEitherCase) {
  EXPECT_EQ(FromHex("aF 0b\nC9"), (Bytes{0xaf, 0x0b, 0xc9}));
  for (const char* bad : {"0G", "0g", "0@", "0`", "0/", "0:"}) {
    try {
      FromHex(bad);
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), std::string("hex: invalid character '") + bad[1] + "'");
    }
  }
  EXPECT_THROW(FromHex("abc"), Error);
  EXPECT_EQ(ToHex(Bytes{}), "");
}

}  // namespace
}  // namespace offlab
