// Header field writes under rule M (OVS lib/packets.c, lib/odp-execute.c):
// when a field covered by checksum C changes, a valid C (good or partial)
// becomes partial with its bytes untouched; an unknown or bad C is updated
// incrementally (RFC 1624), which keeps a correct checksum correct and a
// wrong one wrong by the same error. All writes act on the outermost headers
// as located by the last Parse(); a packet without the header is unchanged.
#pragma once

#include <optional>

#include "offlab/net/packet.h"
#include "offlab/ovs/parse.h"

namespace offlab {

struct Ipv4Set {
  std::optional<std::array<uint8_t, 4>> src, dst;
  std::optional<uint8_t> tos, ttl;
  uint8_t tos_mask = 0xff;  // the bits of `tos` written (mod_nw_tos: the DSCP bits only)
};
struct Ipv6Set {
  std::optional<IpAddr> src, dst;
  std::optional<uint8_t> tclass, hlimit;
  std::optional<uint32_t> flow_label;
  uint8_t tclass_mask = 0xff;  // the bits of `tclass` written (mod_nw_tos: the DSCP bits only)
};

// Each returns true if the packet had the header and it was written.
bool SetEth(Packet& p, const std::optional<MacAddr>& src, const std::optional<MacAddr>& dst);
bool SetIpv4(Packet& p, const Ipv4Set& s);
bool SetIpv6(Packet& p, const Ipv6Set& s);
// TCP, UDP or SCTP ports, whichever the packet carries.
bool SetL4Ports(Packet& p, std::optional<uint16_t> src, std::optional<uint16_t> dst);
// IP_ECN_set_ce: marks Congestion Experienced if the packet is ECN-capable.
bool SetEcnCe(Packet& p);
// IPv6 neighbour discovery (ICMPv6 type 135/136), which has no offload status:
// SetNd (packet_set_nd) updates the ICMPv6 checksum incrementally for a new
// target or link-layer address option; SetNdExt (packet_set_nd_ext) rewrites the
// reserved/flags word or the option type and recomputes the checksum in full.
bool SetNd(Packet& p, const std::optional<IpAddr>& target, const std::optional<MacAddr>& ll);
bool SetNdExt(Packet& p, std::optional<uint32_t> reserved, std::optional<uint8_t> option_type);

// Decrements the IPv4 TTL / IPv6 hop limit; false if it would reach zero.
bool DecTtl(Packet& p);

// The L4 checksum update for a 16-bit or 32-bit pseudo-header/port word that
// changed, per rule M; shared by NAT.
void UpdateL4Word(Packet& p, uint8_t nw_proto, uint8_t* l4, size_t l4_len, const uint8_t* old_b,
                  const uint8_t* new_b, size_t len, bool pseudo_header_field);

}  // namespace offlab
