// SPDX-License-Identifier: Apache-2.0
// ns-3 TestSuite "offload-kernel": the kernel host kind. Each expectation
// comes from outside the code under test: a kernel rule (cited where the core
// implements it), line-rate arithmetic, or the agreement of two event
// granularities on the same traffic.
#include <cmath>
#include <exception>
#include <string>

#include "ns3/test.h"
#include "scenario-test-util.h"
#include "scenario.h"

using namespace ns3;

namespace {

using offlab::sim::test::Make;
using offlab::sim::test::Simulate;

double K(const offlab::sim::Result& r, int host, const std::string& key) {
  const auto& k = r.hosts.at(host).kernel;
  const auto it = k.find(key);
  return it == k.end() ? 0 : it->second;
}

const std::string kVxlan =
    "name: t\nnic: ixgbe_82599\ntunnel: vxlan\nduration_s: 0.25\nwarmup_s: 0.08\n";
const std::string kOvsVxlan =
    kVxlan + "host: {kind: kernel, datapath: ovs, attach: tap, rx_queues: 2}\n";

class KernelTrainMatchesPerFrame : public TestCase {
 public:
  KernelTrainMatchesPerFrame()
      : TestCase(
            "kernel host: trains and per-frame events agree on goodput within 2%, GRO within 5%") {}

 private:
  void DoRun() override {
    for (const char* csum : {"true", "false"}) {
      const auto s = Make(kOvsVxlan + "outer_udp_csum: " + csum + "\n");
      const auto train = Simulate(s, 1);
      const auto frame = Simulate(s, 0);
      NS_TEST_ASSERT_MSG_GT(train.goodputGbps, 1.0, "the flow must run");
      NS_TEST_ASSERT_MSG_LT(std::abs(train.goodputGbps - frame.goodputGbps) / frame.goodputGbps,
                            0.02, "goodput, outer csum " << csum);
      // The NAPI polls see the frames at the same times either way, so GRO
      // batches agree too (within 5 %: the two runs' TCP dynamics differ by
      // the order of simultaneous events).
      const double a = K(train, 1, "frames_per_skb"), b = K(frame, 1, "frames_per_skb");
      NS_TEST_ASSERT_MSG_LT(std::abs(a - b) / b, 0.05, "frames per skb, outer csum " << csum);
    }
  }
};

class Rhel7GroNeedsTheOuterChecksum : public TestCase {
 public:
  Rhel7GroNeedsTheOuterChecksum()
      : TestCase(
            "82599 + VXLAN: RHEL 7 GRO merges only with the outer UDP checksum; 6.18 "
            "merges without it by summing in software") {}

 private:
  void DoRun() override {
    auto run = [](const char* kernel, const char* csum) {
      return Simulate(Make(kVxlan + "outer_udp_csum: " + csum + "\nhost: {kind: kernel, " +
                           "kernel: " + kernel + ", datapath: ovs, attach: tap}\n"));
    };
    // Before 4.8 no tunnel GRO pass; on RHEL 7 udp_gro_receive refuses a
    // tunnel whose inner checksum nobody validated (the 82599 cannot), so
    // every frame goes up alone (gro_udp_tunnel rule in models/src/linux).
    const auto rhelOff = run("rhel7", "false");
    NS_TEST_ASSERT_MSG_EQ(K(rhelOff, 1, "frames_per_skb"), 1.0, "rhel7 without csum");
    NS_TEST_ASSERT_MSG_GT(K(rhelOff, 1, "not_validated_per_s"), 1e4, "frames GRO refused");
    const auto rhelOn = run("rhel7", "true");
    NS_TEST_ASSERT_MSG_GT(K(rhelOn, 1, "frames_per_skb"), 2.0, "rhel7 with csum merges");
    NS_TEST_ASSERT_MSG_EQ(K(rhelOn, 1, "not_validated_per_s"), 0.0, "all validated");
    // Fewer skbs for the same bytes: less softirq work per bit.
    const double perBitOff = K(rhelOff, 1, "softirq_busy_pct") / rhelOff.goodputGbps;
    const double perBitOn = K(rhelOn, 1, "softirq_busy_pct") / rhelOn.goodputGbps;
    NS_TEST_ASSERT_MSG_GT(perBitOff, 1.5 * perBitOn, "softirq cost per bit");
    // 6.18 admits a zero outer checksum and validates the inner one in
    // software (__skb_gro_checksum_complete): merged, with checksum bytes.
    const auto newOff = run("6.18", "false");
    NS_TEST_ASSERT_MSG_GT(K(newOff, 1, "frames_per_skb"), 2.0, "6.18 without csum merges");
    NS_TEST_ASSERT_MSG_GT(K(newOff, 1, "sw_csum_bytes_per_s"), 1e8, "by summing the payload");
  }
};

class IbmvethFragListByKernel : public TestCase {
 public:
  IbmvethFragListByKernel()
      : TestCase(
            "ibmveth trunk: GRO'd frag_list skbs linearized into largesend (4.19) or "
            "segmented in software (4.11)") {}

