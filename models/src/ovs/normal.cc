// The reserved-port actions NORMAL, FLOOD/ALL and IN_PORT of the pipeline.
//
// NORMAL is the MAC-learning switch of ofproto-dpif's xlate_normal() for a
// bridge with the defaults of a dummy test bridge: no VLAN configuration, no
// bonds, no mirrors, multicast snooping off (openvswitch/ovs v3.1.0
// ofproto/ofproto-dpif-xlate.c:3003-3224).
#include <algorithm>
#include <cstdint>
#include <iterator>

#include "offlab/ovs/pipeline.h"

namespace offlab {

namespace {

bool IsMulticast(const uint8_t* mac) { return mac[0] & 1; }

// eth_addr_is_reserved(): IEEE 802.1 link-local groups, Extreme's and Cisco's
// protocol addresses (v3.1.0 lib/packets.c:107-175); is_admissible() drops
// frames to them unless other_config:forward-bpdu, off on a new bridge
// (ofproto-dpif-xlate.c:2596-2602).
bool IsReserved(const uint8_t* mac) {
  uint64_t v = 0;
  for (int i = 0; i < 6; i++) v = (v << 8) | mac[i];
  if (v >= 0x0180c2000000ULL && v <= 0x0180c200000fULL) return true;
  if (v >= 0x01000cccccc0ULL && v <= 0x01000cccccc7ULL) return true;
  static constexpr uint64_t kOthers[] = {0x00e02b000000ULL, 0x00e02b000004ULL, 0x00e02b000006ULL,
                                         0x01000c000000ULL, 0x01000cccccccULL, 0x01000ccccccdULL,
                                         0x01000ccdcdcdULL};
  return std::find(std::begin(kOthers), std::end(kOthers), v) != std::end(kOthers);
}

}  // namespace

void Pipeline::Flood(const Packet& p, int depth) {
  // flood_packets()/xlate_normal_flood(): every port but the input port, in
  // port number order (a frame per port; the order between ports is not
  // observable on a port's own wire).
  for (const auto& [n, port] : ports_) {
    if (n != p.md.in_port) Output(n, p, depth);
  }
}

void Pipeline::Normal(const Packet& p, int depth) {
  if (p.size() < 14) return;
  const uint8_t* eth = p.data();
  const uint8_t* dst = eth;
  const uint8_t* src = eth + 6;
  // is_admissible(): reserved multicast destinations are dropped.
  if (IsReserved(dst)) {
    events_.push_back("drop: NORMAL: reserved destination MAC");
    return;
  }
  // update_learning_table(): a multicast source is never learned
  // (mac_learning_may_learn(), v3.1.0 lib/mac-learning.c:323-327).
  MacAddr s;
  std::copy(src, src + 6, s.begin());
  if (!IsMulticast(src)) mac_table_[s] = p.md.in_port;
  if (IsMulticast(dst)) {
    Flood(p, depth);
    return;
  }
  MacAddr d;
  std::copy(dst, dst + 6, d.begin());
  auto it = mac_table_.find(d);
  if (it == mac_table_.end()) {
    Flood(p, depth);  // "no learned MAC for destination, flooding"
  } else if (it->second == p.md.in_port) {
    events_.push_back("drop: NORMAL: learned port is input port");
  } else {
    Output(it->second, p, depth);  // "forwarding to learned port"
  }
}

}  // namespace offlab
