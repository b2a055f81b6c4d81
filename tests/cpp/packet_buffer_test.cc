// SPDX-License-Identifier: Apache-2.0
//
// Packet buffers handed over without copying: Adopt takes a frame's bytes,
// TakeBytes gives them back, and headroom, Push and Pull behave as for a
// copied packet.
#include <gtest/gtest.h>

#include "offlab/net/bytes.h"
#include "offlab/net/packet.h"

namespace offlab {
namespace {

TEST(PacketBuffer, AdoptKeepsTheBytesWithoutHeadroom) {
  Bytes frame{1, 2, 3, 4, 5};
  const uint8_t* storage = frame.data();
  Packet p = Packet::Adopt(std::move(frame));
  EXPECT_EQ(p.bytes(), (Bytes{1, 2, 3, 4, 5}));
  EXPECT_EQ(p.headroom(), 0u);
  EXPECT_EQ(p.data(), storage);  // the same buffer, not a copy
  EXPECT_EQ(p.l3_ofs, kNoOffset);
}

TEST(PacketBuffer, PushOnAnAdoptedPacketGrowsItsHeadroom) {
  Packet p = Packet::Adopt(Bytes{9, 9});
  p.l3_ofs = 0;
  uint8_t* front = p.Push(3);
  front[0] = 7, front[1] = 7, front[2] = 7;
  EXPECT_EQ(p.bytes(), (Bytes{7, 7, 7, 9, 9}));
  EXPECT_EQ(p.l3_ofs, 3);
  EXPECT_GE(p.headroom(), Packet::kDefaultHeadroom - 3);
}

TEST(PacketBuffer, TakeBytesReturnsExactlyThePacketAndEmptiesIt) {
  Packet p(Bytes{0xa, 0xb, 0xc, 0xd, 0xe});
  p.Pull(2);  // headroom in front of the data
  const Bytes taken = std::move(p).TakeBytes();
  EXPECT_EQ(taken, (Bytes{0xc, 0xd, 0xe}));
  EXPECT_EQ(p.size(), 0u);  // TakeBytes promises an empty packet
}

TEST(PacketBuffer, TakeBytesOfAnAdoptedPacketIsTheSameBuffer) {
  Bytes frame{4, 3, 2, 1};
  const uint8_t* storage = frame.data();
  Packet p = Packet::Adopt(std::move(frame));
  const Bytes back = std::move(p).TakeBytes();
  EXPECT_EQ(back, (Bytes{4, 3, 2, 1}));
  EXPECT_EQ(back.data(), storage);
}

TEST(PacketBuffer, OneBatchMovesThePacketIn) {
  Packet p(Bytes(1500, 0x5a));
  const uint8_t* storage = p.data();
  PacketBatch b = OneBatch(std::move(p));
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].data(), storage);
  EXPECT_EQ(b[0].size(), 1500u);
}

TEST(PacketBuffer, PutAfterTruncationOverwritesTheOldTail) {
  Packet p(Bytes{1, 2, 3, 4, 5});
  p.Resize(2);  // the buffer keeps 3, 4, 5 beyond the end
  const Bytes more{9, 8, 7, 6};
  p.Put(more.data(), more.size());
  EXPECT_EQ(p.bytes(), (Bytes{1, 2, 9, 8, 7, 6}));
  p.Resize(8);  // zero-extends
  EXPECT_EQ(p.bytes(), (Bytes{1, 2, 9, 8, 7, 6, 0, 0}));
}

TEST(PacketBuffer, GrowingBackOverTruncatedBytesZeroesThem) {
  // The buffer still holds 3, 4, 5 past the end: growing within it must not
  // bring them back (Resize zero-extends, whatever the storage held).
  for (size_t headroom : {size_t{0}, Packet::kDefaultHeadroom}) {
    SCOPED_TRACE(headroom);
    const Bytes b{1, 2, 3, 4, 5};
    Packet p(b.data(), b.size(), headroom);
    p.Resize(2);
    p.Resize(5);
    EXPECT_EQ(p.bytes(), (Bytes{1, 2, 0, 0, 0}));
  }
}

