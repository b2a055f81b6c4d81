// Software completion of checksums: what the datapath does for a partial
// checksum when the NIC cannot. Each writes the full checksum from scratch and
// sets the status good.
#pragma once

#include <cstdint>

#include "offlab/net/packet.h"

namespace offlab {

// IP protocol number of the header at `l4_ofs` for the IP header at `l3_ofs`
// (walks IPv6 extension headers); -1 if unknown.
int UpperProtocol(const Packet& p, uint16_t l3_ofs, uint16_t l4_ofs);

// L4 segment length from the IP header's length fields (not the frame size,
// which may include Ethernet padding), clamped to the buffer.
size_t L4Length(const Packet& p, uint16_t l3_ofs, uint16_t l4_ofs);

// Unfolded pseudo-header sum for the IP header at `l3_ofs`.
uint64_t PseudoHeaderSum(const Packet& p, uint16_t l3_ofs, uint8_t proto, uint32_t l4_len);

// dp_packet_ip_set_header_csum: writes the IPv4 header checksum if the header
// fits, then marks the status good.
void CompleteIpCsum(Packet& p, Level level);

// Full TCP/UDP/SCTP checksum of the (outer or inner) L4 segment. A UDP field
// of 0 ("no checksum") is left as is; a computed UDP 0 is sent as 0xffff.
void CompleteL4Csum(Packet& p, Level level, L4Proto proto);

}  // namespace offlab
