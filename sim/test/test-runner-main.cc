// SPDX-License-Identifier: Apache-2.0
// Runs the module's ns-3 TestSuites (Debian's libns3-dev ships no test-runner).
#include "ns3/test.h"

int main(int argc, char** argv) { return ns3::TestRunner::Run(argc, argv); }
