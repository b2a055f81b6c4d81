// SPDX-License-Identifier: Apache-2.0
#include "scenario.h"

#include <yaml-cpp/yaml.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

#include "ns3/simulator.h"
#include "offlab/net/error.h"
#include "offlab/net/input_file.h"

namespace offlab::sim {

namespace {

class Reader {
 public:
  Reader(YAML::Node node, std::string where) : m_node(std::move(node)), m_where(std::move(where)) {
    if (!m_node.IsMap()) {
      Fail("expected a mapping");
    }
  }

  [[noreturn]] void Fail(const std::string& what) const {
    throw offlab::Error(m_where + ": " + what);
  }

  template <typename T>
  T Get(const std::string& key, T fallback, bool required = false) {
    m_seen.insert(key);
    YAML::Node v = m_node[key];
    if (!v) {
      if (required) {
        Fail("missing field '" + key + "'");
      }
      return fallback;
    }
    try {
      return v.as<T>();
    } catch (const YAML::Exception&) {
      Fail("field '" + key + "' has the wrong type");
    }
  }

  double Number(const std::string& key, double fallback, double lo, double hi,
                bool required = false) {
    const double v = Get<double>(key, fallback, required);
    if (!std::isfinite(v) || v < lo || v > hi) {
      std::ostringstream os;
      os << "field '" << key << "' = " << v << " is outside [" << lo << ", " << hi << "]";
      Fail(os.str());
    }
    return v;
  }

  bool Has(const std::string& key) const { return static_cast<bool>(m_node[key]); }
  YAML::Node Raw(const std::string& key) const { return m_node[key]; }
  void Mark(const std::string& key) { m_seen.insert(key); }

  Reader Child(const std::string& key) {
    m_seen.insert(key);
    YAML::Node v = m_node[key];
    return Reader(v ? v : YAML::Node(YAML::NodeType::Map), m_where + ": " + key);
  }

  // yaml-cpp keeps the first of two equal keys; a repeated field is a
  // mistake to report, not a value to pick.
  void RejectUnknown() const {
    std::set<std::string> keys;
    for (const auto& kv : m_node) {
      const std::string k = kv.first.as<std::string>();
      if (!m_seen.count(k)) {
        Fail("unknown field '" + k + "'");
      }
      if (!keys.insert(k).second) {
        Fail("field '" + k + "' appears twice");
      }
    }
  }

 private:
  YAML::Node m_node;
  std::string m_where;
  std::set<std::string> m_seen;
};

ns3::CoreCosts ReadCore(Reader r) {
  ns3::CoreCosts c;
  c.clockHz = r.Number("clock_hz", 0, 1e8, 1e10, true);
  c.perPacket = r.Number("cycles_per_packet", 0, 0, 1e7, true);
  c.perRxFrame = r.Number("cycles_per_rx_frame", 0, 0, 1e7, true);
  c.perTxFrame = r.Number("cycles_per_tx_frame", 0, 0, 1e7, true);
  c.perSegment = r.Number("cycles_per_segment", 0, 0, 1e7, true);
  c.perCsumByte = r.Number("cycles_per_csum_byte", 0, 0, 1e3, true);
  c.perCopyByte = r.Number("cycles_per_copy_byte", 0, 0, 1e3, true);
  c.perPoll = r.Number("cycles_per_poll", 0, 0, 1e7);
  c.perGroMerge = r.Number("cycles_per_gro_merge", 0, 0, 1e7);
  r.Get<std::string>("source", "");
  r.RejectUnknown();
  return c;
}

YAML::Node LoadYaml(const std::string& text, const std::string& where) {
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw offlab::Error(where + ": not valid YAML (" + e.msg + ")");
  }
}

std::string ReadFile(const std::string& path) {
  return offlab::ReadInputFile(path, path + ": cannot read the file: ", offlab::InputKind::kYaml);
}

}  // namespace

