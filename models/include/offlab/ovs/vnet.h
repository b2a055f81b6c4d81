// The virtio-net header exchanged with a tap device (OVS lib/netdev-linux.c
// netdev_linux_parse_vnet_hdr / netdev_linux_prepend_vnet_hdr; Linux
// include/uapi/linux/virtio_net.h), and what the kernel does with it on
// transmit.
#pragma once

#include <cstdint>

#include "offlab/net/counters.h"
#include "offlab/net/packet.h"
#include "offlab/net/virtio_net_hdr.h"

namespace offlab {

// RX: applies a received header to a parsed packet. NEEDS_CSUM whose start is
// the L4 offset and whose offset is that protocol's checksum field makes L4
// partial; any other NEEDS_CSUM is completed in software at start+offset (L4
// good for TCP/UDP/SCTP, "netdev_linux_unknown_l4_csum"), or the packet is
// dropped when the offsets are out of range ("netdev_linux_invalid_l4_csum").
// DATA_VALID is ignored (unknown). GSO TCPv4/v6 sets tso_segsz. Returns false
// when the packet must be dropped.
bool VnetReceive(Packet& p, const VnetHdr& h, Counters* counters = nullptr);

// TX: the header for a packet leaving through a tap. L4 good (inner too if
// tunnelled) -> DATA_VALID; (inner) L4 partial TCP/UDP -> the pseudo-header
// sum is seeded into the checksum field and NEEDS_CSUM set; else no flags.
VnetHdr VnetTransmit(Packet& p);

// What the kernel/NIC does with NEEDS_CSUM: folds everything from csum_start
// (seed included) and stores the complement at csum_start + csum_offset.
void VnetCompleteCsum(Packet& p, const VnetHdr& h);

}  // namespace offlab
