// SPDX-License-Identifier: Apache-2.0
//
// UpperProtocol follows an IPv6 header chain (RFC 8200 section 4: Hop-by-Hop
// and Destination Options/Routing headers are (Hdr Ext Len + 1) * 8 bytes, a
// Fragment header is 8) to the header at the L4 offset, the protocol whose
// pseudo-header a partial checksum needs; an offset inside a header names
// none. And a partial L4 checksum of no known protocol is refused: OVS
// asserts there (lib/dp-packet.c dp_packet_ol_send_prepare falls through to
// the SCTP case).
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/bytes.h"
#include "offlab/net/error.h"
#include "offlab/ovs/complete.h"
#include "test_util.h"

namespace offlab {
namespace {

using testing::H;

// 2001:db8::1 > 2001:db8::2, payload 36: Hop-by-Hop (next 44, PadN 4),
// an atomic Fragment header (next 6, offset 0, M 0, id 1), TCP 40000 > 80 SYN.
const std::string kChain =
    H("020000000002020000000001 86dd"
      "60000000 0024 00 40 20010db8000000000000000000000001 20010db8000000000000000000000002"
      "2c 00 01 04 00000000"
      "06 00 0000 00000001"
      "9c40 0050 00000000 00000000 5002 2000 0000 0000");

constexpr uint16_t kL3 = 14, kHbh = 54, kFrag = 62, kTcp = 70;

TEST(CompleteUpperProtocol, Ipv6ChainThroughHopByHopAndFragment) {
  const Packet p(FromHex(kChain));
  EXPECT_EQ(UpperProtocol(p, kL3, kTcp), 6);
  // Stopping at an extension header names that header.
  EXPECT_EQ(UpperProtocol(p, kL3, kFrag), 44);
  EXPECT_EQ(UpperProtocol(p, kL3, kHbh), 0);
  // An offset inside the Fragment header is no header at all.
  EXPECT_EQ(UpperProtocol(p, kL3, kFrag + 4), -1);
}

TEST(CompleteUpperProtocol, PartialL4WithoutAProtocolIsRefused) {
  Packet p(FromHex(kChain));
  p.l3_ofs = kL3;
  p.l4_ofs = kTcp;
  p.offloads.set_l4(CsumStatus::kPartial);
  try {
    CompleteL4Csum(p, Level::kOuter, L4Proto::kNone);
    ADD_FAILURE() << "completed a checksum of no protocol";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "checksum completion: L4 partial with unknown protocol");
  }
  EXPECT_EQ(p.offloads.l4(), CsumStatus::kPartial);
}

}  // namespace
}  // namespace offlab
