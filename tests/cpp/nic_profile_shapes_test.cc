// SPDX-License-Identifier: Apache-2.0
//
// A NIC profile's errors name the YAML shape they found where a string
// belongs (YAML 1.2 section 3.2.1: a node is a scalar, a sequence or a
// mapping; an empty value is null), and a quirk that only makes sense with a
// capability is refused without it: the E810's pseudo-header seed for the
// outer UDP checksum (DPDK Bugzilla 1406) is about outer_udp_cksum offload,
// which a NIC without that capability never performs.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "offlab/net/error.h"
#include "offlab/nic/nic_profile.h"

namespace offlab {
// Generated from models/profiles/*.yaml (models/embed_profiles.cmake).
const std::map<std::string, std::string>& BuiltinProfileTexts();

namespace {

// The builtin profile `name` with the one occurrence of `from` replaced.
std::string Edited(const std::string& name, const std::string& from, const std::string& to) {
  std::string t = BuiltinProfileTexts().at(name);
  const size_t at = t.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  EXPECT_EQ(t.find(from, at + 1), std::string::npos) << from;
  if (at != std::string::npos) t.replace(at, from.size(), to);
  return t;
}

std::string ErrorOf(const std::string& text) {
  try {
    ParseProfile(text, "dummy");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(NicProfileShapes, NullWhereAStringBelongs) {
  const std::string e = ErrorOf(Edited("dummy", "name: dummy\n", "name: ~\n"));
  EXPECT_NE(e.find("'name' must be a string, got null"), std::string::npos) << e;
}

TEST(NicProfileShapes, MappingWhereAStringBelongs) {
  const std::string e = ErrorOf(Edited("dummy", "name: dummy\n", "name: {first: dummy}\n"));
  EXPECT_NE(e.find("'name' must be a string, got a mapping"), std::string::npos) << e;
}

TEST(NicProfileShapes, PseudoSeedQuirkNeedsOuterUdpOffload) {
  const std::string e =
      ErrorOf(Edited("dummy", "  outer_udp_needs_pseudo_seed:\n    value: false\n",
                     "  outer_udp_needs_pseudo_seed:\n    value: true\n"));
  EXPECT_NE(e.find("quirk 'outer_udp_needs_pseudo_seed' requires tx capability 'outer_udp_cksum'"),
            std::string::npos)
      << e;
}

TEST(NicProfileShapes, AnAliasStandsForItsAnchor) {
  // YAML 1.2 section 3.2.2.2: *a is the node &a names. One citation shared
  // by two capabilities.
  std::string t = Edited("dummy", "  udp_cksum:\n    value: false\n    source: \"",
                         "  udp_cksum:\n    value: false\n    source: &cited \"");
  const std::string sctp = "  sctp_cksum:\n    value: false\n    source: ";
  const size_t at = t.find(sctp);
  ASSERT_NE(at, std::string::npos);
  t.replace(at + sctp.size(), t.find('\n', at + sctp.size()) - (at + sctp.size()), "*cited");
  const NicProfile p = ParseProfile(t, "dummy");
  EXPECT_EQ(p.sources.at("sctp_cksum"), p.sources.at("udp_cksum"));
  EXPECT_NE(p.sources.at("udp_cksum").find("ol_l4_tx_csum"), std::string::npos);
}

}  // namespace
}  // namespace offlab
