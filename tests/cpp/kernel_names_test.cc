// SPDX-License-Identifier: Apache-2.0
//
// The names the kernel model prints for GRO results and packet types are the
// kernel's own: enum gro_result's GRO_MERGED ... GRO_CONSUMED
// (include/net/gro.h, v6.18) and the PACKET_* types (include/uapi/linux/
// if_packet.h: PACKET_HOST 0, BROADCAST 1, MULTICAST 2, OTHERHOST 3), which
// eth_type_trans picks from the destination MAC (net/ethernet/eth.c:
// the group bit, all-ones for broadcast, else the device's own address).
#include <gtest/gtest.h>

#include <string>

#include "offlab/linux/gro.h"
#include "offlab/linux/stack_rx.h"
#include "offlab/net/bytes.h"

namespace offlab::kernel {
namespace {

TEST(KernelNames, GroResults) {
  EXPECT_STREQ(GroResultName(GroResult::kMerged), "MERGED");
  EXPECT_STREQ(GroResultName(GroResult::kMergedFree), "MERGED_FREE");
  EXPECT_STREQ(GroResultName(GroResult::kHeld), "HELD");
  EXPECT_STREQ(GroResultName(GroResult::kNormal), "NORMAL");
  EXPECT_STREQ(GroResultName(GroResult::kConsumed), "CONSUMED");
}

TEST(KernelNames, PacketTypesFromTheDestinationMac) {
  EXPECT_EQ(static_cast<int>(PktType::kOtherHost), 3);
  const std::array<uint8_t, 6> mine = {0x02, 0, 0, 0, 0, 0x01};
  struct Case {
    const char* dst;
    PktType type;
    const char* name;
  };
  for (const Case& c : {Case{"020000000001", PktType::kHost, "host"},
                        Case{"ffffffffffff", PktType::kBroadcast, "broadcast"},
                        Case{"01005e000001", PktType::kMulticast, "multicast"},
                        Case{"ffffffffff7f", PktType::kMulticast, "multicast"},
                        Case{"020000000002", PktType::kOtherHost, "otherhost"}}) {
    SCOPED_TRACE(c.dst);
    SkBuff skb;
    skb.pkt = Packet(FromHex(std::string(c.dst) + "0a0000000009" + "0800"));
    EXPECT_EQ(EthPktType(skb, mine), c.type);
    EXPECT_STREQ(PktTypeName(c.type), c.name);
  }
  SkBuff runt;
  runt.pkt = Packet(FromHex("ffffffffffff"));
  EXPECT_EQ(EthPktType(runt, mine), PktType::kOtherHost);
}

}  // namespace
}  // namespace offlab::kernel
