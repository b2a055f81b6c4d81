// The header <-> skb conversions of include/linux/virtio_net.h at Linux
// v6.18 (cited from v6.18.19, 6952350/linux-6.18.y f3fce0151d48). The
// endpoints that call them are in virtio_net_endpoints.cc.
#include "offlab/linux/virtio_net.h"

#include <algorithm>
#include <cstdio>

#include "offlab/net/bytes.h"
#include "offlab/net/headers.h"

namespace offlab::kernel {

namespace {

constexpr uint16_t kEthPIp = hdr::kEthTypeIpv4;
constexpr uint16_t kEthPIpv6 = hdr::kEthTypeIpv6;

std::string Hex(unsigned v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%x", v);
  return b;
}

// eth_header_parse_protocol through dev_parse_header_protocol: the
// Ethernet type at the MAC header (0 when there is none to read).
uint16_t ParseHeaderProtocol(const SkBuff& skb) {
  if (skb.len() < hdr::kEthLen) return 0;
  return GetBe16(skb.pkt.data() + 12);
}

// virtio_net_hdr_match_proto (v6.18.19 include/linux/virtio_net.h:12-26).
bool MatchProto(uint16_t protocol, uint8_t gso_type) {
  switch (gso_type & ~VnetHdr::kGsoEcn) {
    case VnetHdr::kGsoTcpv4:
      return protocol == kEthPIp;
    case VnetHdr::kGsoTcpv6:
      return protocol == kEthPIpv6;
    case VnetHdr::kGsoUdp:
    case vnet::kGsoUdpL4:
      return protocol == kEthPIp || protocol == kEthPIpv6;
    default:
      return false;
  }
}

// virtio_net_hdr_set_proto (v6.18.19 include/linux/virtio_net.h:28-48): a
// protocol guessed from the GSO type when the frame names none.
uint16_t ProtoFromGsoType(uint8_t gso_type) {
  switch (gso_type & ~VnetHdr::kGsoEcn) {
    case VnetHdr::kGsoTcpv4:
    case VnetHdr::kGsoUdp:
    case vnet::kGsoUdpL4:
      return kEthPIp;
    case VnetHdr::kGsoTcpv6:
      return kEthPIpv6;
    default:
      return 0;
  }
}

// The TCP or UDP header length at `ofs` (the header's own for TCP).
size_t L4HeaderLen(const SkBuff& skb, uint16_t ofs, bool udp) {
  if (udp) return hdr::kUdpLen;
  if (ofs == kNoOffset || ofs + hdr::kTcpMinLen > skb.len()) return 0;
  return static_cast<size_t>(skb.pkt.data()[ofs + hdr::kTcpOffFlagsOfs] >> 4) * 4;
}

}  // namespace

size_t SkbHeadlenModel(const SkBuff& skb) {
  if (skb.nr_frags == 0 && !skb.has_frag_list()) return skb.len();
  if (skb.nr_frags == 0) {
    // A linear head with GRO's merged skbs on its frag_list: skb_gro_receive
    // chains each one there and adds its length to p->data_len (torvalds/linux
    // 0b1605e45c36 net/core/gro.c skb_gro_receive, labels merge and done), so
    // skb_headlen (len - data_len) is the first frame's linear bytes. Seen on
    // 6.18 as hdr_len 1054 for three merged 1054-byte segments written by an
    // AF_PACKET socket (linear skbs) and read from a TAP.
    size_t chained = 0;
    for (uint32_t m : skb.frag_list_lens) chained += m;
    return chained < skb.len() ? skb.len() - chained : skb.len();
  }
  const bool udp = skb.gso_type & (gso::kUdpL4 | gso::kUdp);
  const uint16_t th = skb.encapsulation ? skb.pkt.inner_l4_ofs : skb.pkt.l4_ofs;
  const size_t l4 = L4HeaderLen(skb, th, udp);
  if (th == kNoOffset || l4 == 0) return skb.len();
  return std::min(skb.len(), th + l4);
}

std::string VirtioNetHdrToSkb(SkBuff& skb, const VnetHdr& hdr, const VnetSkbContext& ctx,
                              std::optional<uint8_t> gso_type_override) {
  // v6.18.19 include/linux/virtio_net.h:50-201 __virtio_net_hdr_to_skb.
  const uint8_t hdr_gso_type = gso_type_override.value_or(hdr.gso_type);
  const size_t len = skb.len();
  size_t nh_min_len = hdr::kIpv4MinLen;
  uint32_t gso_type = 0;
  size_t thlen = 0;
  size_t p_off = 0;
  uint8_t ip_proto = 0;

  if (hdr_gso_type != VnetHdr::kGsoNone) {
    // :60-85 the GSO types a header can carry; anything else is -EINVAL.
    switch (hdr_gso_type & ~VnetHdr::kGsoEcn) {
      case VnetHdr::kGsoTcpv4:
        gso_type = gso::kTcpv4, ip_proto = hdr::kProtoTcp, thlen = hdr::kTcpMinLen;
        break;
      case VnetHdr::kGsoTcpv6:
        gso_type = gso::kTcpv6, ip_proto = hdr::kProtoTcp, thlen = hdr::kTcpMinLen;
        nh_min_len = hdr::kIpv6Len;
        break;
      case VnetHdr::kGsoUdp:
        gso_type = gso::kUdp, ip_proto = hdr::kProtoUdp, thlen = hdr::kUdpLen;
        break;
      case vnet::kGsoUdpL4:
        gso_type = gso::kUdpL4, ip_proto = hdr::kProtoUdp, thlen = hdr::kUdpLen;
        break;
      default:
        return "unknown gso_type " + Hex(hdr_gso_type);
    }
    // :87-91 ECN rides on any type; a GSO header needs a segment size.
    if (hdr_gso_type & VnetHdr::kGsoEcn) gso_type |= gso::kTcpEcn;
    if (hdr.gso_size == 0) return "gso_size 0 with gso_type " + Hex(hdr_gso_type);
  }

  // :94 skb_reset_mac_header: offsets count from the first byte given.
  if (hdr.flags & VnetHdr::kNeedsCsum) {
    // :96-112 the checksum field and a minimal transport header must be in
    // the packet (pskb_may_pull), skb_partial_csum_set must accept the
    // offsets, and the transport header must leave room for an IP header.
    const size_t start = hdr.csum_start;
    const size_t off = hdr.csum_offset;
    const size_t needed = start + std::max(thlen, off + 2);
    if (needed > len)
      return "csum_start " + std::to_string(start) + " + csum_offset " + std::to_string(off) +
             " beyond the packet (" + std::to_string(len) + " bytes)";
    // net/core/skbuff.c:5813-5828 skb_partial_csum_set: the field must be
    // in the linear area, which the pull above guarantees here.
    skb.ip_summed = IpSummed::kPartial;
    skb.csum_start = static_cast<uint16_t>(start);
    skb.csum_offset = static_cast<uint16_t>(off);
    skb.pkt.l4_ofs = static_cast<uint16_t>(start);
    if (start < nh_min_len)
      return "csum_start " + std::to_string(start) + " leaves no room for a network header";
    nh_min_len = start;
    p_off = nh_min_len + thlen;
    if (p_off > len) return "transport header beyond the packet";
  } else if (gso_type && ctx.network_header_set && skb.pkt.l3_ofs != kNoOffset) {
    // :113-149 GSO without NEEDS_CSUM has no transport offset: find it by
    // dissecting, after checking the header's type against the frame's.
    uint16_t protocol = ctx.protocol;
    if (protocol == 0) {
      const uint16_t parsed = ParseHeaderProtocol(skb);
      if (parsed == 0)
        protocol = ProtoFromGsoType(hdr_gso_type);
      else if (!MatchProto(parsed, hdr_gso_type))
        return "gso_type " + Hex(hdr_gso_type) + " does not match ethertype " + Hex(parsed);
      else
        protocol = parsed;
    }
    uint8_t found_proto = 0;
    uint16_t thoff = 0;
    bool ok = FlowDissectBasic(skb, protocol, skb.pkt.l3_ofs, &found_proto, &thoff);
    // :135-140 UFO does not say IPv4 or IPv6: the dissection is retried.
    if (!ok && (gso_type & gso::kUdp) && protocol == kEthPIp)
      ok = FlowDissectBasic(skb, kEthPIpv6, skb.pkt.l3_ofs, &found_proto, &thoff);
    if (!ok) return "headers cannot be dissected";
    p_off = static_cast<size_t>(thoff) + thlen;
    if (p_off > len || found_proto != ip_proto)
      return "transport protocol " + std::to_string(found_proto) + " does not match gso_type " +
             Hex(hdr_gso_type);
    skb.pkt.l4_ofs = thoff;
  } else if (gso_type) {
    // :150-154 no network header yet (TAP): only a minimal length check.
    p_off = nh_min_len + thlen;
    if (p_off > len) return "packet shorter than a minimal header for its gso_type";
  }

  if (hdr_gso_type != VnetHdr::kGsoNone) {
    // :157-198 per-type consistency, then the GSO fields for a packet that
    // is longer than one segment (the stack validates the rest: DODGY).
    const uint16_t gso_size = hdr.gso_size;
    size_t nh_off = p_off;
    switch (gso_type & ~gso::kTcpEcn) {
      case gso::kUdp:
        nh_off -= thlen;  // UFO's gso_size may exclude the UDP header
        break;
      case gso::kUdpL4:
        if (!(hdr.flags & VnetHdr::kNeedsCsum)) return "USO without NEEDS_CSUM";
        if (skb.csum_offset != hdr::kUdpCsumOfs) return "USO csum_offset is not the UDP check";
        if (len - p_off > static_cast<size_t>(gso_size) * kUdpMaxSegments)
          return "USO payload above UDP_MAX_SEGMENTS segments";
        if (gso_type != gso::kUdpL4) return "USO with ECN";
        break;
      case gso::kTcpv4:
      case gso::kTcpv6:
        if (skb.ip_summed == IpSummed::kPartial && skb.csum_offset != hdr::kTcpCsumOfs)
          return "TSO csum_offset is not the TCP check";
        break;
      default:
        break;
    }
    if (gso_size == kGsoByFrags) return "gso_size GSO_BY_FRAGS";
    if (len - nh_off > gso_size) {
      skb.gso_size = gso_size;
      skb.gso_type = gso_type | gso::kDodgy;
      skb.gso_segs = 0;
    }
  }
  return "";
}

std::string VirtioNetHdrTnlToSkb(SkBuff& skb, const VnetHdrTunnel& vhdr, bool tnl, bool tnl_csum,
                                 const VnetSkbContext& ctx) {
  // v6.18.19 include/linux/virtio_net.h:258-345 virtio_net_hdr_tnl_to_skb.
  const VnetHdr& hdr = vhdr.hdr;
  const uint8_t tunnel_type = hdr.gso_type & vnet::kGsoUdpTunnel;
  if (!tunnel_type) return VirtioNetHdrToSkb(skb, hdr, ctx);
  if (!tnl) return "UDP tunnel GSO not negotiated";                            // :276-278
  if (tunnel_type == vnet::kGsoUdpTunnel) return "both tunnel IPv4 and IPv6";  // :280-282
  // :284-288 a tunnel carries TCP or USO segments, never UFO.
  const uint8_t inner_type = hdr.gso_type & ~(VnetHdr::kGsoEcn | vnet::kGsoUdpTunnel);
  if (!inner_type || inner_type == VnetHdr::kGsoUdp)
    return "tunnel GSO without an inner TCP/USO type";
  if (!(hdr.flags & VnetHdr::kNeedsCsum)) return "tunnel GSO without NEEDS_CSUM";  // :290-292

  // :295-306 the offsets must leave room for each header in turn.
  const bool outer_v6 = tunnel_type & vnet::kGsoUdpTunnelIpv6;
  bool inner_v6 = inner_type == VnetHdr::kGsoTcpv6;
  size_t inner_l3min = inner_v6 ? hdr::kIpv6Len : hdr::kIpv4MinLen;
  const size_t outer_l3min = hdr::kEthLen + (outer_v6 ? hdr::kIpv6Len : hdr::kIpv4MinLen);
  const size_t inner_th = hdr.csum_start;
  const size_t inner_nh = vhdr.inner_nh_offset;
  const size_t outer_th = vhdr.outer_th_offset;
  if (outer_th < outer_l3min || inner_nh < outer_th + hdr::kUdpLen ||
      inner_th < inner_nh + inner_l3min)
    return "tunnel offsets out of order";

  // :308-312 the inner GSO type through the plain rules.
  std::string err =
      VirtioNetHdrToSkb(skb, hdr, ctx, static_cast<uint8_t>(hdr.gso_type & ~tunnel_type));
  if (!err.empty()) return err;

  // :314-326 USO does not say the inner IP version: read it.
  if (inner_type == vnet::kGsoUdpL4) {
    if (inner_nh >= skb.len()) return "inner network header beyond the packet";
    inner_v6 = (skb.pkt.data()[inner_nh] >> 4) == 6;
    inner_l3min = inner_v6 ? hdr::kIpv6Len : hdr::kIpv4MinLen;
    if (inner_th < inner_nh + inner_l3min)
      return "inner transport header inside the inner IP header";
  }
  // :330-337 the outer UDP checksum flag needs its feature.
  if (hdr.flags & vnet::kFlagUdpTunnelCsum) {
    if (!tnl_csum) return "UDP tunnel checksum not negotiated";
    skb.gso_type |= gso::kUdpTunnelCsum;
  } else {
    skb.gso_type |= gso::kUdpTunnel;
  }
  // :339-343 inner_mac_header is set to the inner network header.
  skb.pkt.inner_l4_ofs = static_cast<uint16_t>(inner_th);
  skb.pkt.inner_l3_ofs = static_cast<uint16_t>(inner_nh);
  skb.pkt.inner_l2_ofs = static_cast<uint16_t>(inner_nh);
  skb.pkt.l4_ofs = static_cast<uint16_t>(outer_th);
  skb.encapsulation = true;
  return "";
}

std::string VirtioNetHdrFromSkb(const SkBuff& skb, bool has_data_valid, VnetHdr* out,
                                int vlan_hlen) {
  // v6.18.19 include/linux/virtio_net.h:210-251 virtio_net_hdr_from_skb.
  *out = VnetHdr{};
  if (skb.is_gso()) {
    // :221-235 hdr_len is a hint of the linear length (skb_headlen).
    out->hdr_len = static_cast<uint16_t>(SkbHeadlenModel(skb));
    out->gso_size = skb.gso_size;
    if (skb.gso_type & gso::kTcpv4)
      out->gso_type = VnetHdr::kGsoTcpv4;
    else if (skb.gso_type & gso::kTcpv6)
      out->gso_type = VnetHdr::kGsoTcpv6;
    else if (skb.gso_type & gso::kUdpL4)
      out->gso_type = vnet::kGsoUdpL4;
    else
      return "GSO type " + GsoTypeToString(skb.gso_type) + " has no virtio-net header form";
    if (skb.gso_type & gso::kTcpEcn) out->gso_type |= VnetHdr::kGsoEcn;
  }
  // :239-248 PARTIAL is handed on as NEEDS_CSUM; a verified checksum only
  // when the reader understands DATA_VALID; NONE and COMPLETE say nothing.
  if (skb.ip_summed == IpSummed::kPartial) {
    out->flags = VnetHdr::kNeedsCsum;
    out->csum_start = static_cast<uint16_t>(skb.csum_start + vlan_hlen);
    out->csum_offset = skb.csum_offset;
  } else if (has_data_valid && skb.ip_summed == IpSummed::kUnnecessary) {
    out->flags = VnetHdr::kDataValid;
  }
  return "";
}

std::string VirtioNetHdrTnlFromSkb(const SkBuff& skb, bool tnl, bool has_data_valid,
                                   VnetHdrTunnel* out, int vlan_hlen) {
  // v6.18.19 include/linux/virtio_net.h:382-430 virtio_net_hdr_tnl_from_skb.
  *out = VnetHdrTunnel{};
  const uint32_t tnl_gso = skb.gso_type & (gso::kUdpTunnel | gso::kUdpTunnelCsum);
  if (!tnl_gso) return VirtioNetHdrFromSkb(skb, has_data_valid, &out->hdr, vlan_hlen);
  if (!tnl) return "UDP tunnel GSO skb but the tunnel header is not negotiated";  // :401-403
  // :410-415 the inner type through the plain rules, never DATA_VALID.
  SkBuff inner_view = skb;
  inner_view.gso_type &= ~tnl_gso;
  std::string err = VirtioNetHdrFromSkb(inner_view, false, &out->hdr, vlan_hlen);
  if (!err.empty()) return err;
  // :417-420 the outer family comes from skb->protocol.
  const uint16_t protocol = ParseHeaderProtocol(skb);
  out->hdr.gso_type |= protocol == kEthPIpv6 ? vnet::kGsoUdpTunnelIpv6 : vnet::kGsoUdpTunnelIpv4;
  if (skb.gso_type & gso::kUdpTunnelCsum) out->hdr.flags |= vnet::kFlagUdpTunnelCsum;  // :422-423
  // :425-428 offsets of the inner network and outer transport headers.
  out->inner_nh_offset = skb.pkt.inner_l3_ofs == kNoOffset ? 0 : skb.pkt.inner_l3_ofs;
  out->outer_th_offset = skb.pkt.l4_ofs == kNoOffset ? 0 : skb.pkt.l4_ofs;
  return "";
}

}  // namespace offlab::kernel
