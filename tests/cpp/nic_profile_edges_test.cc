// SPDX-License-Identifier: Apache-2.0
//
// NIC profile validation (models/src/nic/nic_profile.cc) at the top level,
// refusals the main profile tests do not make (ParseProfile, nic_profile.h:
// "throws offlab::Error("profile <name>: ...") naming the problem"): the name
// is [a-z0-9_]{1,64} (it becomes a file stem and a CLI word) and, when one is
// expected, the profile's own; description and driver are not empty; a note
// is not blank; a long scalar is shortened in the message; a profile parsed
// without an expected name takes its own for its messages. Each case differs
// from the real x710 profile in one place.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "offlab/net/error.h"
#include "offlab/nic/nic_profile.h"

namespace offlab {
const std::map<std::string, std::string>& BuiltinProfileTexts();

namespace {

const std::string& X710() { return BuiltinProfileTexts().at("x710"); }

std::string Replace(const std::string& from, const std::string& to) {
  std::string t = X710();
  const size_t at = t.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  EXPECT_EQ(t.find(from, at + 1), std::string::npos) << from;
  if (at != std::string::npos) t.replace(at, from.size(), to);
  return t;
}

std::string ParseError(const std::string& text, const std::string& name = "x710") {
  try {
    ParseProfile(text, name);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(NicProfileEdges, NameSyntax) {
  auto named = [](const std::string& n) {
    return ParseError(Replace("name: x710\n", "name: \"" + n + "\"\n"), "");
  };
  for (const char* bad : {"X710", "x-710", "x710 ", ""}) {
    const std::string msg = named(bad);
    EXPECT_NE(msg.find("must match [a-z0-9_]{1,64}"), std::string::npos) << bad << ": " << msg;
  }
  EXPECT_EQ(named("x_710_9"), "");
  EXPECT_EQ(named(std::string(64, 'a')), "");
  // 65 characters: refused, and quoted shortened to 37 and "...".
  const std::string msg = named(std::string(65, 'a'));
  EXPECT_NE(msg.find("'name' '" + std::string(37, 'a') + "...' must match"), std::string::npos)
      << msg;
}

TEST(NicProfileEdges, WithoutAnExpectedNameTheProfileNamesItself) {
  const NicProfile p = ParseProfile(X710(), "");
  EXPECT_EQ(p.name, "x710");
  // Its errors are labelled with that name.
  const std::string msg = ParseError(Replace("driver: net_i40e\n", "driver: \"\"\n"), "");
  EXPECT_EQ(msg.rfind("profile x710: 'driver' is empty", 0), 0u) << msg;
  // A name other than the expected one is refused.
  const std::string other = ParseError(X710(), "e810");
  EXPECT_NE(other.find("does not match the profile name 'e810'"), std::string::npos) << other;
}

TEST(NicProfileEdges, DescriptionAndNotesMustSaySomething) {
  const std::string desc = ParseError(Replace(
      "description: \"Intel Ethernet Controller X710 (DPDK i40e PMD)\"\n", "description: \"\"\n"));
  EXPECT_EQ(desc.rfind("profile x710: 'description' is empty", 0), 0u) << desc;
  const std::string note = ParseError(Replace("notes:\n", "notes:\n  - \" \\t \"\n"));
  EXPECT_EQ(note.rfind("profile x710: a note is empty", 0), 0u) << note;
}

}  // namespace
}  // namespace offlab
