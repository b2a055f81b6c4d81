#include "offlab/ovs/pipeline.h"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <utility>

#include "offlab/net/error.h"
#include "offlab/net/headers.h"
#include "offlab/net/work.h"
#include "offlab/nic/caps.h"
#include "offlab/ovs/egress.h"
#include "offlab/ovs/faults.h"
#include "offlab/ovs/parse.h"
#include "offlab/ovs/rewrite.h"
#include "offlab/ovs/rss_hash.h"
#include "offlab/ovs/send_prepare.h"
#include "pipeline_port.h"

namespace offlab {

namespace {

bool Truthy(const std::string& name, const std::string& v) {
  if (v == "true") return true;
  if (v == "false") return false;
  throw Error("option " + name + ": expected true or false, got '" + v + "'");
}

// netdev-dummy RX: good > bad > partial when several are set.
std::optional<CsumStatus> ForcedRx(const std::map<std::string, std::string>& o,
                                   const std::string& prefix) {
  auto on = [&](const char* s) {
    auto it = o.find(prefix + s);
    return it != o.end() && Truthy(it->first, it->second);
  };
  if (on("good")) return CsumStatus::kGood;
  if (on("bad")) return CsumStatus::kBad;
  if (on("partial")) return CsumStatus::kPartial;
  return std::nullopt;
}

}  // namespace

Pipeline::Pipeline(PipelineConfig cfg) : cfg_(cfg), conntrack_(std::make_unique<Conntrack>()) {
  CheckEgressOptions(cfg_.egress);
}
Pipeline::~Pipeline() = default;

uint32_t Pipeline::AddPort(const PortConfig& cfg) {
  if (cfg.name.empty()) throw Error("port: a name is required");
  for (const auto& [n, port] : ports_) {
    if (port->cfg.name == cfg.name) throw Error("port " + cfg.name + ": duplicate name");
  }
  auto port = std::make_unique<Port>();
  port->cfg = cfg;
  port->ofport = cfg.ofport;
  if (!port->ofport) {
    port->ofport = 1;
    while (ports_.count(port->ofport)) port->ofport++;
  }
  if (ports_.count(port->ofport)) {
    throw Error("port " + cfg.name + ": ofport " + std::to_string(port->ofport) + " in use");
  }
  if (cfg.tunnel) {
    cfg.tunnel->Validate();
    if (cfg.underlay.empty()) throw Error("port " + cfg.name + ": tunnel port needs an underlay");
    port->underlay = PortNumber(cfg.underlay);
    const uint32_t n = port->ofport;
    ports_[n] = std::move(port);
    return n;
  }
  CheckMtu(cfg.name, cfg.mtu);
  port->profile = BuiltinProfile(cfg.profile);
  port->dummy = cfg.profile == "dummy";
  port->tx = NicTx::FromProfile(port->profile);
  // A guest (vhost-user, tap with a vnet header) takes a TSO packet whole:
  // nothing segments it on the way.
  if (port->profile.driver == "vhost-user" || port->profile.driver == "tun") {
    port->tx.segments_tso = false;
  }
  if (port->dummy) {
    port->tx.segments_tso = false;
    static const std::map<std::string, uint32_t> kTx = {
        {"ol_ip_tx_csum", cap::kIpv4Cksum},
        {"ol_l4_tx_csum", cap::kTcpCksum | cap::kUdpCksum},
        {"ol_out_ip_tx_csum", cap::kOuterIpCksum},
        {"ol_out_udp_tx_csum", cap::kOuterUdpCksum},
    };
    for (const auto& [k, v] : cfg.options) {
      bool known = k.rfind("ol_ip_rx_csum_set_", 0) == 0 || k.rfind("ol_l4_rx_csum_set_", 0) == 0;
      if (known) {
        std::string what = k.substr(18);
        if (what != "good" && what != "bad" && what != "partial") known = false;
      }
      for (const auto& [name, bits] : kTx) {
        if (k == name && Truthy(k, v)) port->tx.caps |= bits;
        if (k == name + "_disabled" && Truthy(k, v)) port->tx.disabled |= bits;
        known |= k == name || k == name + "_disabled";
      }
      if (k == "ol_tso_segsz") {
        known = true;
        size_t used = 0;
        unsigned long n = 0;
        try {
          n = std::stoul(v, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (!used || used != v.size() || n == 0 || n > 65535) {
          throw Error("option ol_tso_segsz: expected 1..65535, got '" + v + "'");
        }
        if (cfg_.userspace_tso) {
          port->rx_tso_segsz = static_cast<uint16_t>(n);
          port->tx.caps |= cap::kTcpTso | cap::kTcpCksum;
        }
      }
      if (!known) throw Error("port " + cfg.name + ": unknown option '" + k + "'");
    }
    port->rx_ip = ForcedRx(cfg.options, "ol_ip_rx_csum_set_");
    port->rx_l4 = ForcedRx(cfg.options, "ol_l4_rx_csum_set_");
  } else {
    if (!cfg.options.empty()) {
      throw Error("port " + cfg.name + ": option '" + cfg.options.begin()->first +
                  "' applies only to dummy ports");
    }
    if (!cfg_.userspace_tso) {
      // A netdev-linux system port (ibmveth here) gets its offloads from
      // netdev_linux_set_ol(), which runs only with userspace-tso-enable (OVS
      // d6a632a9b1 lib/netdev-linux.c:1078-1084): without it, none at all.
      const bool linux_system = port->profile.driver == "ibmveth";
      port->tx.caps &= linux_system ? 0u : ~(cap::kTcpTso | cap::kTnlTsoAny);
    }
  }
  port->tx_len = {NetdevClassOf(port->profile.driver), cfg.mtu,
                  port->dummy && (port->tx.caps & cap::kTcpTso)};
  uint32_t n = port->ofport;
  ports_[n] = std::move(port);
  return n;
}

void Pipeline::AddFlow(const std::string& text) {
  rules_.push_back(ParseRule(text, [this](const std::string& p) { return PortNumber(p); }));
  std::stable_sort(rules_.begin(), rules_.end(),
                   [](const Rule& a, const Rule& b) { return a.priority > b.priority; });
}

void Pipeline::ClearFlows() { rules_.clear(); }

uint32_t Pipeline::PortNumber(const std::string& name) const {
  for (const auto& [n, port] : ports_) {
    if (port->cfg.name == name) return n;
  }
  // An ofport number: digits only, and no wider than an ofport (std::stoul
  // threw std::out_of_range past 2^64 and 2^32 + 1 wrapped to port 1).
  uint32_t n = 0;
  const char* end = name.data() + name.size();
  const auto [ptr, ec] = std::from_chars(name.data(), end, n);
  if (!name.empty() && ec == std::errc() && ptr == end && ports_.count(n)) return n;
  throw Error("unknown port '" + name + "'");
}

const Pipeline::Port& Pipeline::PortByName(const std::string& name) const {
  return *ports_.at(PortNumber(name));
}

Pipeline::Port& Pipeline::PortRef(uint32_t ofport) {
  auto it = ports_.find(ofport);
  if (it == ports_.end()) throw Error("unknown ofport " + std::to_string(ofport));
  return *it->second;
}

uint32_t Pipeline::PortCaps(const std::string& name) const { return PortByName(name).tx.caps; }

void ComposeBadIpCsum(Packet& p) {
  Packet located = p;
  Parse(located);
  const uint8_t* ip = located.l3();
  if (!ip || (ip[0] >> 4) != 4) throw Error("bad_ip_csum: the frame has no IPv4 header");
  p.data()[located.l3_ofs + hdr::kIpv4CsumOfs + 1] ^= 1;
  // d49994634: the composer called the predicate, not the setter.
  if (!Faults::On(Fault::kComposeBadCsumNoStatus)) p.offloads.set_ip(CsumStatus::kBad);
}

std::vector<Sent> Pipeline::Receive(const std::string& name, const Bytes& frame,
                                    const RxMeta& meta) {
  const Port& port = PortByName(name);
  if (port.cfg.tunnel) throw Error("port " + name + ": cannot receive on a tunnel port");
  sent_.clear();
  events_.clear();
  nic_packets_ = 0;
  tx_calls_ = 0;
  if (DropRxInvalid(frame.size(), &counters_, &events_)) return {};
  Packet p = port.dummy ? Packet(frame) : [&] {
    HardwareScope hw;
    return NicReceive(frame, port.profile);
  }();
  if (port.rx_ip) p.offloads.set_ip(*port.rx_ip);
  if (port.rx_l4) p.offloads.set_l4(*port.rx_l4);
  if (port.rx_tso_segsz) p.tso_segsz = port.rx_tso_segsz;
  if (meta.ip) p.offloads.set_ip(*meta.ip);
  if (meta.l4) p.offloads.set_l4(*meta.l4);
  if (meta.tso_segsz) p.tso_segsz = meta.tso_segsz;
  if (meta.bad_ip_csum) ComposeBadIpCsum(p);
  p.md.in_port = port.ofport;
  Process(p, 0, true, 0);
  return std::exchange(sent_, {});
}

std::vector<Sent> Pipeline::ReceivePacket(const std::string& name, Packet p) {
  // A simulator hands packets of one port in a row: the last lookup is kept
  // (ports are never removed, so the pointer stays valid).
  if (!rx_port_ || name != rx_name_) {
    rx_port_ = &PortByName(name);
    rx_name_ = name;
  }
  const Port& port = *rx_port_;
  if (port.cfg.tunnel) throw Error("port " + name + ": cannot receive on a tunnel port");
  sent_.clear();
  events_.clear();
  nic_packets_ = 0;
  tx_calls_ = 0;
  if (DropRxInvalid(p.size(), &counters_, &events_)) return {};
  p.md.in_port = port.ofport;
  Process(p, 0, true, 0);
  return std::exchange(sent_, {});
}

void Pipeline::Process(Packet& p, uint8_t table, bool reparse, int depth) {
  // `depth` counts recirculations; a recirculated pass (reparse) is a new
  // translation, with its own resubmit depth.
  if (depth > cfg_.max_recirc_depth) {
    counters_.Inc("datapath_drop_recirc_error");
    events_.push_back("drop: recirculation deeper than " + std::to_string(cfg_.max_recirc_depth));
    return;
  }
  struct Restore {
    int& d;
    int v;
    ~Restore() { d = v; }
  } restore{xlate_depth_, xlate_depth_};
  if (reparse) xlate_depth_ = 0;
  // The simple-match path applies when every rule for this in_port matches
  // on in_port alone, so the fast parser's key suffices.
  bool simple =
      cfg_.simple_match && table == 0 && p.md.recirc_id == 0 && !p.md.tunnel.present && reparse;
  if (simple) {
    bool any = false;
    for (const Rule& r : rules_) {
      if (r.match.table != 0) continue;
      if (r.match.in_port && *r.match.in_port != p.md.in_port) continue;
      any = true;
      simple &= r.match.simple() && r.match.in_port.has_value();
    }
    simple &= any;
  }
  // Built in place (a key moved in after being built field by field was
  // loaded back before its stores had landed: a stall on every packet).
  const FlowKey key = [&] {
    if (reparse) return simple ? ParseSimple(p) : Parse(p);
    Packet copy = p;  // a lookup without re-parse sees the current bytes
    return Parse(copy);
  }();
  if (reparse && simple) counters_.Inc("simple_match_hit");
  // A recirculated pass is a new translation with its own flow; the caller's
  // comes back when it returns.
  struct RestoreFlow {
    XlateFlow& f;
    XlateFlow v;
    ~RestoreFlow() { f = v; }
  } restore_flow{xlate_flow_, xlate_flow_};
  if (reparse) {
    xlate_flow_.ip = key.dl_type == hdr::kEthTypeIpv4 || key.dl_type == hdr::kEthTypeIpv6;
    xlate_flow_.nw_proto = key.has_l3 ? key.nw_proto : 0;
    xlate_flow_.nw_ttl = key.has_l3 ? key.nw_ttl : 0;
    xlate_flow_.later_fragment = key.has_l3 && (key.nw_frag & frag::kLater);
    if (simple && xlate_flow_.ip && !xlate_flow_.nw_proto && key.has_l3) {
      // The simple-match key holds no TTL; the translation's flow has it.
      Packet copy = p;
      xlate_flow_.nw_ttl = Parse(copy).nw_ttl;
    }
  }
  // A packet that misses the caches gets its hash now, unless it has one
  // (recirculated); the simple-match path computes none (openvswitch/ovs
  // d6a632a9b lib/dpif-netdev.c:7379-7399 dfc_processing).
  if (reparse && !simple && !p.md.has_hash) {
    p.md.hash = Hash5Tuple(key);
    p.md.has_hash = true;
  }
  if (reparse && !key.error.empty()) CountMiniflowLengthError(key, &counters_, &events_);
  const Rule* hit = nullptr;
  for (const Rule& r : rules_) {
    if (r.match.table == table && r.match.Matches(key, p.md)) {
      hit = &r;
      break;
    }
  }
  if (!hit) {
    counters_.Inc("datapath_drop_no_rule");
    events_.push_back("drop: no rule in table " + std::to_string(table) + " for " + key.ToString());
    return;
  }
  Execute(p, hit->actions, depth);
}

void Pipeline::Output(uint32_t ofport, Packet p, int depth) {
  Port& port = PortRef(ofport);
  if (port.cfg.tunnel) {
    PacketBatch batch = OneBatch(std::move(p));
    PushHeader(batch, *port.cfg.tunnel, &counters_);
    for (Packet& q : batch) Output(port.underlay, std::move(q), depth);
    return;
  }
  const uint32_t tx = tx_calls_++;
  if (tx_tap_) tx_tap_(port.cfg.name, p, tx);
  std::vector<std::string> errors, violations;
  std::vector<Sent> frames =
      SendThroughNic(std::move(p), port.cfg.name, port.tx.caps, port.tx, cfg_.egress, &counters_,
                     &errors, &violations, cfg_.shared_payloads, port.tx_len);
  for (const std::string& e : errors) events_.push_back("drop on " + port.cfg.name + ": " + e);
  for (const std::string& v : violations) {
    counters_.Inc("offlab_nic_violation");
    events_.push_back("nic " + port.cfg.name + ": " + v);
  }
  const uint32_t base = nic_packets_;
  for (Sent& s : frames) {
    s.nic_packet += base;
    s.tx = tx;
    nic_packets_ = s.nic_packet + 1;
  }
  if (sent_.empty()) {
    sent_ = std::move(frames);  // the common case: one output, no moves
  } else {
    sent_.insert(sent_.end(), std::make_move_iterator(frames.begin()),
                 std::make_move_iterator(frames.end()));
  }
}

}  // namespace offlab
