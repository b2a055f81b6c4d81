// Native tunnel encapsulation and decapsulation (OVS lib/netdev.c
// netdev_push_header, lib/netdev-native-tnl.c): VXLAN, Geneve and GRE over an
// IPv4 or IPv6 underlay, with or without the outer UDP / GRE checksum.
#pragma once

#include <optional>

#include "offlab/net/counters.h"
#include "offlab/net/packet.h"
#include "offlab/ovs/parse.h"

namespace offlab {

struct TunnelConfig {
  TunnelType type = TunnelType::kVxlan;
  bool ipv6 = false;  // underlay
  MacAddr eth_src{}, eth_dst{};
  IpAddr ip_src{}, ip_dst{};
  uint8_t ttl = 64, tos = 0;
  bool df = true;
  uint16_t udp_src = 0;  // 0: from the inner flow hash in [32768, 61000)
  uint16_t udp_dst = 0;  // 0: 4789 (VXLAN) or 6081 (Geneve)
  // Outer UDP (or GRE) checksum; unset means OVS's default: on for IPv6 UDP
  // tunnels, off for GRE and IPv4 UDP tunnels.
  std::optional<bool> csum;
  uint32_t key = 0;      // VNI or GRE key
  bool gre_key = true;   // GRE K bit
  bool gre_seq = false;  // GRE S bit
  Bytes geneve_options;  // encoded TLVs, a multiple of 4 bytes

  bool csum_enabled() const { return csum.value_or(ipv6 && type != TunnelType::kGre); }
  // Throws offlab::Error naming a bad field (e.g. Geneve options not 4-aligned).
  void Validate() const;
};

// Encapsulates every packet of the batch in place. Packets that cannot be
// encapsulated are removed and counted ("netdev_push_header_drops"). A batch
// holding an already tunnelled TSO packet is segmented in software first;
// already tunnelled packets have every partial checksum finished first.
void PushHeader(PacketBatch& batch, const TunnelConfig& cfg, Counters* counters = nullptr);

// Validates the outer checksums as OVS decap does (bad: drop; unknown: check
// in software; valid: trust), strips the outer headers, records the tunnel
// metadata and resets the offloads word. Returns false (packet to be dropped)
// with `why` set when validation fails or the headers are malformed. The
// outer layers must have been located by Parse().
bool PopHeader(Packet& p, Counters* counters = nullptr, std::string* why = nullptr);

// Encapsulations without tunnel offload bits (reference §1.1 "GTP-U / ERSPAN /
// SRv6 push"). netdev_push_header finishes every partial first
// (send_prepare(p, 0)); then GTP-U (IPv4/UDP 2152 + GTP-U, inner IP packet)
// sets the L4 protocol to UDP with a partial L4 status and no shift; ERSPAN
// (type II over GRE, inner Ethernet) and SRv6 (IPv6 + segment routing header,
// inner IP packet) change only the IP status: partial for an IPv4 outer header,
// unknown for IPv6.
enum class PlainEncap : uint8_t { kGtpu, kErspan, kSrv6 };
struct PlainEncapConfig {
  PlainEncap kind = PlainEncap::kGtpu;
  MacAddr eth_src{}, eth_dst{};
  IpAddr ip_src{}, ip_dst{};  // IPv4 for GTP-U; IPv4 or IPv6 for ERSPAN; IPv6 for SRv6
  bool ipv6 = false;
  uint32_t key = 0;  // GTP-U TEID, ERSPAN session id (10 bits)
  IpAddr segment{};  // SRv6: the one segment in the SRH
};
// Returns false for a TSO packet, which these types cannot segment: the
// datapath drops it ("netdev_push_header_drops"). Throws offlab::Error for a
// configuration the encapsulation cannot carry, or a packet without the inner
// header it needs.
bool PushPlainEncap(Packet& p, const PlainEncapConfig& cfg, Counters* counters = nullptr);

// Recognises a frame the datapath would decapsulate (UDP to 4789/6081, GRE).
TunnelType DetectTunnel(const Packet& p);

// Offset of the encapsulated Ethernet header of a parsed tunnel frame, or
// kNoOffset when the tunnel header is truncated or malformed.
uint16_t TunnelInnerOffset(const Packet& p);
// The same when the caller has DetectTunnel(p) already: `type`.
uint16_t TunnelInnerOffset(const Packet& p, TunnelType type);

}  // namespace offlab
