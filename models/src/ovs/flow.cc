#include "offlab/ovs/flow.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <exception>
#include <optional>
#include <string>
#include <string_view>

#include "flow_ct_state.h"
#include "offlab/net/error.h"
#include "offlab/net/headers.h"

namespace offlab {

namespace {

std::vector<std::string> SplitTopLevel(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char c : s) {
    if (c == '(') depth++;
    if (c == ')') depth--;
    if (c == sep && depth == 0) {
      out.push_back(cur);
      cur.clear();
    } else if (c != ' ' && c != '\t') {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

uint64_t ParseNumber(const std::string& s, uint64_t max, const std::string& what) {
  if (s.empty()) throw Error(what + ": missing value");
  size_t used = 0;
  unsigned long long v;
  try {
    v = std::stoull(s, &used, 0);
  } catch (const std::exception&) {
    throw Error(what + ": '" + s + "' is not a number");
  }
  if (used != s.size()) throw Error(what + ": '" + s + "' is not a number");
  if (v > max) throw Error(what + ": " + s + " out of range");
  return v;
}

std::array<uint8_t, 4> V4(const IpAddr& a) { return {a[0], a[1], a[2], a[3]}; }

NatSpec ParseNat(const std::string& inner) {
  NatSpec n;
  n.enabled = true;
  if (inner.empty()) return n;  // plain "nat": reverse NAT of an existing connection
  size_t eq = inner.find('=');
  if (eq == std::string::npos) throw Error("nat: expected src=ADDR or dst=ADDR");
  std::string dir = inner.substr(0, eq), rest = inner.substr(eq + 1);
  if (dir != "src" && dir != "dst") throw Error("nat: expected src= or dst=, got '" + dir + "'");
  n.snat = dir == "src";
  std::string addr = rest;
  // "[v6]:port" or "v4:port"
  if (!rest.empty() && rest[0] == '[') {
    size_t close = rest.find(']');
    if (close == std::string::npos) throw Error("nat: unterminated [ in '" + rest + "'");
    addr = rest.substr(1, close - 1);
    if (close + 1 < rest.size()) {
      // Only ":port" may follow the bracketed address: str_to_nat_range
      // (openvswitch/ovs v3.1.0 lib/ofp-actions.c:7222-7225) refuses anything
      // else with "garbage (...) after nat range".
      if (rest[close + 1] != ':') {
        throw Error("nat: garbage (" + rest.substr(close + 1) + ") after nat range '" + rest + "'");
      }
      n.port = static_cast<uint16_t>(ParseNumber(rest.substr(close + 2), 65535, "nat port"));
    }
  } else if (std::count(rest.begin(), rest.end(), ':') == 1) {
    size_t colon = rest.find(':');
    addr = rest.substr(0, colon);
    n.port = static_cast<uint16_t>(ParseNumber(rest.substr(colon + 1), 65535, "nat port"));
  }
  n.addr = ParseIp(addr, &n.ipv6);
  return n;
}

// The reserved OpenFlow ports offlab models, by their ovs-ofctl names (any
// case: openvswitch/ovs v3.1.0 lib/ofp-port.c:118-132, 197-202).
std::optional<ActionType> ReservedPort(const std::string& s) {
  std::string up;
  for (char c : s) up.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  if (up == "NORMAL") return ActionType::kNormal;
  if (up == "FLOOD" || up == "ALL") return ActionType::kFlood;
  if (up == "IN_PORT") return ActionType::kInPort;
  if (up == "CONTROLLER") return ActionType::kController;
  return std::nullopt;
}

// An output action to `target`: a reserved port or a port name or number.
Action OutputTo(const std::string& target, const PortResolver& ports) {
  Action act;
  if (auto reserved = ReservedPort(target)) {
    act.type = *reserved;
  } else {
    act.type = ActionType::kOutput;
    act.port = ports(target);
  }
  return act;
}

Action ParseAction(const std::string& a, const PortResolver& ports) {
  Action act;
  auto arg = [&](const std::string& prefix) { return a.substr(prefix.size()); };
  auto starts = [&](const char* p) { return a.rfind(p, 0) == 0; };
  bool v6 = false;
  if (starts("output:")) {
    act = OutputTo(arg("output:"), ports);
  } else if (starts("tnl_push:")) {
    act.type = ActionType::kTnlPush;
    act.port = ports(arg("tnl_push:"));
  } else if (starts("tnl_pop:")) {
    act.type = ActionType::kTnlPop;
    act.port = ports(arg("tnl_pop:"));
  } else if (starts("mod_dl_src:")) {
    act.type = ActionType::kSetEth;
    act.eth_src = ParseMac(arg("mod_dl_src:"));
  } else if (starts("mod_dl_dst:")) {
    act.type = ActionType::kSetEth;
    act.eth_dst = ParseMac(arg("mod_dl_dst:"));
  } else if (starts("mod_nw_src:") || starts("mod_nw_dst:")) {
    // IPv4 only: ovs-ofctl 3.1.0 refuses an IPv6 address ("could not convert
    // to IP address"); set_field:ADDR->ipv6_src is how OVS sets one.
    IpAddr ip = ParseIp(a.substr(11), &v6);
    if (v6) {
      throw Error(a.substr(0, 10) + ": '" + a.substr(11) +
                  "' is not an IPv4 address (set_field:ADDR->ipv6_src/ipv6_dst sets IPv6)");
    }
    act.type = ActionType::kSetIpv4;
    (starts("mod_nw_src:") ? act.ipv4.src : act.ipv4.dst) = V4(ip);
  } else if (starts("mod_nw_tos:")) {
    // mod_nw_tos sets the DSCP bits and keeps ECN, of IPv4 or IPv6 alike; a
    // value with ECN bits is refused (openvswitch/ovs v3.1.0
    // lib/ofp-actions.c:2157-2159, ofproto/ofproto-dpif-xlate.c:7142-7147).
    act.type = ActionType::kSetIpAny;
    act.ipv4.tos = static_cast<uint8_t>(ParseNumber(arg("mod_nw_tos:"), 255, "mod_nw_tos"));
    if (*act.ipv4.tos & 0x03)
      throw Error("mod_nw_tos: " + arg("mod_nw_tos:") + ": not a valid TOS");
    act.ipv4.tos_mask = 0xfc;
    act.ipv6.tclass = act.ipv4.tos;
    act.ipv6.tclass_mask = 0xfc;
  } else if (starts("mod_nw_ttl:")) {
    // The IPv4 TTL or the IPv6 hop limit (ofproto-dpif-xlate.c:7158-7163).
    act.type = ActionType::kSetIpAny;
    act.ipv4.ttl = static_cast<uint8_t>(ParseNumber(arg("mod_nw_ttl:"), 255, "mod_nw_ttl"));
    act.ipv6.hlimit = act.ipv4.ttl;
  } else if (starts("mod_tp_src:")) {
    act.type = ActionType::kSetL4Ports;
    act.tp_src = static_cast<uint16_t>(ParseNumber(arg("mod_tp_src:"), 65535, "mod_tp_src"));
  } else if (starts("mod_tp_dst:")) {
    act.type = ActionType::kSetL4Ports;
    act.tp_dst = static_cast<uint16_t>(ParseNumber(arg("mod_tp_dst:"), 65535, "mod_tp_dst"));
  } else if (starts("set_field:")) {
    std::string v = arg("set_field:");
    size_t arrow = v.find("->");
    if (arrow == std::string::npos) throw Error("set_field: expected VALUE->FIELD in '" + a + "'");
    std::string value = v.substr(0, arrow), field = v.substr(arrow + 2);
    if (field == "ipv6_src" || field == "ipv6_dst") {
      act.type = ActionType::kSetIpv6;
      (field == "ipv6_src" ? act.ipv6.src : act.ipv6.dst) = ParseIp(value, &v6);
      if (!v6) throw Error("set_field: '" + value + "' is not an IPv6 address");
    } else if (field == "ip_src" || field == "ip_dst" || field == "nw_src" || field == "nw_dst") {
      act.type = ActionType::kSetIpv4;
      IpAddr ip = ParseIp(value, &v6);
      if (v6) throw Error("set_field: '" + value + "' is not an IPv4 address");
      (field.find("src") != std::string::npos ? act.ipv4.src : act.ipv4.dst) = V4(ip);
    } else if (field == "tcp_src" || field == "udp_src" || field == "sctp_src") {
      act.type = ActionType::kSetL4Ports;
      act.tp_src = static_cast<uint16_t>(ParseNumber(value, 65535, field));
    } else if (field == "tcp_dst" || field == "udp_dst" || field == "sctp_dst") {
      act.type = ActionType::kSetL4Ports;
      act.tp_dst = static_cast<uint16_t>(ParseNumber(value, 65535, field));
    } else if (field == "ipv6_label") {
      act.type = ActionType::kSetIpv6;
      act.ipv6.flow_label = static_cast<uint32_t>(ParseNumber(value, 0xfffff, field));
    } else {
      throw Error("set_field: unsupported field '" + field + "'");
    }
  } else if (a == "dec_ttl") {
    act.type = ActionType::kDecTtl;
  } else if (a == "set_ecn_ce") {
    act.type = ActionType::kSetEcnCe;
  } else if (starts("mod_nw_ecn:")) {
    // OFPACT_SET_IP_ECN writes the ECN bits whatever they were, a Not-ECT
    // packet's too (openvswitch/ovs v3.1.0 ofproto/ofproto-dpif-xlate.c, case
    // OFPACT_SET_IP_ECN: nw_tos &= ~IP_ECN_MASK; nw_tos |= ecn), unlike
    // IP_ECN_set_ce (set_ecn_ce), which leaves a Not-ECT packet alone. A value
    // with other bits is refused (lib/ofp-actions.c parse_SET_IP_ECN; ovs-ofctl
    // 3.1.0: "4: not a valid ECN").
    const std::string v = arg("mod_nw_ecn:");
    const auto ecn = static_cast<uint8_t>(ParseNumber(v, 255, "mod_nw_ecn"));
    if (ecn & ~0x03) throw Error("mod_nw_ecn: " + v + ": not a valid ECN");
    act.type = ActionType::kSetIpAny;
    act.ipv4.tos = ecn;
    act.ipv4.tos_mask = 0x03;
    act.ipv6.tclass = ecn;
    act.ipv6.tclass_mask = 0x03;
  } else if (a == "controller" || a.rfind("controller(", 0) == 0) {
    act.type = ActionType::kController;
  } else if (a == "drop") {
    act.type = ActionType::kDrop;
  } else if (starts("recirc:")) {
    act.type = ActionType::kRecirc;
    act.table = static_cast<uint8_t>(ParseNumber(arg("recirc:"), 254, "recirc"));
  } else if (starts("resubmit(,") && a.back() == ')') {
    act.type = ActionType::kResubmit;
    act.table =
        static_cast<uint8_t>(ParseNumber(a.substr(10, a.size() - 11), 254, "resubmit table"));
  } else if (starts("ct(") && a.back() == ')') {
    act.type = ActionType::kCt;
    for (const std::string& part : SplitTopLevel(a.substr(3, a.size() - 4), ',')) {
      if (part == "commit") {
        act.ct.commit = true;
      } else if (part.rfind("zone=", 0) == 0) {
        act.ct.zone = static_cast<uint16_t>(ParseNumber(part.substr(5), 65535, "ct zone"));
      } else if (part.rfind("table=", 0) == 0) {
        act.ct.table = static_cast<uint8_t>(ParseNumber(part.substr(6), 254, "ct table"));
      } else if (part == "alg=ftp") {
        act.ct.alg_ftp = true;
      } else if (part.rfind("alg=", 0) == 0) {
        throw Error("ct: unsupported alg '" + part.substr(4) + "' (supported: ftp)");
      } else if (part == "nat") {
        act.ct.nat = ParseNat("");
      } else if (part.rfind("nat(", 0) == 0 && part.back() == ')') {
        act.ct.nat = ParseNat(part.substr(4, part.size() - 5));
      } else {
        throw Error("ct: unknown argument '" + part + "'");
      }
    }
  } else if (!a.empty() && a.find_first_of(":(=") == std::string::npos) {
    // ovs-ofctl takes any other word that names a port as `output:` to it
    // (openvswitch/ovs v3.1.0 lib/ofp-actions.c:9433-9434, ofpacts_parse__).
    try {
      act = OutputTo(a, ports);
    } catch (const Error&) {
      throw Error("unknown action '" + a + "'");
    }
  } else {
    throw Error("unknown action '" + a + "'");
  }
  return act;
}

}  // namespace

bool Match::simple() const {
  return !nw_proto && !nw_src && !nw_dst && !tp_src && !tp_dst && !tun_id && !tun_src && !tun_dst &&
         !ct_state_mask && !ct_zone && table == 0;
}

bool Match::Matches(const FlowKey& key, const PacketMetadata& md) const {
  if (in_port && *in_port != md.in_port) return false;
  if (dl_type && *dl_type != key.dl_type) return false;
  // A packet without a complete IP header has no network fields in its flow,
  // and the classifier reads missing fields as 0 (ipv4_sanity_check and
  // ipv6_sanity_check failing jump to `out`, openvswitch/ovs v3.1.0
  // lib/flow.c:882-887 and 915-920; checked with ovs-vswitchd 3.1.0, ovs-diff
  // case ip-header-incomplete).
  const IpAddr none{};
  if (nw_proto && *nw_proto != (key.has_l3 ? key.nw_proto : 0)) return false;
  if (nw_src && *nw_src != (key.has_l3 ? key.nw_src : none)) return false;
  if (nw_dst && *nw_dst != (key.has_l3 ? key.nw_dst : none)) return false;
  // The lookup sees zero transport fields where the packet has none (a later
  // fragment, an L4 header cut short: miniflow_extract leaves them out, and
  // the classifier reads a missing field as 0) and, with the default
  // frag_handling "normal", for every fragment, the first one too
  // (openvswitch/ovs v3.1.0 ofproto/ofproto-dpif.c:4460-4466
  // rule_dpif_lookup_from_table; checked with ovs-vswitchd 3.1.0, ovs-diff
  // case fragment-ports).
  const bool ports = key.has_l4 && (key.nw_frag & frag::kAny) == 0;
  if (tp_src && *tp_src != (ports ? key.tp_src : 0)) return false;
  if (tp_dst && *tp_dst != (ports ? key.tp_dst : 0)) return false;
  // A packet that came from no tunnel has all-zero tunnel fields, and a match
  // on zero takes it: pkt_metadata_init clears the tunnel destination, and a
  // flow without one has no tunnel in its miniflow, which the classifier reads
  // as zeros (openvswitch/ovs v3.1.0 lib/packets.h pkt_metadata_init,
  // lib/flow.c miniflow_extract; checked with ovs-vswitchd 3.1.0, ovs-diff
  // case tunnel-fields-zero).
  const TunnelMetadata no_tunnel;
  const TunnelMetadata& tnl = md.tunnel.present ? md.tunnel : no_tunnel;
  if (tun_id && *tun_id != tnl.key) return false;
  if (tun_src && *tun_src != tnl.src) return false;
  if (tun_dst && *tun_dst != tnl.dst) return false;
  if ((md.ct_state & ct_state_mask) != ct_state_value) return false;
  if (ct_zone && *ct_zone != md.ct_zone) return false;
  return true;
}

Rule ParseRule(const std::string& text, const PortResolver& ports) {
  Rule r;
  r.text = text;
  size_t pos = text.find("actions=");
  if (pos == std::string::npos) throw Error("flow '" + text + "': missing actions=");
  std::string match = text.substr(0, pos), actions = text.substr(pos + 8);
  bool v6 = false;
  for (const std::string& f : SplitTopLevel(match, ',')) {
    size_t eq = f.find('=');
    std::string k = f.substr(0, eq), v = eq == std::string::npos ? "" : f.substr(eq + 1);
    auto proto = [&](uint16_t dl, uint8_t nw) {
      r.match.dl_type = dl;
      if (nw) r.match.nw_proto = nw;
    };
    if (k == "ip")
      proto(hdr::kEthTypeIpv4, 0);
    else if (k == "ipv6")
      proto(hdr::kEthTypeIpv6, 0);
    else if (k == "tcp")
      proto(hdr::kEthTypeIpv4, hdr::kProtoTcp);
    else if (k == "udp")
      proto(hdr::kEthTypeIpv4, hdr::kProtoUdp);
    else if (k == "sctp")
      proto(hdr::kEthTypeIpv4, hdr::kProtoSctp);
    else if (k == "icmp")
      proto(hdr::kEthTypeIpv4, hdr::kProtoIcmp);
    else if (k == "tcp6")
      proto(hdr::kEthTypeIpv6, hdr::kProtoTcp);
    else if (k == "udp6")
      proto(hdr::kEthTypeIpv6, hdr::kProtoUdp);
    else if (k == "sctp6")
      proto(hdr::kEthTypeIpv6, hdr::kProtoSctp);
    else if (k == "icmp6")
      proto(hdr::kEthTypeIpv6, hdr::kProtoIcmpv6);
    else if (k == "priority")
      r.priority = static_cast<int>(ParseNumber(v, 65535, k));
    else if (k == "table")
      r.match.table = static_cast<uint8_t>(ParseNumber(v, 254, k));
    else if (k == "in_port")
      r.match.in_port = ports(v);
    else if (k == "dl_type")
      r.match.dl_type = static_cast<uint16_t>(ParseNumber(v, 0xffff, k));
    else if (k == "nw_proto")
      r.match.nw_proto = static_cast<uint8_t>(ParseNumber(v, 255, k));
    else if (k == "nw_src" || k == "ipv6_src")
      r.match.nw_src = ParseIp(v, &v6);
    else if (k == "nw_dst" || k == "ipv6_dst")
      r.match.nw_dst = ParseIp(v, &v6);
    else if (k == "tp_src" || k == "tcp_src" || k == "udp_src")
      r.match.tp_src = static_cast<uint16_t>(ParseNumber(v, 65535, k));
    else if (k == "tp_dst" || k == "tcp_dst" || k == "udp_dst")
      r.match.tp_dst = static_cast<uint16_t>(ParseNumber(v, 65535, k));
    else if (k == "tun_id")
      r.match.tun_id = static_cast<uint32_t>(ParseNumber(v, 0xffffffff, k));
    else if (k == "tun_src" || k == "tun_ipv6_src")
      r.match.tun_src = ParseIp(v, &v6);
    else if (k == "tun_dst" || k == "tun_ipv6_dst")
      r.match.tun_dst = ParseIp(v, &v6);
    else if (k == "ct_state")
      flow_syntax::ParseCtState(v, r.match);
    else if (k == "ct_zone")
      r.match.ct_zone = static_cast<uint16_t>(ParseNumber(v, 65535, k));
    else
      throw Error("flow '" + text + "': unknown match field '" + k + "'");
  }
  for (const std::string& a : SplitTopLevel(actions, ','))
    r.actions.push_back(ParseAction(a, ports));
  if (r.actions.empty()) throw Error("flow '" + text + "': no actions");
  // ct() against its flow's match, as check_CT refuses it with
  // OFPBAC_MATCH_INCONSISTENT (openvswitch/ovs v3.1.0 lib/ofp-actions.c:6876-6889;
  // each checked with ovs-ofctl 3.1.0 parse-flow).
  for (const Action& a : r.actions) {
    if (a.type != ActionType::kCt) continue;
    const std::string bad = "flow '" + text + "': ct() ";
    if (r.match.dl_type != hdr::kEthTypeIpv4 && r.match.dl_type != hdr::kEthTypeIpv6)
      throw Error(bad + "needs an ip or ipv6 match");
    if (a.ct.commit && (r.match.ct_state_value & ct::kInvalid))
      throw Error(bad + "cannot commit a flow that matches ct_state +inv");
    if (a.ct.alg_ftp && r.match.nw_proto != hdr::kProtoTcp)
      throw Error(bad + "with alg=ftp needs a tcp match");
  }
  return r;
}

}  // namespace offlab
