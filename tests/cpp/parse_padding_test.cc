// How many bytes may follow an IP packet in its frame: OVS's
// ipv4_sanity_check and ipv6_sanity_check (d6a632a9b lib/flow.c:683-710
// and 729-749) refuse a frame only when more than UINT16_MAX bytes follow
// the IP length (dp_packet's l2_pad_size is 16 bits), so exactly 65535 is
// still parsed.
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/bytes.h"
#include "offlab/ovs/parse.h"
#include "test_util.h"

namespace offlab {
namespace {

using testing::kFrameG;

// The frame with `pad` zero bytes after its IP packet.
Packet Padded(const Bytes& frame, size_t pad) {
  Bytes b = frame;
  b.resize(b.size() + pad, 0);
  return Packet(b);
}

TEST(ParsePadding, Ipv4AcceptsUpTo65535BytesAfterTheTotalLength) {
  const Bytes g = FromHex(kFrameG);  // IPv4 total length 0x68 fills the frame
  for (bool simple : {false, true}) {
    Packet ok = Padded(g, 0xffff);
    FlowKey k = simple ? ParseSimple(ok) : Parse(ok);
    EXPECT_TRUE(k.error.empty()) << k.error;
    EXPECT_TRUE(k.has_l3);
    EXPECT_TRUE(k.has_l4);
    Packet over = Padded(g, 0x10000);
    k = simple ? ParseSimple(over) : Parse(over);
    EXPECT_EQ(k.error, "ipv4: more than 65535 bytes after the total length");
  }
}

TEST(ParsePadding, Ipv6AcceptsUpTo65535BytesAfterThePayloadLength) {
  // Ether/IPv6(src=2001:cafe::88, dst=2001:cafe::92, hlim 64)/UDP(5000 > 6000)
  // with no payload; its checksum is left 0 (parsing does not read it).
  const Bytes v6 = FromHex(
      "0a8f394fe0738abf7e2f058486dd"
      "6000000000081140"
      "2001cafe000000000000000000000088"
      "2001cafe000000000000000000000092"
      "1388177000080000");
  for (bool simple : {false, true}) {
    Packet ok = Padded(v6, 0xffff);
    FlowKey k = simple ? ParseSimple(ok) : Parse(ok);
    EXPECT_TRUE(k.error.empty()) << k.error;
    EXPECT_TRUE(k.has_l3);
    if (!simple) {
      EXPECT_TRUE(k.ipv6);  // the simple-match key keeps no address family
    }
    Packet over = Padded(v6, 0x10000);
    k = simple ? ParseSimple(over) : Parse(over);
    EXPECT_EQ(k.error, "ipv6: more than 65535 bytes after the payload length");
  }
}

}  // namespace
}  // namespace offlab