 private:
  void DoRun() override {
    auto run = [](const char* kernel) {
      return Simulate(Make(
          std::string("name: t\nnic: ibmveth_trunk\ntopology: loopback\ntunnel: none\n") +
          "link_gbps: 10\nduration_s: 0.15\nwarmup_s: 0.05\ntester: {ethtool_off: [tso]}\n" +
          "guest: {vms: 2}\nhost: {kind: kernel, datapath: ovs, kernel: \"" + kernel + "\"}\n"));
    };
    const auto v419 = run("4.19");
    const auto v411 = run("4.11");
    NS_TEST_ASSERT_MSG_GT(v419.goodputGbps, 0.5, "4.19 forwards");
    NS_TEST_ASSERT_MSG_GT(v411.goodputGbps, 0.5, "4.11 forwards");
    const auto& c419 = v419.hosts.at(1).counters;
    NS_TEST_ASSERT_MSG_GT(c419.count("ibmveth_tx_linearize") ? c419.at("ibmveth_tx_linearize") : 0,
                          0u, "4.19 linearizes in the driver");
    NS_TEST_ASSERT_MSG_EQ(K(v419, 1, "sw_segments_per_s"), 0.0, "4.19 segments nothing");
    NS_TEST_ASSERT_MSG_GT(K(v411, 1, "sw_segments_per_s"), 1e4, "4.11 segments in software");
    NS_TEST_ASSERT_MSG_GT(K(v411, 1, "frames_per_skb"), 1.5, "GRO merged first");
  }
};

class ManyVmsAndStreams : public TestCase {
 public:
  ManyVmsAndStreams()
      : TestCase("40 VM pairs with 5 streams each fill the wire over every RX queue") {}

 private:
  void DoRun() override {
    const auto r =
        Simulate(Make("name: t\nnic: connectx6dx\ntunnel: vxlan\nduration_s: 0.1\nwarmup_s: 0.04\n"
                      "guest: {vms: 40, streams: 5}\n"
                      "host: {kind: kernel, datapath: ovs, attach: tap, rx_queues: 8}\n"));
    NS_TEST_ASSERT_MSG_EQ(r.hosts.at(1).guests.size(), 40u, "40 receiving VMs");
    // 200 flows overrun a 100 Gbit/s wire: the NIC's queue drops and some
    // flows sit in loss recovery at any moment, but the wire stays busy and
    // most VMs receive in any 60 ms.
    NS_TEST_ASSERT_MSG_GT(r.goodputGbps, 50.0, "the wire is busy");
    std::size_t receiving = 0;
    for (const auto& g : r.hosts.at(1).guests) {
      receiving += g.workPerS.packets > 0;
    }
    NS_TEST_ASSERT_MSG_GT(receiving, 30u, "most VMs receive");
    // RSS spreads the tunnelled flows: the VXLAN source port carries the
    // inner flow's hash (udp_flow_src_port), so no queue is left idle.
    for (const auto& q : r.hosts.at(1).softirqs) {
      NS_TEST_ASSERT_MSG_GT(q.utilisation, 0.0, "every RX queue works");
    }
  }
};

class BadKernelScenarios : public TestCase {
 public:
  BadKernelScenarios() : TestCase("bad kernel-host fields are refused with the field's name") {}

 private:
  void DoRun() override {
    auto error = [](const std::string& yaml) -> std::string {
      try {
        Make("name: t\nnic: ixgbe_82599\n" + yaml);
      } catch (const std::exception& e) {
        return e.what();
      }
      return "";
    };
    auto has = [](const std::string& what, const std::string& needle) {
      return what.find(needle) != std::string::npos;
    };
    NS_TEST_ASSERT_MSG_EQ(has(error("host: {kind: vpp}\n"), "host kind"), true, "kind");
    NS_TEST_ASSERT_MSG_EQ(has(error("host: {kind: kernel, kernel: 9x}\n"), "9x"), true, "kv");
    NS_TEST_ASSERT_MSG_EQ(has(error("host: {kind: kernel, datapath: vpp}\n"), "datapath"), true,
                          "datapath");
    NS_TEST_ASSERT_MSG_EQ(has(error("host: {kind: kernel, rx_queues: 0}\n"), "rx_queues"), true,
                          "queues");
    NS_TEST_ASSERT_MSG_EQ(has(error("host: {kind: kernel, ethtool_off: [warp]}\n"), "warp"), true,
                          "feature name");
    NS_TEST_ASSERT_MSG_EQ(has(error("host: {kind: kernel}\novs: {pmd_threads: 2}\n"), "ovs"), true,
                          "ovs block on a kernel host");
    NS_TEST_ASSERT_MSG_EQ(has(error("host: {kind: kernel}\ntunnel: gre\n"), "gre"), true, "tunnel");
  }
};

class KernelHostTestSuite : public TestSuite {
 public:
  KernelHostTestSuite() : TestSuite("offload-kernel", UNIT) {
    AddTestCase(new KernelTrainMatchesPerFrame, TestCase::QUICK);
    AddTestCase(new Rhel7GroNeedsTheOuterChecksum, TestCase::QUICK);
    AddTestCase(new IbmvethFragListByKernel, TestCase::QUICK);
    AddTestCase(new ManyVmsAndStreams, TestCase::QUICK);
    AddTestCase(new BadKernelScenarios, TestCase::QUICK);
  }
};

KernelHostTestSuite g_kernelHostTestSuite;

}  // namespace
