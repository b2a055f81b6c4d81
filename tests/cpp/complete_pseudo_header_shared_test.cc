// SPDX-License-Identifier: Apache-2.0
//
// The pseudo-header sum (RFC 768 / RFC 793: source and destination address,
// protocol, L4 length) reads the IP header and nothing else: a packet whose
// payload is a shared tail (offlab/net/packet.h) keeps it shared, and the
// sum is the plain oracle's over those header bytes. Frame laid out by hand:
// Ethernet, IPv4 10.0.0.1 -> 10.0.0.2, UDP, 100 payload bytes, with only the
// 42 header bytes in the head.
#include <gtest/gtest.h>

#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/net/packet.h"
#include "offlab/ovs/complete.h"
#include "test_util.h"

namespace offlab {
namespace {

using testing::H;
using testing::OracleSum;
using testing::SplitPoisoned;

TEST(CompletePseudoHeaderShared, ReadingTheIpv4PseudoHeaderLeavesASharedPayloadShared) {
  Bytes f =
      FromHex(H("0a8f394fe0738abf7e2f0584 0800"
                "4500008000004000401100000a0000010a000002"
                "d4781451006c0000"));
  for (int i = 0; i < 100; i++) f.push_back(static_cast<uint8_t>(i));
  Packet flat(f);
  flat.l3_ofs = 14;
  flat.l4_ofs = 34;
  Packet p = SplitPoisoned(flat, 42);
  ASSERT_TRUE(p.has_tail());
  const uint64_t sum = PseudoHeaderSum(p, 14, 17, 108);
  // Addresses, protocol 17 and length 108, folded.
  EXPECT_EQ(csum::Fold(sum), OracleSum(f.data() + 26, 8, 17 + 108));
  EXPECT_TRUE(p.has_tail());
  EXPECT_EQ(p.head_size(), 42u);
}

}  // namespace
}  // namespace offlab
