// SPDX-License-Identifier: Apache-2.0
//
// ARP beyond the requests the other dissector tests carry: the operation is
// read from its own field (RFC 826: htype 2, ptype 2, hlen 1, plen 1, op 2).
// Frames from scapy 2.8 (Ether(src="02:00:00:00:00:02", ...)/ARP(...));
// tshark 4.0 shows the reply as "10.0.0.2 is at 02:00:00:00:00:02".
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/bytes.h"
#include "offlab/net/dissect.h"

namespace offlab {
namespace {

std::string ArpSummary(const std::string& hex) {
  const Dissection d = Dissect(FromHex(hex));
  EXPECT_FALSE(d.layers.empty());
  if (d.layers.empty()) return "";
  EXPECT_EQ(d.layers.back().name, "arp");
  return d.layers.back().summary;
}

TEST(DissectArp, ReplyAndOtherOperationsAreNamedByTheirOpField) {
  // ARP(op=2, hwsrc="02:00:00:00:00:02", psrc="10.0.0.2",
  //     hwdst="02:00:00:00:00:01", pdst="10.0.0.1")
  EXPECT_EQ(ArpSummary("020000000001020000000002 0806 0001 0800 06 04 0002"
                       "020000000002 0a000002 020000000001 0a000001"),
            "reply 10.0.0.2 is-at 02:00:00:00:00:02");
  // ARP(op=3, ...): a RARP request, only its number.
  EXPECT_EQ(ArpSummary("ffffffffffff020000000002 0806 0001 0800 06 04 0003"
                       "020000000002 0a000002 000000000000 0a000001"),
            "op 3");
  // The reply with hardware type 6 (IEEE 802): not Ethernet/IPv4 ARP.
  EXPECT_EQ(ArpSummary("020000000001020000000002 0806 0006 0800 06 04 0002"
                       "020000000002 0a000002 020000000001 0a000001"),
            "htype 6 ptype 0x0800 op 2");
}

}  // namespace
}  // namespace offlab
