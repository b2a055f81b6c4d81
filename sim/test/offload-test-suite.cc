// SPDX-License-Identifier: Apache-2.0
// ns-3 TestSuite "offload": the simulator's behaviour, each expectation from
// outside the code under test (line-rate arithmetic, the direction a
// scenario must move in, segment train vs per-frame modelling).
#include <cmath>

#include "ns3/test.h"
#include "scenario.h"

using namespace ns3;

namespace {

offlab::sim::Scenario Make(const std::string& yaml) {
  offlab::sim::Scenario s = offlab::sim::ParseScenario(yaml, "test");
  s.topology.cost = offlab::sim::LoadCostModel(std::string(OFFLAB_SIM_DATA) + "/cost-model.yaml");
  return s;
}

offlab::sim::Result Simulate(const offlab::sim::Scenario& s, int trainMode = -1) {
  offlab::sim::RunOptions o;
  o.trainMode = trainMode;
  return offlab::sim::RunScenario(s, o);
}

class TrainMatchesPerFrame : public TestCase {
 public:
  TrainMatchesPerFrame()
      : TestCase("segment trains and per-frame modelling agree on goodput within 2%") {}

 private:
  void DoRun() override {
    const auto s = Make("name: t\nnic: x710\ntunnel: vxlan\nduration_s: 0.4\nwarmup_s: 0.1\n");
    const double train = Simulate(s, 1).goodputGbps;
    const double frame = Simulate(s, 0).goodputGbps;
    NS_TEST_ASSERT_MSG_GT(train, 1.0, "the flow must run");
    NS_TEST_ASSERT_MSG_LT(std::abs(train - frame) / frame, 0.02, "train vs per-frame");
  }
};

class OffloadTestSuite : public TestSuite {
 public:
  OffloadTestSuite() : TestSuite("offload", UNIT) {
    AddTestCase(new TrainMatchesPerFrame, TestCase::QUICK);
  }
};

OffloadTestSuite g_offloadTestSuite;

}  // namespace
