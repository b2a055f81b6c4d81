// SPDX-License-Identifier: Apache-2.0
//
// ct_state values as ovs-ofctl 3.1.0 on the development machine reads them
// (`ovs-ofctl parse-flow "ct_state=...,actions=drop"`, each expectation the
// flow it printed or the error it gave): +flag-flag matches the named bits;
// flag names and numbers joined by '|' match the whole state exactly;
// VALUE/MASK in numbers matches the masked bits.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>

#include "flow_test_util.h"
#include "offlab/net/packet.h"
#include "offlab/ovs/flow.h"

namespace offlab {
namespace {

using testing::FlowRefusal;
using testing::ParseFlow;

// (value, mask) of the match.
std::pair<uint32_t, uint32_t> CtState(const std::string& v) {
  const Match m = ParseFlow("ct_state=" + v + ",actions=drop").match;
  return {m.ct_state_value, m.ct_state_mask};
}

bool MatchesState(const std::string& v, uint32_t state) {
  PacketMetadata md;
  md.ct_state = state;
  return ParseFlow("ct_state=" + v + ",actions=drop").match.Matches(FlowKey{}, md);
}

constexpr uint32_t kExact = UINT32_MAX;

TEST(FlowCtStateSyntax, SignedFlagsMatchTheNamedBits) {
  // "ct_state=-trk", "ct_state=+est-rpl+trk", "ct_state=+new+trk".
  EXPECT_EQ(CtState("-trk"), std::make_pair(0u, uint32_t{ct::kTracked}));
  EXPECT_EQ(CtState("+trk+est-rpl"),
            std::make_pair(uint32_t{ct::kTracked | ct::kEstablished},
                           uint32_t{ct::kTracked | ct::kEstablished | ct::kReplyDir}));
  EXPECT_EQ(CtState("+snat+dnat-inv-rel"),
            std::make_pair(uint32_t{ct::kSrcNat | ct::kDstNat},
                           uint32_t{ct::kSrcNat | ct::kDstNat | ct::kInvalid | ct::kRelated}));
  EXPECT_TRUE(MatchesState("+trk", ct::kTracked | ct::kNew));
  EXPECT_FALSE(MatchesState("+trk-new", ct::kTracked | ct::kNew));
}

TEST(FlowCtStateSyntax, UnsignedFlagsMatchTheWholeStateExactly) {
  // "ct_state=trk" prints as "ct_state=trk", "trk|est" and "0x22" as "est|trk".
  EXPECT_EQ(CtState("trk"), std::make_pair(uint32_t{ct::kTracked}, kExact));
  EXPECT_EQ(CtState("trk|est"), std::make_pair(uint32_t{ct::kTracked | ct::kEstablished}, kExact));
  EXPECT_EQ(CtState("new|trk"), std::make_pair(0x21u, kExact));
  EXPECT_EQ(CtState("0x21"), std::make_pair(0x21u, kExact));
  EXPECT_EQ(CtState("33"), std::make_pair(0x21u, kExact));
  EXPECT_EQ(CtState("041"), std::make_pair(0x21u, kExact));  // octal, as %i reads it
  EXPECT_EQ(CtState("0x20|est"), std::make_pair(0x22u, kExact));
  EXPECT_EQ(CtState("trk|trk"), std::make_pair(0x20u, kExact));
  EXPECT_EQ(CtState("trk|"), std::make_pair(0x20u, kExact));
  // A new tracked packet is not "trk" alone.
  EXPECT_TRUE(MatchesState("trk", ct::kTracked));
  EXPECT_FALSE(MatchesState("trk", ct::kTracked | ct::kNew));
  EXPECT_TRUE(MatchesState("new|trk", ct::kTracked | ct::kNew));
  EXPECT_FALSE(MatchesState("trk|est", ct::kTracked | ct::kEstablished | ct::kReplyDir));
}

TEST(FlowCtStateSyntax, NumbersWithAMaskMatchTheMaskedBits) {
  // "0x21/0x21" prints as "+new+trk", "0x21/0xff" as "new|trk".
  EXPECT_EQ(CtState("0x21/0x21"), std::make_pair(0x21u, 0x21u));
  EXPECT_EQ(CtState("0x21/0xff"), std::make_pair(0x21u, 0xffu));
  EXPECT_EQ(CtState("0x20/0x3f"), std::make_pair(0x20u, 0x3fu));
  EXPECT_TRUE(MatchesState("0x21/0x21", 0x23));
  EXPECT_FALSE(MatchesState("0x20/0x3f", 0x21));
}

TEST(FlowCtStateSyntax, WhatOvsOfctlRefuses) {
  const auto refused = [](const std::string& v, const std::string& why) {
    const std::string e = FlowRefusal("ct_state=" + v + ",actions=drop");
    EXPECT_NE(e.find(why), std::string::npos) << v << ": " << e;
    EXPECT_NE(e.find("ct_state"), std::string::npos) << v << ": " << e;
  };
  refused("+trk+trk", "Each ct_state flag can be specified only once");
  refused("+trk-trk", "Each ct_state flag can be specified only once");
  refused("+new+trk-new", "new: Each ct_state flag can be specified only once");
  for (const char* v : {"+tr", "+trk+", "trk+new", "+trk|new", "TRK", "|trk", "trk||est",
                        "trk/0x20", "0x100", "0x100/0x100", "0x20/0x100"}) {
    refused(v, "unknown ct_state flag(s)");
  }
}

TEST(FlowCtStateSyntax, AnEmptyValueIsNoMatch) {
  // "ct_state=" prints as no ct_state at all.
  EXPECT_EQ(CtState(""), std::make_pair(0u, 0u));
}

}  // namespace
}  // namespace offlab
