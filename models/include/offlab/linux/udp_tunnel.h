// UDP tunnel transmit as the kernel builds it for VXLAN (and other UDP
// encapsulations): iptunnel_handle_offloads, the outer UDP checksum
// (udp_set_csum / udp6_set_csum, with local checksum offload lco_csum), and
// the outer IPv4/IPv6 header of iptunnel_xmit / udp_tunnel6_xmit_skb, on
// SkBuff's real bytes. Rules from torvalds/linux (lab kernel 6.18), with the
// pre-4.6 behaviour (before local checksum offload) selected by
// KernelVersion.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "offlab/linux/features.h"
#include "offlab/linux/skb.h"
#include "offlab/linux/stack_rx.h"
#include "offlab/linux/version.h"

namespace offlab::kernel {

// iptunnel_handle_offloads (net/ipv4/ip_tunnel_core.c) on the skb about to
// be encapsulated, whose front is the inner packet: the first encapsulation
// records the inner offsets and sets skb->encapsulation; a GSO skb gets
// `gso_type_mask` added; a non-GSO skb not CHECKSUM_PARTIAL becomes NONE
// with encapsulation cleared, so an outer PARTIAL is not mistaken for an
// inner one. Before v4.6 the caller's `csum_help` (its outer UDP checksum
// being on) also resolved a PARTIAL inner checksum in software
// (skb_checksum_help) and cleared encapsulation.
void IptunnelHandleOffloads(SkBuff& skb, uint32_t gso_type_mask, bool csum_help, KernelVersion kv);

// lco_csum (include/linux/skbuff.h): the sum the outer checksum must cover
// for a packet whose inner checksum the device will still fill in: the
// bytes from the outer L4 header (`l4_ofs`) up to csum_start, plus the
// complement of the pseudo-header sum held in the inner checksum field
// (what the finished inner packet from csum_start on will sum to).
uint64_t LcoCsum(const SkBuff& skb, uint16_t l4_ofs);

// __skb_push with SkBuff's MAC-relative offsets: the bytes, every layer
// offset, csum_start and csum_from move by `n`.
uint8_t* SkbPushFront(SkBuff& skb, size_t n);

// udp_set_csum / udp6_set_csum for the UDP header at skb.pkt.l4_ofs (whose
// length field is set), the IP addresses taken from the header at
// skb.pkt.l3_ofs (written already or not: pass them). `nocheck` -> 0. GSO ->
// the folded pseudo-header for segmentation. v4.6+: PARTIAL -> LCO value
// (never 0); otherwise PARTIAL over the outer UDP with the pseudo-header sum
// in the field. Before v4.6: the device (`dev_features` having a checksum
// feature of the family) gets PARTIAL, else the full checksum is summed in
// software and the skb is UNNECESSARY.
void UdpSetCsum(SkBuff& skb, bool ipv6, const uint8_t* saddr, const uint8_t* daddr, bool nocheck,
                uint64_t dev_features, KernelVersion kv);

// The outer headers of one UDP tunnel packet.
struct UdpTunnelHeader {
  bool ipv6 = false;
  std::array<uint8_t, 16> saddr{}, daddr{};  // IPv4 uses the first 4 bytes
  uint16_t sport = 0, dport = 0;
  uint8_t tos = 0;                              // IPv4 TOS / IPv6 traffic class
  uint8_t ttl = 64;                             // TTL / hop limit
  bool df = false;                              // IPv4 DF bit
  uint16_t ip_id = 0;                           // IPv4 ID as __ip_select_ident chose it
  uint32_t flowlabel = 0;                       // IPv6 flow label (20 bits)
  bool nocheck = false;                         // send a zero UDP checksum
  std::array<uint8_t, 6> src_mac{}, dst_mac{};  // the underlay's Ethernet header
};

// udp_tunnel_xmit_skb + iptunnel_xmit (IPv4) or udp_tunnel6_xmit_skb +
// ip6tunnel_xmit (IPv6), then the underlay's Ethernet header: pushes UDP,
// sets its checksum (UdpSetCsum), pushes the IP header (tot_len / payload
// length and the IPv4 header checksum as ip_local_out writes them) and the
// MAC header. Layer offsets of the result are the outer ones; the inner
// offsets move with the bytes.
void UdpTunnelXmitSkb(SkBuff& skb, const UdpTunnelHeader& h, uint64_t dev_features,
                      KernelVersion kv);

// The outer frame's way to a UDP tunnel socket (setup_udp_tunnel_sock:
// encap_type set, checksum conversion on) bound to `dstport`: Ethernet pull,
// IP receive, local delivery, then UDP receive with the socket's checksum
// rules (the check before encap_rcv). Fills `ip`; returns the drop reason,
// or "" when the tunnel's encap_rcv gets the skb (skb->data at the UDP
// header, ip->l4_ofs). Shared by the VXLAN and Geneve receive paths.
std::string UdpTunnelSockRcv(SkBuff& skb, bool ipv6, uint16_t dstport, bool no_check6_rx,
                             KernelVersion kv, Counters* c, IpRcvInfo* ip);

}  // namespace offlab::kernel
