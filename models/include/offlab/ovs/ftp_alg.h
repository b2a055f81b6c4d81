// The FTP application-level gateway's packet rewrite (OVS lib/conntrack.c,
// FTP ALG): a client's "PORT h1,h2,h3,h4,p1,p2" command carries its address,
// which source NAT must translate inside the TCP payload. Reference §1.1 "FTP
// ALG TCP checksum": if the L4 checksum is valid it becomes partial (bytes
// untouched); otherwise it is recomputed in full.
#pragma once

#include <array>
#include <cstdint>

#include "offlab/net/packet.h"

namespace offlab {

// Rewrites the address of a PORT command in a parsed IPv4 TCP packet's payload
// to `addr`, resizing the packet and fixing the IPv4 total length under rule M.
// Returns the payload length change (0 when there is no PORT command).
int FtpRewritePort(Packet& p, const std::array<uint8_t, 4>& addr);

// Moves the TCP sequence (delta applied to seq) or acknowledgement number of a
// packet on a connection whose payload grew or shrank earlier, under rule M.
void FtpAdjustSeq(Packet& p, int32_t seq_delta, int32_t ack_delta);

}  // namespace offlab