Scenario ParseScenario(const std::string& yaml, const std::string& where) {
  Reader r(LoadYaml(yaml, where), where);
  Scenario s;
  ns3::TunnelScenario& t = s.topology;
  s.name = r.Get<std::string>("name", "", true);
  s.description = r.Get<std::string>("description", "");
  t.nic = r.Get<std::string>("nic", "", true);
  t.tunnel = r.Get<std::string>("tunnel", "vxlan");
  const std::string underlay = r.Get<std::string>("underlay", "ipv4");
  if (underlay != "ipv4" && underlay != "ipv6") {
    r.Fail("underlay must be ipv4 or ipv6, not '" + underlay + "'");
  }
  t.ipv6Underlay = underlay == "ipv6";
  t.outerCsum = r.Get<bool>("outer_udp_csum", false);
  Reader host = r.Child("host");
  t.hostKind = host.Get<std::string>("kind", "ovs-dpdk");
  if (t.hostKind != "ovs-dpdk" && t.hostKind != "kernel") {
    host.Fail("unknown host kind '" + t.hostKind + "' (known: ovs-dpdk, kernel)");
  }
  const bool kernel = t.hostKind == "kernel";
  if (kernel) {
    ns3::KernelHostOptions& k = t.kernel;
    k.version = host.Get<std::string>("kernel", "6.18");
    k.datapath = host.Get<std::string>("datapath", "ovs");
    k.attach = host.Get<std::string>("attach", "tap");
    k.rxQueues = static_cast<uint32_t>(host.Number("rx_queues", 1, 1, 64));
    k.rssUdpPorts = host.Get<bool>("rss_udp_ports", true);
    k.ringSize = static_cast<uint32_t>(host.Number("rx_ring", 0, 0, 16384));
    k.irqDelayUs = host.Number("irq_delay_us", -1, -1, 10000);
    k.remcsumTx = host.Get<bool>("vxlan_remcsum_tx", false);
    k.remcsumRx = host.Get<bool>("vxlan_remcsum_rx", false);
    k.ethtoolOff = host.Get<std::vector<std::string>>("ethtool_off", {});
    k.eswitchOffload = host.Get<bool>("eswitch_offload", false);
  }
  host.RejectUnknown();
  t.topology = r.Get<std::string>("topology", "vm-pairs");
  if (t.topology != "vm-pairs" && t.topology != "loopback") {
    r.Fail("topology must be vm-pairs or loopback, not '" + t.topology + "'");
  }
  Reader tester = r.Child("tester");
  t.testerEthtoolOff = tester.Get<std::vector<std::string>>("ethtool_off", {});
  t.testerRxQueues = static_cast<uint32_t>(tester.Number("rx_queues", 4, 1, 64));
  tester.RejectUnknown();
  if (r.Has("generator")) {
    Reader g = r.Child("generator");
    ns3::GeneratorOptions& go = t.generator;
    go.enabled = true;
    const YAML::Node sizes = g.Raw("frame_size");
    if (sizes && sizes.IsScalar() && sizes.as<std::string>() == "imix") {
      go.imix = true;
    } else if (sizes && sizes.IsSequence()) {
      go.frameSizes = g.Get<std::vector<uint32_t>>("frame_size", {});
    } else {
      go.frameSizes = {static_cast<uint32_t>(g.Number("frame_size", 64, 60, 9018))};
    }
    g.Mark("frame_size");
    go.rateGbps = g.Number("rate_gbps", 0, 0, 1000);
    go.ratePps = g.Number("rate_pps", 0, 0, 2e9);
    go.flows = static_cast<uint32_t>(g.Number("flows", 1, 1, 1 << 20));
    go.burst = static_cast<uint32_t>(g.Number("burst", 0, 0, 1 << 16));
    g.RejectUnknown();
  }
  // GRO is on by default in Linux (NETIF_F_GRO, net/core/dev.c
  // register_netdevice); OVS-DPDK's NICs coalesce only when asked (LRO).
  t.gro = r.Get<bool>("gro", kernel);
  t.linkGbps = r.Number("link_gbps", 0, 0, 1000);
  t.delayUs = r.Number("delay_us", 5, 0, 1e6);
  t.mtu = static_cast<uint32_t>(r.Number("mtu", 1500, 1280, 9000));
  s.durationS = r.Number("duration_s", 1.0, 0.01, 3600);
  s.warmupS = r.Number("warmup_s", 0.3, 0, 3600);
  if (s.warmupS >= s.durationS) {
    r.Fail("warmup_s must be shorter than duration_s");
  }
  const std::string mode = r.Get<std::string>("mode", "train");
  if (mode != "train" && mode != "per-frame") {
    r.Fail("mode must be train or per-frame, not '" + mode + "'");
  }
  t.trainMode = mode == "train";
  if (kernel && r.Has("ovs")) {
    r.Fail("field 'ovs' applies to host kind ovs-dpdk, not kernel");
  }
  Reader ovs = r.Child("ovs");
  t.udpTunnelCsum = ovs.Get<bool>("udp_tunnel_csum", true);
  t.partialGso = ovs.Get<bool>("partial_gso", true);
  t.pmdThreads = static_cast<uint32_t>(ovs.Number("pmd_threads", 1, 1, 64));
  t.hwOffload = ovs.Get<bool>("hw_offload", false);
  t.userspaceTso = ovs.Get<bool>("userspace_tso", true);
  ovs.RejectUnknown();
  Reader guest = r.Child("guest");
  t.guestTso = guest.Get<bool>("tso", true);
  t.guestCsum = guest.Get<bool>("csum_offload", true);
  t.vms = static_cast<uint32_t>(guest.Number("vms", 1, 1, 64));
  t.packetSize = static_cast<uint32_t>(guest.Number("packet_size", 0, 0, 9000));
  t.streams = static_cast<uint32_t>(guest.Number("streams", 1, 1, 64));
  guest.RejectUnknown();
  r.RejectUnknown();
  try {
    ns3::MakeTopology(t);  // unknown NIC or tunnel type, a value out of range
  } catch (const offlab::Error& e) {
    r.Fail(e.what());
  }
  return s;
}

