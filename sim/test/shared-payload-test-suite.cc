// SPDX-License-Identifier: Apache-2.0
// ns-3 TestSuite "offload-shared-payload": frames that share their TSO
// packet's payload (OvsSwitch::SharedPayloads, the default) against frames
// that each carry their own bytes, on the same traffic. Both NICs' pcaps must
// be the same file byte for byte, and the results (goodput, every counter,
// every core's work, drops) the same numbers: sharing is a representation,
// not a model change.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"
#include "scenario.h"

using namespace ns3;

namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A scratch directory removed on every way out of the test.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string name = (std::filesystem::temp_directory_path() / "offlab-shared-XXXXXX").string();
    path = mkdtemp(name.data()) ? name : "";
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

struct Outcome {
  std::string json;
  std::vector<std::string> pcaps;
};

Outcome Simulate(const std::string& yaml, bool shared, int trainMode, const std::string& dir) {
  offlab::sim::Scenario s = offlab::sim::ParseScenario(yaml, "test");
  s.topology.cost = offlab::sim::LoadCostModel(std::string(OFFLAB_SIM_DATA) + "/cost-model.yaml");
  // Defaults restored on every way out: other suites run in this process.
  struct Defaults {
    explicit Defaults(bool shared) {
      Config::SetDefault("ns3::OvsSwitch::SharedPayloads", BooleanValue(shared));
      // The first 20000 frames of each NIC, a few TSO packets' worth.
      Config::SetDefault("ns3::OffloadNetDevice::PcapMaxRecords", UintegerValue(20000));
    }
    ~Defaults() {
      Config::SetDefault("ns3::OvsSwitch::SharedPayloads", BooleanValue(true));
      Config::SetDefault("ns3::OffloadNetDevice::PcapMaxRecords", UintegerValue(50000));
    }
  } defaults(shared);
  offlab::sim::RunOptions o;
  o.trainMode = trainMode;
  o.pcapDir = dir;
  offlab::sim::Result r = offlab::sim::RunScenario(s, o);
  Outcome out;
  for (const std::string& p : r.pcaps) {
    out.pcaps.push_back(ReadFile(p));
  }
  r.wallSeconds = 0;  // the only thing allowed to differ
  r.pcaps.clear();    // their paths differ; their bytes are compared
  out.json = offlab::sim::ToJson(r, s);
  return out;
}

class SharedMatchesOwnBytes : public TestCase {
 public:
  SharedMatchesOwnBytes(std::string name, std::string yaml, int trainMode)
      : TestCase("shared payloads give the same pcaps and results: " + name),
        m_yaml(std::move(yaml)),
        m_trainMode(trainMode) {}

 private:
  void DoRun() override {
    TempDir a, b;
    NS_TEST_ASSERT_MSG_EQ((a.path.empty() || b.path.empty()), false, "scratch directories");
    const Outcome own = Simulate(m_yaml, false, m_trainMode, a.path.string());
    const Outcome shared = Simulate(m_yaml, true, m_trainMode, b.path.string());
    NS_TEST_ASSERT_MSG_EQ(own.pcaps.size(), 2u, "a pcap per NIC");
    NS_TEST_ASSERT_MSG_EQ(shared.pcaps.size(), own.pcaps.size(), "pcaps");
    for (std::size_t i = 0; i < own.pcaps.size(); i++) {
      // Thousands of frames in each, not an empty file compared with another.
      NS_TEST_ASSERT_MSG_GT(own.pcaps[i].size(), 100000u, "pcap " << i << " holds traffic");
      NS_TEST_ASSERT_MSG_EQ((shared.pcaps[i] == own.pcaps[i]), true, "pcap " << i << " bytes");
    }
    NS_TEST_ASSERT_MSG_EQ(shared.json, own.json, "results");
    NS_TEST_ASSERT_MSG_EQ((own.json.find("\"goodput_gbps\": 0,") == std::string::npos), true,
                          "the flow runs");
  }

  std::string m_yaml;
  int m_trainMode;
};

class SharedPayloadTestSuite : public TestSuite {
 public:
  SharedPayloadTestSuite() : TestSuite("offload-shared-payload", UNIT) {
    const std::string t = "duration_s: 0.08\nwarmup_s: 0.02\n";
    // The bench's scenario: hardware tunnel TSO, nothing checked in software.
    AddTestCase(
        new SharedMatchesOwnBytes("x710 VXLAN", "name: t\nnic: x710\ntunnel: vxlan\n" + t, 1),
        TestCase::QUICK);
    // Outer UDP checksum with software GSO (OVS before the payload-independent
    // checksum), NIC receive coalescing, one event per frame.
    AddTestCase(new SharedMatchesOwnBytes("cx6dx Geneve csum, software GSO, GRO, per frame",
                                          "name: t\nnic: connectx6dx\ntunnel: geneve\n"
                                          "outer_udp_csum: true\ngro: true\n"
                                          "ovs: {udp_tunnel_csum: false, partial_gso: false}\n" +
                                              t,
                                          0),
                TestCase::QUICK);
    // Guests that checksum in software, over an IPv6 underlay.
    AddTestCase(new SharedMatchesOwnBytes("e810 VXLAN IPv6, guest checksums",
                                          "name: t\nnic: e810\ntunnel: vxlan\nunderlay: ipv6\n"
                                          "outer_udp_csum: true\n"
                                          "guest: {csum_offload: false}\n" +
                                              t,
                                          1),
                TestCase::QUICK);
  }
};

SharedPayloadTestSuite g_sharedPayloadTestSuite;

}  // namespace