TEST(PacketBuffer, ReservedRoomTakesPutsWithoutMovingTheBytes) {
  Packet p(Bytes{1, 2, 3});
  p.Reserve(3 + 3000);
  const uint8_t* storage = p.data();
  const Bytes chunk(1000, 0x42);
  for (int i = 0; i < 3; i++) p.Put(chunk.data(), chunk.size());
  EXPECT_EQ(p.data(), storage);
  ASSERT_EQ(p.size(), 3003u);
  EXPECT_EQ(p.data()[2], 3);
  EXPECT_EQ(p.data()[3], 0x42);
  EXPECT_EQ(p.data()[3002], 0x42);
}

TEST(PacketBuffer, TakeHeadSharedSplitsWithoutMovingThePayload) {
  Packet p(Bytes{1, 2, 3, 4, 5, 6, 7});
  const uint8_t* payload = p.data() + 3;
  auto [head, tail] = std::move(p).TakeHeadShared(3);
  EXPECT_EQ(head, (Bytes{1, 2, 3}));
  ASSERT_EQ(tail.size(), 4u);
  ASSERT_EQ(tail.count(), 1u);
  // The payload stays where it was: the packet's buffer became the tail's.
  EXPECT_EQ(tail.slice(0).buf->data() + tail.slice(0).ofs, payload);
  Bytes rest(4);
  tail.CopyTo(rest.data());
  EXPECT_EQ(rest, (Bytes{4, 5, 6, 7}));
  EXPECT_EQ(p.size(), 0u);
}

TEST(PacketBuffer, TakeHeadSharedOfAShortPacketIsAllHead) {
  auto [head, tail] = Packet(Bytes{1, 2}).TakeHeadShared(3);
  EXPECT_EQ(head, (Bytes{1, 2}));
  EXPECT_TRUE(tail.empty());
}

TEST(PacketBuffer, WithBytesOnlyForgetsLayersAndOffloads) {
  Packet p(Bytes{1, 2, 3});
  p.l3_ofs = 1;
  p.inner_l4_ofs = 2;
  p.tso_segsz = 1400;
  p.offloads.set_l4(CsumStatus::kGood);
  p.md.mark = 7;
  Packet q = std::move(p).WithBytesOnly();
  EXPECT_EQ(q.bytes(), (Bytes{1, 2, 3}));
  EXPECT_EQ(q.l3_ofs, kNoOffset);
  EXPECT_EQ(q.inner_l4_ofs, kNoOffset);
  EXPECT_EQ(q.tso_segsz, 0);
  EXPECT_EQ(q.offloads.l4(), Offloads{}.l4());
  EXPECT_EQ(q.md.mark, 0u);
}

TEST(PacketBuffer, ConstructedPacketHasZeroedHeadroomAndTheBytes) {
  const Bytes frame{0xaa, 0xbb, 0xcc};
  Packet p(frame.data(), frame.size(), 4);
  EXPECT_EQ(p.headroom(), 4u);
  EXPECT_EQ(p.bytes(), frame);
  uint8_t* front = p.Push(4);
  EXPECT_EQ(Bytes(front, front + 4), (Bytes{0, 0, 0, 0}));
}

TEST(PacketBuffer, AMovedFromPacketIsEmptyAndHasNoLayers) {
  // A moved-from packet must not keep its old lengths over a buffer it no
  // longer holds: its layer pointers would point past a null buffer
  // (flow_rule_fuzz found a caller rewriting such a packet).
  Packet p(FromHex("0a8f394fe0738abf7e2f05840800450000140000000000064356c0a87b02c0a87b01"));
  p.l3_ofs = 14;
  Packet q = std::move(p);
  EXPECT_EQ(q.size(), 34u);
  EXPECT_EQ(p.size(), 0u);  // NOLINT(bugprone-use-after-move): the state under test
  EXPECT_EQ(p.l3(), nullptr);
  EXPECT_FALSE(p.has_tail());
  Packet r(FromHex("00"));
  r = std::move(q);
  EXPECT_EQ(r.size(), 34u);
  EXPECT_EQ(q.size(), 0u);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(q.l3(), nullptr);
}

}  // namespace
}  // namespace offlab
