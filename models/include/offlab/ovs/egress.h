// The egress path of netdev_send (OVS lib/netdev.c): the TSO policy (full or
// partial software segmentation depending on the device's capabilities)
// followed by send-prepare of every packet.
#pragma once

#include <cstdint>

#include "offlab/net/counters.h"
#include "offlab/net/packet.h"

namespace offlab {

// First match wins:
// 1. no TCP_TSO: full GSO of every TSO packet;
// 2. none of the tunnel TSO capabilities: full GSO of every TSO packet when one
//    of them is tunnelled;
// 3. no OUTER_UDP_CKSUM: partial GSO of VXLAN/Geneve TSO packets whose payload
//    is not a multiple of tso_segsz.
// Then SendPrepare(p, caps) on every packet. Packets whose partial checksums
// cannot be finished (OVS would assert) are dropped and counted as
// "offlab_send_prepare_errors"; `errors` receives one line per drop.
// OVS egress features the v4.0 checksum series added; both on in OVS 4.0.
// Turning one off reproduces the OVS before it, as measured in the series.
// Partial GSO hands the NIC TSO packets whose outer UDP checksum software
// already wrote; only the payload-independent checksum stays right in every
// segment the NIC cuts, so partial_gso needs udp_tunnel_csum (no OVS release
// had one without the other). NetdevSend treats partial_gso without
// udp_tunnel_csum as off; configurations reject it (CheckEgressOptions).
struct EgressOptions {
  bool udp_tunnel_csum = true;  // payload-independent outer UDP checksum
  bool partial_gso = true;      // rule 3; off: full GSO of those packets instead
};

// Throws offlab::Error for partial_gso without udp_tunnel_csum.
void CheckEgressOptions(const EgressOptions& options);

PacketBatch NetdevSend(PacketBatch batch, uint32_t caps, Counters* counters = nullptr,
                       std::vector<std::string>* errors = nullptr,
                       const EgressOptions& options = {});

// NetdevSend of a batch holding only `p`, which is not a TSO packet (no rule
// applies to it): send-prepare in place. Returns false if it was dropped.
bool NetdevSendOne(Packet& p, uint32_t caps, Counters* counters = nullptr,
                   std::vector<std::string>* errors = nullptr, const EgressOptions& options = {});

}  // namespace offlab
