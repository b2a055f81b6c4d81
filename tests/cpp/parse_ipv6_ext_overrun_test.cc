// SPDX-License-Identifier: Apache-2.0
//
// The flow key of frames the parser cannot take to L4. An IPv6 extension
// header whose Hdr Ext Len (RFC 8200 section 4.3: in 8-octet units, not
// counting the first 8) runs past the payload makes OVS's
// parse_ipv6_ext_hdrs__ fail (lib/flow.c: "if (*sizep < len) return false"):
// miniflow_extract stops with nw_proto still the extension header's type
// and no L4, and ipv6_sanity_check has already passed, so no
// miniflow_extract_* length counter is bumped. A non-IP frame's key is just
// its Ethertype (ARP: 0x0806, IEEE 802 numbers).
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/bytes.h"
#include "offlab/ovs/netdev_len.h"
#include "offlab/ovs/parse.h"
#include "test_util.h"

namespace offlab {
namespace {

using testing::H;

// 2001:db8::1 > 2001:db8::2, payload length 8, next header 60 (Destination
// Options); that header says next header 6, Hdr Ext Len 2 (24 bytes), and
// holds a PadN option (type 1, length 4) in its 8 bytes.
const std::string kHbhOverrun =
    H("020000000002020000000001 86dd"
      "60000000 0008 3c 40 20010db8000000000000000000000001 20010db8000000000000000000000002"
      "06 02 01 04 00000000");

// ARP request 10.0.0.1 asks for 10.0.0.2 (dissect_vectors.h kArpRequest).
const std::string kArp =
    "020000000002020000000001080600010800060400010200000000010a0000010000000000000a000002";

TEST(ParseIpv6ExtOverrun, ExtensionHeaderLongerThanThePayload) {
  Packet p(FromHex(kHbhOverrun));
  const FlowKey key = Parse(p);
  EXPECT_EQ(key.error, "ipv6: extension header exceeds payload");
  // No nw_proto in the flow: miniflow_extract stops before pushing it (ovs-vswitchd
  // 3.1.0 matched this frame on ipv6,nw_proto=0, not 60; ovs-diff ip-header-incomplete).
  EXPECT_EQ(key.nw_proto, 0);
  EXPECT_EQ(key.nw_ttl, 0) << "nor the hop limit (64)";
  EXPECT_EQ(key.nw_tos, 0);
  EXPECT_TRUE(key.has_l3) << "the addresses are in the flow";
  EXPECT_EQ(key.nw_src[15], 1);
  EXPECT_EQ(p.l4_ofs, kNoOffset);
  EXPECT_EQ(MiniflowLengthCounter(key), nullptr);
}

TEST(ParseIpv6ExtOverrun, NonIpKeyIsItsEthertype) {
  Packet p(FromHex(kArp));
  EXPECT_EQ(Parse(p).ToString(), "dl_type=0x0806");
}

}  // namespace
}  // namespace offlab
