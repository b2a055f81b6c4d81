// Egress checksum preparation (OVS dp_packet_ol_send_prepare and
// packet_udp_tunnel_csum, lib/dp-packet.c, lib/packets.c): every partial
// checksum is either computed here or left partial for a NIC that advertised
// the capability in `caps` (cap:: bits).
#pragma once

#include <cstdint>

#include "offlab/net/packet.h"

namespace offlab {

// Throws offlab::Error for a partial checksum the datapath cannot complete
// (no header at the recorded offset, unknown L4 protocol) - OVS asserts there.
// `udp_tunnel_csum` false: OVS before the payload-independent outer UDP
// checksum (v4.0 series, "Outer UDP checksum optimisation"): inner checksums
// and the outer UDP checksum are all computed over the bytes in software.
void SendPrepare(Packet& p, uint32_t caps, bool udp_tunnel_csum = true);

// The payload-independent outer UDP checksum of a VXLAN/Geneve packet whose
// inner checksums are still partial: outer pseudo-header + outer UDP header
// through the inner Ethernet header + the inner IP header (nothing for a valid
// IPv4 header, which sums to -0) + the complement of the inner pseudo-header
// sum, which is what the finished inner L4 segment will sum to. Under TSO the
// lengths are those of one tso_segsz segment, so every hardware segment
// carries the same correct checksum. Returns false (packet unchanged) when the
// preconditions do not hold; on success the outer L4 status is good.
bool UdpTunnelCsum(Packet& p);

}  // namespace offlab
