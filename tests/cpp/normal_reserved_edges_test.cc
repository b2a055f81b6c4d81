// SPDX-License-Identifier: Apache-2.0
//
// The NORMAL action's reserved destinations at the edges of their ranges
// (models/src/ovs/normal.cc): OVS v3.1.0 lib/packets.c:107-175
// eth_addr_is_reserved lists 01:80:c2:00:00:00-0f (IEEE 802.1), Extreme's
// 00:e0:2b:00:00:00/04/06, Cisco's 01:00:0c:00:00:00, 01:00:0c:cc:cc:cc/cd,
// 01:00:0c:cd:cd:cd and CFM 01:00:0c:cc:cc:c0-c7; is_admissible drops frames
// to them (ofproto-dpif-xlate.c:2596-2602), any other multicast is flooded.
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/bytes.h"
#include "offlab/ovs/pipeline.h"
#include "ovs_frames.h"

namespace offlab {
namespace {

using testdata::kG;

size_t SentFor(const std::string& dst) {
  Pipeline br;
  br.AddPort({.name = "p1"});
  br.AddPort({.name = "p2"});
  br.AddPort({.name = "p3"});
  br.AddFlow("actions=NORMAL");
  return br.Receive("p1", FromHex(dst + kG.substr(12))).size();
}

TEST(NormalReservedEdges, ReservedRangesEndWhereOvsEndsThem) {
  for (const char* reserved : {"0180c2000000", "0180c200000f", "01000cccccc0", "01000cccccc7",
                               "01000ccccccc", "01000ccccccd", "01000ccdcdcd", "01000c000000",
                               "00e02b000000", "00e02b000004", "00e02b000006"}) {
    EXPECT_EQ(SentFor(reserved), 0u) << reserved;
  }
  // Just past each range, and a neighbour of each single address: multicast
  // ones flooded to the two other ports; unicast ones (00:e0:2b:...) flooded
  // too, being unknown.
  for (const char* flooded :
       {"0180c2000010", "0180c1ffffff", "01000cccccc8", "01000cccccbf", "01000cccccce",
        "01000ccdcdce", "01000c000001", "00e02b000001", "00e02b000005", "00e02b000007"}) {
    EXPECT_EQ(SentFor(flooded), 2u) << flooded;
  }
}

}  // namespace
}  // namespace offlab
