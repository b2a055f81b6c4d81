// The Geneve socket's GRO hooks (geneve_gro_receive / geneve_gro_complete,
// drivers/net/geneve.c), called by udp_gro_receive / udp_gro_complete
// (gro_udp.cc) for a destination port with a GroGeneveSocket.
#pragma once

#include <cstddef>
#include <cstdint>

#include "offlab/linux/gro_cb.h"

namespace offlab::kernel {

// The configured Geneve socket for `port`, or null; also null on kernels
// whose Geneve socket had no GRO hook (before v4.0, RHEL 7 excepted).
const GroGeneveSocket* FindGeneveSocket(const GroConfig& cfg, uint16_t port);

// geneve_gro_receive with skb's GRO offset at the Geneve header.
GroPacket* GeneveGroReceive(GroList& head, GroPacket& skb, GroCtx& ctx);

// geneve_gro_complete for the Geneve header at absolute `nhoff`.
bool GeneveGroComplete(GroPacket& skb, size_t nhoff, const GroCtx& ctx);

}  // namespace offlab::kernel
