// SPDX-License-Identifier: Apache-2.0
// Runs the module's ns-3 TestSuites (Debian's libns3-dev ships no test-runner).
#include "ns3/nstime.h"
#include "ns3/test.h"

int main(int argc, char** argv) {
  // As offlab-sim: picosecond times (a 64-byte frame at 100 Gbit/s is 6.72 ns).
  ns3::Time::SetResolution(ns3::Time::PS);
  return ns3::TestRunner::Run(argc, argv);
}
