// SPDX-License-Identifier: Apache-2.0
//
// Shared payloads (offlab/net/payload.h): ropes of slices, packets ending in
// a shared tail, and sums over them. Every expected value comes from the
// same bytes laid out contiguously: their concatenation, and the scalar
// reference checksum csum::NaiveCompute (one 16-bit word at a time, none of
// the code that sums slices).
#include "offlab/net/payload.h"

#include <gtest/gtest.h>

#include <random>

#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/net/packet.h"
#include "offlab/net/work.h"

namespace offlab {
namespace {

Bytes Random(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  Bytes b(n);
  for (uint8_t& x : b) x = static_cast<uint8_t>(rng());
  return b;
}

Rope One(const PayloadRef& buf, size_t ofs, size_t len) {
  Rope r;
  r.Append(Slice{buf, ofs, len});
  return r;
}

// A packet holding bytes[0, split) in its head and the rest as a tail made of
// slices cut at `cuts` (offsets into bytes), each slice from its own buffer
// copy placed at an odd offset inside it, so no slice starts a buffer.
Packet Split(const Bytes& bytes, size_t split, std::vector<size_t> cuts) {
  Packet p(bytes.data(), split);
  cuts.insert(cuts.begin(), split);
  cuts.push_back(bytes.size());
  Rope tail;
  for (size_t i = 0; i + 1 < cuts.size(); i++) {
    const size_t n = cuts[i + 1] - cuts[i];
    Bytes padded(n + 3, 0xee);
    std::copy(bytes.begin() + cuts[i], bytes.begin() + cuts[i + 1], padded.begin() + 1);
    tail.Append(Slice{PayloadBuf::Own(std::move(padded)), 1, n});
  }
  p.AppendTail(tail);
  return p;
}

TEST(Rope, AdjacentSlicesOfOneBufferMerge) {
  const PayloadRef buf = PayloadBuf::Copy(Random(100, 1).data(), 100);
  Rope r = One(buf, 0, 30);
  r.Append(Slice{buf, 30, 20});  // continues the first
  EXPECT_EQ(r.count(), 1u);
  r.Append(Slice{buf, 60, 10});  // a gap: a second slice
  EXPECT_EQ(r.count(), 2u);
  EXPECT_EQ(r.size(), 60u);
  Bytes out(60);
  r.CopyTo(out.data());
  const Bytes want = [&] {
    Bytes w(buf->data(), buf->data() + 50);
    w.insert(w.end(), buf->data() + 60, buf->data() + 70);
    return w;
  }();
  EXPECT_EQ(out, want);
}

TEST(Rope, SubAndTruncateCutAcrossSlices) {
  const Bytes a = Random(40, 2), b = Random(40, 3);
  Rope r = One(PayloadBuf::Copy(a.data(), 40), 0, 40);
  r.Append(Slice{PayloadBuf::Copy(b.data(), 40), 0, 40});
  Bytes whole(a);
  whole.insert(whole.end(), b.begin(), b.end());
  const Rope sub = r.Sub(35, 10);
  Bytes got(10);
  sub.CopyTo(got.data());
  EXPECT_EQ(got, Bytes(whole.begin() + 35, whole.begin() + 45));
  r.Truncate(41);
  EXPECT_EQ(r.size(), 41u);
  EXPECT_EQ(r.count(), 2u);
  r.Truncate(40);
  EXPECT_EQ(r.count(), 1u);
}

TEST(Rope, AllZeroLooksAtTheRangeOnly) {
  Bytes b(64, 0);
  b[10] = 1;
  const PayloadRef buf = PayloadBuf::Copy(b.data(), b.size());
  const Rope r = One(buf, 0, 64);
  EXPECT_FALSE(r.AllZero(0, 64));
  EXPECT_TRUE(r.AllZero(11, 53));
  EXPECT_TRUE(One(PayloadBuf::Zeros(70000), 5, 70000 - 5).AllZero(0, 69995));
  // Past the first 4 KiB it compares at a time: one byte anywhere in a
  // 64 KiB payload is seen.
  Bytes big(65536, 0);
  EXPECT_TRUE(AllZeroBytes(big.data(), big.size()));
  for (size_t at : {size_t{0}, size_t{4095}, size_t{4096}, size_t{40000}, size_t{65535}}) {
    big[at] = 1;
    EXPECT_FALSE(AllZeroBytes(big.data(), big.size())) << at;
    big[at] = 0;
  }
}

// The one's-complement sum of any range of a packet with a tail, split at
// even and odd places into slices of even and odd lengths, is the sum of the
// same bytes laid out contiguously, and is metered as that many bytes.
TEST(PartialSum, EqualsTheContiguousSumWhereverTheBytesAreCut) {
  const Bytes bytes = Random(301, 4);
  const std::vector<std::pair<size_t, std::vector<size_t>>> layouts = {
      {100, {}}, {101, {}}, {100, {151}}, {101, {150, 151, 200}}, {0, {7, 8, 9}}, {301, {}}};
  for (const auto& [split, cuts] : layouts) {
    const Packet p = Split(bytes, split, cuts);
    ASSERT_EQ(p.bytes(), bytes);
    for (size_t ofs : {0u, 1u, 99u, 100u, 101u, 102u, 160u, 300u}) {
      for (size_t len : {0u, 1u, 2u, 51u, 100u, 201u}) {
        if (ofs + len > bytes.size()) continue;
        work::Take();
        const uint16_t got = csum::Finish(PartialSum(p, ofs, len, 0));
        EXPECT_EQ(work::Take().csum_bytes, len);
        EXPECT_EQ(got, csum::NaiveCompute(bytes.data() + ofs, len))
            << "split " << split << " ofs " << ofs << " len " << len;
      }
    }
  }
}

TEST(PartialSum, AllZeroBytesSumToZeroAndNonZeroToNonZero) {
  // 0x0000 and 0xffff are both zero in one's complement: the contiguous sum
  // tells them apart (only all-zero bytes give 0x0000), and so must pieces.
  const Packet zeros = [] {
    Packet p(Bytes(10, 0));
    p.AppendTail(One(PayloadBuf::Zeros(100), 0, 100));
    return p;
  }();
  EXPECT_EQ(csum::Fold(PartialSum(zeros, 0, 110, 0)), 0u);
  const Bytes ff = {0xff, 0xff};
  Packet p(ff);
  p.AppendTail(One(PayloadBuf::Zeros(100), 0, 100));
  EXPECT_EQ(csum::Fold(PartialSum(p, 0, 102, 0)), 0xffffu);
}

TEST(SliceSum, DifferentSlicesOfOneBufferAreKeptApart) {
  const Bytes b = Random(200, 5);
  const PayloadRef buf = PayloadBuf::Copy(b.data(), b.size());
  for (int round = 0; round < 2; round++) {  // the second round reads the kept sums
    for (size_t len : {10u, 11u, 100u}) {
      // NaiveCompute is the complement of the folded sum.
      const uint16_t want = static_cast<uint16_t>(~csum::NaiveCompute(b.data() + 20, len));
      EXPECT_EQ(buf->SliceSum(20, len), want) << "len " << len;
    }
  }
}

TEST(PacketTail, ReadersOfTheBytesSeeThemWholeAndTheTailGoes) {
  const Bytes bytes = Random(120, 6);
  Packet p = Split(bytes, 54, {80});
  EXPECT_TRUE(p.has_tail());
  EXPECT_EQ(p.size(), 120u);
  EXPECT_EQ(p.head_size(), 54u);
  p.Linear(54);  // within the head: nothing moves
  EXPECT_TRUE(p.has_tail());
  EXPECT_EQ(Bytes(p.data(), p.data() + p.size()), bytes);
  EXPECT_FALSE(p.has_tail());
  EXPECT_EQ(p.head_size(), 120u);
}

TEST(PacketTail, ResizePullAndTakeSplitKeepTheBytes) {
  const Bytes bytes = Random(120, 7);
  Packet p = Split(bytes, 54, {80});
  p.Resize(100);  // cuts the tail, not the head
  EXPECT_TRUE(p.has_tail());
  EXPECT_EQ(p.bytes(), Bytes(bytes.begin(), bytes.begin() + 100));
  p.Pull(14);
  EXPECT_EQ(p.bytes(), Bytes(bytes.begin() + 14, bytes.begin() + 100));
  auto [head, tail] = std::move(p).TakeSplit();
  EXPECT_EQ(head, Bytes(bytes.begin() + 14, bytes.begin() + 54));
  Bytes rest(tail.size());
  tail.CopyTo(rest.data());
  EXPECT_EQ(rest, Bytes(bytes.begin() + 54, bytes.begin() + 100));
  Packet q = Split(bytes, 54, {});
  q.Resize(130);  // growing zero-fills, as for bytes
  Bytes want(bytes);
  want.resize(130, 0);
  EXPECT_EQ(q.bytes(), want);
}

TEST(PacketTail, AppendFromCopiesTheHeadPartAndSharesTheTailPart) {
  const Bytes bytes = Random(120, 8);
  const Packet src = Split(bytes, 54, {});
  Packet s(nullptr, 0, 0);
  s.AppendFrom(src, 0, 54);
  s.AppendFrom(src, 60, 40);
  EXPECT_EQ(s.head_size(), 54u);
  EXPECT_EQ(s.tail().size(), 40u);
  EXPECT_EQ(s.tail().slice(0).buf, src.tail().slice(0).buf);
  Bytes want(bytes.begin(), bytes.begin() + 54);
  want.insert(want.end(), bytes.begin() + 60, bytes.begin() + 100);
  EXPECT_EQ(s.bytes(), want);
}

TEST(Rope, SubPastTheFirstSliceAndTruncateToNothing) {
  const Bytes a = Random(40, 9), b = Random(40, 10);
  Rope r = One(PayloadBuf::Copy(a.data(), 40), 0, 40);
  r.Append(Slice{PayloadBuf::Copy(b.data(), 40), 0, 40});
  // Bytes 45..55 lie in the second slice only: b[5..15).
  const Rope sub = r.Sub(45, 10);
  Bytes got(10);
  sub.CopyTo(got.data());
  EXPECT_EQ(got, Bytes(b.begin() + 5, b.begin() + 15));
  EXPECT_EQ(sub.count(), 1u);
  r.Truncate(0);
  EXPECT_EQ(r.size(), 0u);
  EXPECT_EQ(r.count(), 0u);
}

TEST(PacketTail, HeadBytesAppendedAfterATailGoToTheTail) {
  const Bytes bytes = Random(120, 11);
  const Packet src = Split(bytes, 54, {});
  Packet s(nullptr, 0, 0);
  s.AppendFrom(src, 60, 40);  // a tail first
  s.AppendFrom(src, 0, 10);   // then head bytes: after it, not into the head
  EXPECT_EQ(s.head_size(), 0u);
  EXPECT_EQ(s.tail().size(), 50u);
  Bytes want(bytes.begin() + 60, bytes.begin() + 100);
  want.insert(want.end(), bytes.begin(), bytes.begin() + 10);
  EXPECT_EQ(s.bytes(), want);
}

TEST(PacketTail, ResizeIntoTheHeadDropsTheTail) {
  const Bytes bytes = Random(120, 12);
  Packet p = Split(bytes, 54, {80});
  p.Resize(30);
  EXPECT_FALSE(p.has_tail());
  EXPECT_EQ(p.bytes(), Bytes(bytes.begin(), bytes.begin() + 30));
}

TEST(PacketTail, TakeHeadSharedOfAPlainPacket) {
  const Bytes bytes = Random(120, 13);
  Packet p(bytes);
  auto [head, tail] = std::move(p).TakeHeadShared(54);
  EXPECT_EQ(head, Bytes(bytes.begin(), bytes.begin() + 54));
  ASSERT_EQ(tail.size(), 66u);
  EXPECT_EQ(tail.count(), 1u);
  Bytes rest(66);
  tail.CopyTo(rest.data());
  EXPECT_EQ(rest, Bytes(bytes.begin() + 54, bytes.end()));
}

}  // namespace
}  // namespace offlab
