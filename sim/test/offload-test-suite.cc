// SPDX-License-Identifier: Apache-2.0
// ns-3 TestSuite "offload": the simulator's behaviour, each expectation from
// outside the code under test (line-rate arithmetic, the direction a
// scenario must move in, segment train vs per-frame modelling).
#include <cmath>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "ns3/packet-runs.h"
#include "ns3/test.h"
#include "scenario-test-util.h"
#include "scenario.h"

using namespace ns3;

namespace {

using offlab::sim::test::Make;
using offlab::sim::test::Simulate;

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

class FlowOffloadIdlesThePmd : public TestCase {
 public:
  FlowOffloadIdlesThePmd()
      : TestCase("flow offload: same goodput as the software datapath, idle PMD threads") {}

 private:
  void DoRun() override {
    const std::string base =
        "name: t\nnic: connectx6dx\ntunnel: geneve\nduration_s: 0.15\nwarmup_s: 0.05\n";
    const auto sw = Simulate(Make(base));
    const auto hw = Simulate(Make(base + "ovs: {hw_offload: true}\n"));
    // The guests are the limit either way at 64 KB TSO packets; the NIC runs
    // the same actions on the same bytes.
    NS_TEST_ASSERT_MSG_GT(sw.goodputGbps, 1.0, "the flow must run");
    NS_TEST_ASSERT_MSG_LT(std::abs(hw.goodputGbps - sw.goodputGbps) / sw.goodputGbps, 0.02,
                          "offloaded vs software goodput");
    for (const auto& h : hw.hosts) {
      NS_TEST_ASSERT_MSG_LT(h.pmdUtilisation.at(0), 0.01, "an offloaded flow costs no PMD");
    }
    NS_TEST_ASSERT_MSG_GT(sw.hosts.at(0).pmdUtilisation.at(0), 0.05, "software costs the PMD");
  }
};

class FlowOffloadNeedsAnESwitch : public TestCase {
 public:
  FlowOffloadNeedsAnESwitch() : TestCase("ovs.hw_offload on a NIC without an eSwitch is refused") {}

 private:
  void DoRun() override {
    bool refused = false;
    try {
      Make("name: t\nnic: x710\novs: {hw_offload: true}\n");
    } catch (const std::exception& e) {
      refused = std::string(e.what()).find("eSwitch") != std::string::npos;
    }
    NS_TEST_ASSERT_MSG_EQ(refused, true, "x710 has no flow offload model");
  }
};

class PacketRunsKeepPacketsWhole : public TestCase {
 public:
  PacketRunsKeepPacketsWhole()
      : TestCase("a datapath run's frames go to their NIC a whole packet at a time") {}

 private:
  void DoRun() override {
    // Two TSO packets of 3 and 2 frames to eth0, one frame to a guest, then
    // a third packet to eth0: 4 packets.
    std::vector<offlab::Sent> sent;
    auto add = [&](const char* port, uint32_t packet) {
      offlab::Sent s;
      s.port = port;
      s.nic_packet = packet;
      sent.push_back(s);
    };
    add("eth0", 0), add("eth0", 0), add("eth0", 0), add("eth0", 1), add("eth0", 1);
    add("vm0", 2), add("eth0", 3);
    const auto runs = PacketRuns(sent);
    const std::vector<std::pair<std::size_t, std::size_t>> expected{{0, 3}, {3, 5}, {5, 6}, {6, 7}};
    NS_TEST_ASSERT_MSG_EQ(runs.size(), expected.size(), "packets");
    for (std::size_t i = 0; i < runs.size(); i++) {
      NS_TEST_ASSERT_MSG_EQ(runs[i].first, expected[i].first, "run " << i << " start");
      NS_TEST_ASSERT_MSG_EQ(runs[i].second, expected[i].second, "run " << i << " end");
    }
    NS_TEST_ASSERT_MSG_EQ(PacketRuns({}).size(), 0u, "no frames, no packets");
  }
};

class OffloadTestSuite : public TestSuite {
 public:
  OffloadTestSuite() : TestSuite("offload", UNIT) {
    AddTestCase(new TrainMatchesPerFrame, TestCase::QUICK);
    AddTestCase(new FlowOffloadIdlesThePmd, TestCase::QUICK);
    AddTestCase(new FlowOffloadNeedsAnESwitch, TestCase::QUICK);
    AddTestCase(new PacketRunsKeepPacketsWhole, TestCase::QUICK);
  }
};

OffloadTestSuite g_offloadTestSuite;

}  // namespace
