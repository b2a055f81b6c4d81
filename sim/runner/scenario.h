// SPDX-License-Identifier: Apache-2.0
// Scenario files (YAML) for the offload module: parsing with strict
// validation, running one scenario, and its results as JSON.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ns3/topology.h"

namespace offlab::sim {

struct Scenario {
  std::string name;
  std::string description;
  ns3::TunnelScenario topology;
  double durationS = 1.0;
  double warmupS = 0.3;
};

struct RunOptions {
  std::string pcapDir;                   //!< empty: no pcaps
  double durationS = 0;                  //!< overrides the scenario's when > 0
  int trainMode = -1;                    //!< -1: as the scenario says; 0 per-frame; 1 trains
  std::function<void(double)> progress;  //!< fraction of simulated time done
};

struct Result {
  std::string name;
  double goodputGbps = 0;
  double simSeconds = 0;
  double wallSeconds = 0;
  std::vector<ns3::HostStats> hosts;
  std::vector<std::string> events;
  std::vector<std::string> pcaps;
};

/** Throws offlab::Error "<where>: <problem>" for anything wrong in the file. */
Scenario LoadScenario(const std::string& path);
Scenario ParseScenario(const std::string& yaml, const std::string& where);
ns3::CostModel LoadCostModel(const std::string& path);

Result RunScenario(const Scenario& s, const RunOptions& options);
std::string ToJson(const Result& r, const Scenario& s);
/** `s` as a JSON string literal. */
std::string JsonString(const std::string& s);

}  // namespace offlab::sim
