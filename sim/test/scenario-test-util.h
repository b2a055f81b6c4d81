// SPDX-License-Identifier: Apache-2.0
// What the module's test suites share: a scenario from YAML text with the
// committed cost model, and one run of it.
#pragma once

#include <string>

#include "scenario.h"

namespace offlab::sim::test {

inline Scenario Make(const std::string& yaml) {
  Scenario s = ParseScenario(yaml, "test");
  s.topology.cost = LoadCostModel(std::string(OFFLAB_SIM_DATA) + "/cost-model.yaml");
  return s;
}

/** trainMode -1: as the scenario says; 0 per-frame; 1 trains. */
inline Result Simulate(const Scenario& s, int trainMode = -1) {
  RunOptions o;
  o.trainMode = trainMode;
  return RunScenario(s, o);
}

}  // namespace offlab::sim::test
