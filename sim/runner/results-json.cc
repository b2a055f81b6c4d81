// SPDX-License-Identifier: Apache-2.0
// A run's results as JSON (results.json): the scenario's settings, goodput,
// and per host its cores' load, NIC counters, kernel figures and counters.
#include <cstdio>
#include <sstream>

#include "scenario.h"

namespace offlab::sim {

namespace {

std::string Quote(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      o += b;
    } else {
      o += c;
    }
  }
  return o + "\"";
}

std::string Num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

std::string List(const std::vector<double>& v, double scale) {
  std::string o = "[";
  for (std::size_t i = 0; i < v.size(); i++) {
    o += (i ? ", " : "") + Num(v[i] * scale);
  }
  return o + "]";
}

std::string Loads(const std::vector<ns3::CoreLoad>& cores) {
  std::ostringstream o;
  o << "[";
  for (std::size_t i = 0; i < cores.size(); i++) {
    const ns3::CoreLoad& c = cores[i];
    const ns3::CpuWork& w = c.workPerS;
    o << (i ? ", " : "") << "{\"cycles_per_s\": " << Num(c.cyclesPerS) << ", \"drops\": " << c.drops
      << ", \"per_s\": {\"packets\": " << Num(w.packets) << ", \"rx_frames\": " << Num(w.rxFrames)
      << ", \"tx_frames\": " << Num(w.txFrames) << ", \"sw_segments\": " << Num(w.swSegments)
      << ", \"csum_bytes\": " << Num(w.csumBytes) << ", \"copy_bytes\": " << Num(w.copyBytes)
      << ", \"polls\": " << Num(w.polls) << ", \"gro_merges\": " << Num(w.groMerges) << "}}";
  }
  o << "]";
  return o.str();
}

}  // namespace

std::string ToJson(const Result& r, const Scenario& s) {
  struct {
    const ns3::TunnelScenario& t;
  } v{s.topology};
  std::ostringstream o;
  o << "{\n  \"scenario\": " << Quote(r.name) << ",\n  \"description\": " << Quote(s.description)
    << ",\n  \"nic\": " << Quote(v.t.nic) << ",\n  \"host_kind\": " << Quote(v.t.hostKind)
    << ",\n  \"tunnel\": " << Quote(v.t.tunnel)
    << ",\n  \"underlay\": " << Quote(v.t.ipv6Underlay ? "ipv6" : "ipv4")
    << ",\n  \"outer_udp_csum\": " << (v.t.outerCsum ? "true" : "false")
    << ",\n  \"mtu\": " << v.t.mtu << ",\n  \"goodput_gbps\": " << Num(r.goodputGbps)
    << ",\n  \"sim_seconds\": " << Num(r.simSeconds)
    << ",\n  \"wall_seconds\": " << Num(r.wallSeconds) << ",\n  \"hosts\": [";
  for (std::size_t h = 0; h < r.hosts.size(); h++) {
    const ns3::HostStats& st = r.hosts[h];
    std::vector<double> softirq, vhost;
    for (const ns3::CoreLoad& l : st.softirqs) {
      softirq.push_back(l.utilisation);
    }
    for (const ns3::CoreLoad& l : st.vhosts) {
      vhost.push_back(l.utilisation);
    }
    o << (h ? "," : "") << "\n    {\"name\": \"host" << h << "\", \"kind\": " << Quote(st.kind)
      << ", \"pmd_cpu_pct\": " << List(st.pmdUtilisation, 100)
      << ", \"guest_cpu_pct\": " << List(st.guestUtilisation, 100)
      << ", \"pmd_load\": " << Loads(st.pmds) << ", \"guest_load\": " << Loads(st.guests);
    if (st.kind != "ovs-dpdk") {
      o << ", \"softirq_cpu_pct\": " << List(softirq, 100)
        << ", \"vhost_cpu_pct\": " << List(vhost, 100)
        << ", \"softirq_load\": " << Loads(st.softirqs) << ", \"vhost_load\": " << Loads(st.vhosts)
        << ", \"kernel\": {";
      bool firstK = true;
      for (const auto& [k, val] : st.kernel) {
        o << (firstK ? "" : ", ") << Quote(k) << ": " << Num(val);
        firstK = false;
      }
      o << "}";
    }
    o << ", \"nic\": {\"tx_frames\": " << st.txFrames << ", \"rx_frames\": " << st.rxFrames
      << ", \"trains\": " << st.trains << ", \"tx_drops\": " << st.txDrops
      << ", \"gro_in\": " << st.groIn << ", \"gro_out\": " << st.groOut
      << ", \"gro_not_validated\": " << st.groNotValidated << "}, \"pmd_drops\": " << st.pmdDrops
      << ", \"counters\": {";
    bool first = true;
    for (const auto& [k, val] : st.counters) {
      o << (first ? "" : ", ") << Quote(k) << ": " << val;
      first = false;
    }
    o << "}}";
  }
  o << "\n  ],\n  \"events\": [";
  for (std::size_t i = 0; i < r.events.size(); i++) {
    o << (i ? ", " : "") << Quote(r.events[i]);
  }
  o << "],\n  \"pcaps\": [";
  for (std::size_t i = 0; i < r.pcaps.size(); i++) {
    o << (i ? ", " : "") << Quote(r.pcaps[i]);
  }
  o << "]\n}\n";
  return o.str();
}

std::string JsonString(const std::string& s) { return Quote(s); }

}  // namespace offlab::sim
