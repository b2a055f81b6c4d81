// SPDX-License-Identifier: Apache-2.0
//
// The offloads word as the CLI, the verifier's counterexamples and `offlab
// dissect` print it: every status, L4 protocol and tunnel type by its own
// name, the inner level only when there is one. Expected text by hand.
#include <gtest/gtest.h>

#include <string>

#include "offlab/ovs/offloads.h"

namespace offlab {
namespace {

TEST(OffloadsDescribe, EveryNameOfEveryField) {
  EXPECT_STREQ(ToString(CsumStatus::kUnknown), "unknown");
  EXPECT_STREQ(ToString(CsumStatus::kBad), "bad");
  EXPECT_STREQ(ToString(CsumStatus::kGood), "good");
  EXPECT_STREQ(ToString(CsumStatus::kPartial), "partial");
  EXPECT_STREQ(ToString(L4Proto::kNone), "none");
  EXPECT_STREQ(ToString(L4Proto::kTcp), "tcp");
  EXPECT_STREQ(ToString(L4Proto::kUdp), "udp");
  EXPECT_STREQ(ToString(L4Proto::kSctp), "sctp");
  EXPECT_STREQ(ToString(TunnelType::kNone), "none");
  EXPECT_STREQ(ToString(TunnelType::kGeneve), "geneve");
  EXPECT_STREQ(ToString(TunnelType::kVxlan), "vxlan");
  EXPECT_STREQ(ToString(TunnelType::kGre), "gre");
}

TEST(OffloadsDescribe, InnerLevelOnlyForATunnelOrInnerBits) {
  Offloads plain;
  plain.set_ip(CsumStatus::kGood);
  plain.set_l4(CsumStatus::kPartial);
  plain.set_l4_proto(L4Proto::kTcp);
  EXPECT_EQ(plain.Describe(), "ip=good l4=partial proto=tcp");

  for (const auto& [t, name] : {std::pair{TunnelType::kGeneve, "geneve"},
                                {TunnelType::kVxlan, "vxlan"},
                                {TunnelType::kGre, "gre"}}) {
    Offloads o;
    o.set_tunnel(t);
    o.set_ip(CsumStatus::kBad);
    o.set_l4_proto(L4Proto::kUdp);
    o.set_l4(CsumStatus::kGood, Level::kInner);
    o.set_l4_proto(L4Proto::kSctp, Level::kInner);
    EXPECT_EQ(o.Describe(), std::string("ip=bad l4=unknown proto=udp | inner ip=unknown "
                                        "l4=good proto=sctp tunnel=") +
                                name);
  }
}

}  // namespace
}  // namespace offlab
