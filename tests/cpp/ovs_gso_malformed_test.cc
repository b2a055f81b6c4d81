// SPDX-License-Identifier: Apache-2.0
//
// Software GSO (offlab/ovs/gso.h) on a TSO packet whose TCP data offset is
// not a header: below 5 words (RFC 9293 section 3.1).
// Such a packet is refused with an error rather than cut with a header
// length it does not have; a right one is cut. Frame G (test_util.h): TCP
// with 64 payload bytes, its data offset at byte 46.
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/error.h"
#include "offlab/ovs/gso.h"
#include "test_util.h"

namespace offlab {
namespace {

Packet TsoG(uint8_t doff) {
  Packet p = testing::Parsed(testing::kFrameG);
  p.data()[46] = static_cast<uint8_t>(doff << 4);
  p.tso_segsz = 16;
  p.offloads.set_l4(CsumStatus::kPartial);
  return p;
}

std::string GsoError(const Packet& p) {
  try {
    Gso(p);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(OvsGsoMalformed, ADataOffsetThatIsNoHeaderIsRefused) {
  EXPECT_EQ(GsoError(TsoG(4)), "gso: bad TCP data offset");  // 16 bytes
  EXPECT_EQ(GsoError(TsoG(0)), "gso: bad TCP data offset");
  // 15 words = 60 bytes: within the 84 TCP bytes, a header with options.
  EXPECT_EQ(GsoError(TsoG(15)), "");
  // 5 words: 64 payload bytes in segments of 16.
  EXPECT_EQ(Gso(TsoG(5)).size(), 4u);
}

}  // namespace
}  // namespace offlab
