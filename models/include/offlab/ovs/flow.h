// Flow rules: a match on the packet and its metadata, and a list of actions,
// written in a subset of ovs-ofctl syntax, e.g.
//   "in_port=p1,tcp,tp_dst=5201,actions=mod_tp_dst:2222,output:t1"
// As in ovs-ofctl, a bare port name or number is an output action and the
// reserved ports NORMAL, FLOOD, ALL and IN_PORT are actions too
// (openvswitch/ovs v3.1.0 lib/ofp-actions.c:9291-9310, ofpacts_parse_action).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "offlab/net/addr.h"
#include "offlab/net/packet.h"
#include "offlab/ovs/parse.h"
#include "offlab/ovs/rewrite.h"

namespace offlab {

struct Match {
  uint8_t table = 0;
  std::optional<uint32_t> in_port;
  std::optional<uint16_t> dl_type;
  std::optional<uint8_t> nw_proto;
  std::optional<IpAddr> nw_src, nw_dst;
  std::optional<uint16_t> tp_src, tp_dst;
  std::optional<uint32_t> tun_id;
  std::optional<IpAddr> tun_src, tun_dst;
  uint32_t ct_state_mask = 0, ct_state_value = 0;
  std::optional<uint16_t> ct_zone;

  // True if only in_port (and dl_type) are matched: eligible for the
  // datapath's simple-match fast path.
  bool simple() const;
  bool Matches(const FlowKey& key, const PacketMetadata& md) const;
};

struct NatSpec {
  bool enabled = false;
  bool snat = false;  // else dnat
  std::optional<IpAddr> addr;
  bool ipv6 = false;
  std::optional<uint16_t> port;
};

struct CtSpec {
  bool commit = false;
  uint16_t zone = 0;
  std::optional<uint8_t> table;  // recirculate into this table afterwards
  NatSpec nat;
  bool alg_ftp = false;  // alg=ftp: translate PORT commands on the control connection
};

enum class ActionType : uint8_t {
  kOutput,
  kSetEth,
  kSetIpv4,
  kSetIpv6,
  kSetIpAny,  // IPv4 or IPv6, whichever the packet carries (mod_nw_tos, mod_nw_ttl)
  kSetL4Ports,
  kDecTtl,
  kSetEcnCe,
  kTnlPush,  // encapsulate in place for tunnel port `port`; later actions see the result
  kTnlPop,
  kCt,
  kRecirc,      // re-parse and look up again in `table`
  kResubmit,    // look up in `table` without re-parsing
  kController,  // upcall to the controller: every partial is finished first
  kDrop,
  kNormal,  // the MAC-learning switch (OFPP_NORMAL)
  kFlood,   // every port but the input port (OFPP_FLOOD; OFPP_ALL here too)
  kInPort,  // back out of the input port (OFPP_IN_PORT)
};

struct Action {
  ActionType type = ActionType::kDrop;
  uint32_t port = 0;  // output, tnl_pop
  uint8_t table = 0;  // recirc, resubmit
  std::optional<MacAddr> eth_src, eth_dst;
  Ipv4Set ipv4;
  Ipv6Set ipv6;
  std::optional<uint16_t> tp_src, tp_dst;
  CtSpec ct;
};

struct Rule {
  int priority = 32768;
  Match match;
  std::vector<Action> actions;
  std::string text;  // as written
};

// Resolves a port name or number to an ofport; throws offlab::Error if unknown.
using PortResolver = std::function<uint32_t(const std::string&)>;

// Parses one rule; throws offlab::Error naming the offending token.
Rule ParseRule(const std::string& text, const PortResolver& ports);

// "192.168.1.1" or "2001:db8::1" into an IpAddr; sets *ipv6. Throws on error.

}  // namespace offlab
