// SPDX-License-Identifier: Apache-2.0
//
// Seeded faults are chosen by name (`offlab verify --fault NAME`): every
// name maps back to its fault, and a name that is none of them is refused
// with the list of the known ones, so a typo does not run the fixed model
// silently.
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/error.h"
#include "offlab/ovs/faults.h"

namespace offlab {
namespace {

TEST(FaultNames, EveryNameRoundTrips) {
  const std::vector<Fault> all = AllFaults();
  ASSERT_FALSE(all.empty());
  for (Fault f : all) EXPECT_EQ(FaultFromName(FaultName(f)), f) << FaultName(f);
}

TEST(FaultNames, UnknownNameListsTheKnownOnes) {
  std::string known;
  for (Fault f : AllFaults()) known += (known.empty() ? "" : ", ") + std::string(FaultName(f));
  try {
    FaultFromName("no-such-fault");
    ADD_FAILURE() << "an unknown fault name was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "unknown fault 'no-such-fault' (known: " + known + ")");
  }
}

TEST(FaultNames, TheSeededFaultsAreChosenByTheNamesTheDocsGive) {
  // docs/verification.md: `offlab verify --inject tcp-zero-csum-taken-as-absent`, and
  // "`udp-update-zero-keeps-stale-csum` (project \"seeded\", no fixing commit)".
  struct Case {
    const char* name;
    Fault fault;
  };
  for (const Case& c :
       {Case{"udp-update-zero-keeps-stale-csum", Fault::kUdpUpdateZeroKeepsStaleCsum},
        Case{"tcp-zero-csum-taken-as-absent", Fault::kTcpZeroCsumTakenAsAbsent}}) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(FaultFromName(c.name), c.fault);
    EXPECT_EQ(std::string(FaultName(c.fault)), c.name);
    EXPECT_EQ(std::string(FaultCommit(c.fault)), "-");
    EXPECT_EQ(std::string(FaultProject(c.fault)), "seeded");
  }
}

}  // namespace
}  // namespace offlab