Scenario LoadScenario(const std::string& path) { return ParseScenario(ReadFile(path), path); }

ns3::CostModel LoadCostModel(const std::string& path) {
  Reader r(LoadYaml(ReadFile(path), path), path);
  ns3::CostModel c;
  c.pmd = ReadCore(r.Child("pmd"));
  c.guest = ReadCore(r.Child("guest"));
  c.kernel = ReadCore(r.Child("kernel"));
  r.Get<std::string>("source", "");
  r.Get<std::string>("calibration", "");
  r.RejectUnknown();
  return c;
}

Result RunScenario(const Scenario& s, const RunOptions& o) {
  using namespace ns3;
  const auto wall0 = std::chrono::steady_clock::now();
  TunnelScenario t = s.topology;
  if (o.trainMode >= 0) {
    t.trainMode = o.trainMode == 1;
  }
  const double duration = o.durationS > 0 ? o.durationS : s.durationS;
  const double warmup = std::min(s.warmupS, duration / 2);
  std::unique_ptr<Topology> made = MakeTopology(t);
  Topology& topo = *made;
  topo.Install(Seconds(0), Seconds(duration));
  Result r;
  r.name = s.name;
  if (!o.pcapDir.empty()) {
    for (uint32_t h = 0; h < 2; h++) {
      const std::string p = o.pcapDir + "/host" + std::to_string(h) + "-nic.pcapng";
      topo.GetNic(h)->EnablePcap(p);
      r.pcaps.push_back(p);
    }
  }
  Simulator::Schedule(Seconds(warmup), [&topo]() { topo.ResetStats(); });
  if (o.progress) {
    for (int i = 1; i <= 20; i++) {
      const double f = i / 20.0;
      Simulator::Schedule(Seconds(duration * f), [&o, f]() { o.progress(f); });
    }
  }
  Simulator::Stop(Seconds(duration));
  Simulator::Run();
  r.goodputGbps = topo.GetGoodput() / 1e9;
  r.simSeconds = duration;
  for (uint32_t h = 0; h < 2; h++) {
    r.hosts.push_back(topo.GetHostStats(h));
  }
  r.events = topo.GetEvents();
  for (uint32_t h = 0; h < 2 && !o.pcapDir.empty(); h++) {
    topo.GetNic(h)->ClosePcap();
  }
  Simulator::Destroy();
  r.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return r;
}

}  // namespace offlab::sim
