// Software segmentation of TSO packets (OVS lib/dp-packet-gso.c).
#pragma once

#include "offlab/net/counters.h"
#include "offlab/net/packet.h"

namespace offlab {

// Full software GSO: one packet per tso_segsz of (inner) TCP payload. Every
// IPv4 header gets its length, ip_id + segment number, a zero checksum and a
// partial status (whatever it was before); IPv6 gets its payload length; the
// (inner) TCP gets its sequence number and a partial status, PSH/FIN only on
// the last segment; the outer UDP length is rewritten and its status kept;
// a GRE checksum is recomputed in software. Counts "dp_packet_gso".
// A packet that is not TSO is returned unchanged.
PacketBatch Gso(const Packet& p, Counters* counters = nullptr);

// 2 when a VXLAN/Geneve TSO packet with a partial outer UDP checksum has an
// inner payload that is not a multiple of tso_segsz (the hardware could not
// give every segment the same outer checksum), else 1.
int GsoPartialNrSegs(const Packet& p);

// Partial GSO: splits the short tail segment off in software; the original
// keeps (n-1)*tso_segsz bytes of payload for hardware TSO (tso_segsz 0 when
// that is a single segment). Counts "dp_packet_partial_gso".
PacketBatch GsoPartial(const Packet& p, Counters* counters = nullptr);

}  // namespace offlab
