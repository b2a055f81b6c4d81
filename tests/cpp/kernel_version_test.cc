// The kernel versions a host may name: 3.10 (RHEL 7's base, the oldest seed
// setup) through 6.18 (this lab's kernel), as version.h documents them.
#include <gtest/gtest.h>

#include <string>

#include "offlab/linux/version.h"
#include "offlab/net/error.h"

namespace offlab::kernel {
namespace {

void ExpectRefused(const std::string& text, const std::string& why) {
  try {
    ParseKernelVersion(text);
    ADD_FAILURE() << text << " was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
  }
}

TEST(KernelVersion, BothEndsOfTheModelledRangeAreAccepted) {
  EXPECT_EQ(ParseKernelVersion("3.10"), (KernelVersion{3, 10, false}));
  EXPECT_EQ(ParseKernelVersion("6.18"), (KernelVersion{6, 18, false}));
  EXPECT_EQ(ParseKernelVersion("4.11"), (KernelVersion{4, 11, false}));
  EXPECT_EQ(ParseKernelVersion(""), kLabKernel);
  EXPECT_EQ(ParseKernelVersion("rhel7"), (KernelVersion{3, 10, true}));
  EXPECT_EQ(ParseKernelVersion("rhel7.9"), (KernelVersion{3, 10, true}));
}

TEST(KernelVersion, OutsideTheRangeOrMalformedIsRefusedByName) {
  ExpectRefused("3.9", "kernel version '3.9': modelled kernels are 3.10 to 6.18");
  ExpectRefused("2.6", "modelled kernels are 3.10 to 6.18");
  ExpectRefused("6.19", "kernel version '6.19': modelled kernels are 3.10 to 6.18");
  ExpectRefused("7.0", "modelled kernels are 3.10 to 6.18");
  ExpectRefused("6.18.5", "kernel version '6.18.5': expected MAJOR.MINOR");
  ExpectRefused("six", "expected MAJOR.MINOR");
}

}  // namespace
}  // namespace offlab::kernel
