// Flow extraction as the datapath does it (OVS miniflow_extract and the
// simple-match parse_tcp_flags): set the layer offsets and the L4 protocol
// bits, never a checksum status. Truncated or malformed headers stop parsing
// at the last complete layer; nothing is read past the buffer.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "offlab/net/addr.h"
#include "offlab/net/packet.h"

namespace offlab {

namespace frag {
constexpr uint8_t kAny = 1 << 0;    // the packet is a fragment
constexpr uint8_t kLater = 1 << 1;  // ... and not the first one
}  // namespace frag

struct FlowKey {
  MacAddr dl_dst{}, dl_src{};
  uint16_t dl_type = 0;
  bool has_vlan = false;
  uint16_t vlan_tci = 0;
  bool has_l3 = false;  // a complete IPv4/IPv6 header
  bool ipv6 = false;
  IpAddr nw_src{}, nw_dst{};
  uint8_t nw_proto = 0, nw_tos = 0, nw_ttl = 0, nw_frag = 0;
  bool has_l4 = false;              // a complete TCP/UDP/SCTP/ICMP header
  uint16_t tp_src = 0, tp_dst = 0;  // ICMP: type, code
  uint16_t tcp_flags = 0;
  std::string error;  // why parsing stopped early, empty when it did not

  std::string ToString() const;
};

// miniflow_extract. For a packet already marked tunnelled (re-parse after
// encapsulation, e.g. recirculation), only the outer offsets are recomputed.
FlowKey Parse(Packet& p);

// parse_tcp_flags: the simple-match fast path; fills dl_type, nw_proto,
// tcp_flags, the offsets and the L4 protocol.
FlowKey ParseSimple(Packet& p);

// Parses the L3/L4 headers of an encapsulated frame starting at `l2_ofs` and
// sets inner_l2/l3/l4 offsets and the inner L4 protocol. Returns false if the
// inner frame has no complete L3 header.
bool ParseInner(Packet& p, uint16_t l2_ofs);

}  // namespace offlab
