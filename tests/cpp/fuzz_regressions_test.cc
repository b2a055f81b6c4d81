// Inputs the fuzz targets must survive, mishandled before (docs/robustness.md),
// beside their corpus entries in fuzz/corpus/<target>/crash-*: each must be
// refused with offlab::Error naming the problem, or handled as documented.
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/error.h"
#include "offlab/ovs/pipeline.h"

namespace offlab {
namespace {

std::string AddFlowError(Pipeline& br, const std::string& flow) {
  try {
    br.AddFlow(flow);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(FuzzRegressions, PortNumbersWiderThanAnOfportAreUnknownPorts) {
  // An ofport is 32 bits: 2^32 + 1 is not port 1, and a number past 2^64
  // is an unknown port rather than a std::out_of_range escaping AddFlow.
  Pipeline br;
  br.AddPort({.name = "p1"});
  EXPECT_EQ(br.PortNumber("1"), 1u);
  EXPECT_EQ(AddFlowError(br, "in_port=4294967297,actions=drop"), "unknown port '4294967297'");
  EXPECT_EQ(AddFlowError(br, "in_port=99999999999999999999999,actions=drop"),
            "unknown port '99999999999999999999999'");
  EXPECT_EQ(AddFlowError(br, "in_port=p1,actions=output:18446744073709551617"),
            "unknown port '18446744073709551617'");
}

}  // namespace
}  // namespace offlab
