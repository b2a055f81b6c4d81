#include "offlab/linux/ovs_dp.h"

#include <cstring>
#include <utility>

#include "offlab/linux/ovs_actions_csum.h"
#include "offlab/net/bytes.h"
#include "offlab/net/headers.h"

namespace offlab::kernel {

namespace {

bool IsVlanType(uint16_t t) { return t == hdr::kEthTypeVlan || t == hdr::kEthTypeQinQ; }

// ipv6_ext_hdr (include/net/ipv6.h).
bool Ipv6ExtHdr(uint8_t nh) {
  return nh == 0 || nh == 43 || nh == 44 || nh == 51 || nh == 59 || nh == 60;
}

// skb_vlan_untag (net/core/skbuff.c), reached from __netif_receive_skb_core
// when skb->protocol is a VLAN type and no tag is held out of band: the tag
// moves to vlan_proto/vlan_tci, the 4 bytes leave the frame
// (skb_reorder_vlan_header) and skb_pull_rcsum takes the TCI and the inner
// type out of a COMPLETE sum that started behind the MAC header.
void CoreVlanUntag(OvsSkb& s) {
  SkBuff& skb = s.skb;
  if (s.vlan.present || skb.len() < hdr::kEthLen + hdr::kVlanLen) return;
  uint8_t* d = skb.pkt.data();
  const uint16_t tpid = GetBe16(d + 12);
  if (!IsVlanType(tpid)) return;
  // The whole TCI is kept (__vlan_hwaccel_put_tag), DEI bit included.
  s.vlan = {true, tpid, GetBe16(d + 14)};
  if (skb.ip_summed == IpSummed::kComplete) {
    if (skb.csum_from == 14) {
      RcsumPull(skb, 14, 4);  // data stays at the (new) network header
    } else if (skb.csum_from <= 12) {
      RcsumPull(skb, 12, 4);  // TPID and TCI leave the covered bytes
    } else if (skb.csum_from >= 18) {
      skb.csum_from = static_cast<uint16_t>(skb.csum_from - 4);
    } else {
      // skb->data inside the tag: not a state the kernel reaches.
      skb.ip_summed = IpSummed::kNone;
    }
  } else if (skb.csum_from >= 18) {
    skb.csum_from = static_cast<uint16_t>(skb.csum_from - 4);
  }
  // Remove bytes [12, 16): slide the MAC addresses up and pull 4.
  std::memmove(d + 4, d, 12);
  skb.pkt.Pull(4);
  if (skb.ip_summed == IpSummed::kPartial && skb.csum_start >= 16)
    skb.csum_start = static_cast<uint16_t>(skb.csum_start - 4);
}

// The L4 protocol and offset after IPv6 extension headers, as
// parse_ipv6hdr (net/openvswitch/flow.c) finds them with ipv6_find_hdr
// (net/ipv6/exthdrs_core.c, target -1): a fragment header with a non-zero
// offset stops the walk on NEXTHDR_FRAGMENT. ipv6_find_hdr reads only the
// 2-byte option header of each extension header (and a fragment header's
// frag_off); when even that is not there it fails (-EBADMSG), which
// parse_ipv6hdr returns as -EPROTO: key_extract leaves the proto
// NEXTHDR_NONE and the transport header at the network header.
void WalkIpv6(const uint8_t* d, size_t len, size_t l3, OvsFlowKey& key, uint16_t& l4_ofs) {
  uint8_t nh = d[l3 + hdr::kIpv6NextOfs];
  size_t ofs = l3 + hdr::kIpv6Len;
  while (Ipv6ExtHdr(nh) && nh != hdr::kProtoNoNext) {
    if (ofs + (nh == hdr::kProtoFragment ? 4 : 2) > len) {
      if (nh == hdr::kProtoFragment) key.frag = OvsFlowKey::Frag::kFirst;  // frag_off 0
      key.ip_proto = hdr::kProtoNoNext;
      l4_ofs = static_cast<uint16_t>(l3);
      return;
    }
    size_t hlen;
    if (nh == hdr::kProtoFragment) {
      const uint16_t fo = GetBe16(d + ofs + 2);
      key.frag = (fo & 0xfff8) ? OvsFlowKey::Frag::kLater : OvsFlowKey::Frag::kFirst;
      if (fo & 0xfff8) break;
      hlen = 8;
    } else if (nh == 51) {
      hlen = (size_t{d[ofs + 1]} + 2) * 4;  // AH: 4-byte units
    } else {
      hlen = (size_t{d[ofs + 1]} + 1) * 8;
    }
    nh = d[ofs];
    ofs += hlen;
  }
  key.ip_proto = nh;
  l4_ofs = ofs <= len && ofs < kNoOffset ? static_cast<uint16_t>(ofs) : kNoOffset;
}

}  // namespace

void OvsFlowKeyExtract(OvsSkb& s) {
  Packet& p = s.skb.pkt;
  p.ResetOffsets();
  s.key = OvsFlowKey{};
  const uint8_t* d = p.data();
  const size_t len = p.size();
  if (len < hdr::kEthLen) return;
  size_t ofs = 12;
  uint16_t type = GetBe16(d + ofs);
  // parse_vlan: OVS keys on up to two in-band tags behind the accel tag.
  for (int i = 0; i < 2 && IsVlanType(type) && ofs + 6 <= len; i++) {
    if (p.l2_5_ofs == kNoOffset) p.l2_5_ofs = static_cast<uint16_t>(ofs);
    ofs += hdr::kVlanLen;
    type = GetBe16(d + ofs);
  }
  s.key.eth_type = type;
  const size_t l3 = ofs + 2;
  if (l3 > len) return;
  p.l3_ofs = static_cast<uint16_t>(l3);
  if (type == hdr::kEthTypeIpv4 && l3 + hdr::kIpv4MinLen <= len) {
    const size_t ihl = (d[l3] & 0x0f) * 4u;
    // check_iphdr failing (-EINVAL) leaves the transport header at the
    // network header and the IP key zeroed.
    if (ihl < hdr::kIpv4MinLen || l3 + ihl > len) {
      p.l4_ofs = p.l3_ofs;
      return;
    }
    const uint16_t frag = GetBe16(d + l3 + hdr::kIpv4FragOfs);
    s.key.ip_proto = d[l3 + hdr::kIpv4ProtoOfs];
    if (frag & hdr::kIpv4FragOffsetMask)
      s.key.frag = OvsFlowKey::Frag::kLater;
    else if (frag & hdr::kIpv4MoreFragments)
      s.key.frag = OvsFlowKey::Frag::kFirst;
    p.l4_ofs = static_cast<uint16_t>(l3 + ihl);
  } else if (type == hdr::kEthTypeIpv6) {
    // check_header failing for the 40-byte header (-EINVAL): the IP key
    // zeroed and the transport header at the network header, as for IPv4.
    if (l3 + hdr::kIpv6Len > len) {
      p.l4_ofs = p.l3_ofs;
      return;
    }
    WalkIpv6(d, len, l3, s.key, p.l4_ofs);
  }
}

OvsSkb OvsVportReceive(SkBuff skb, const OvsVportReceiveOptions& opts) {
  OvsSkb s;
  s.skb = std::move(skb);
  if (opts.core_vlan_untag) CoreVlanUntag(s);
  // netdev_port_receive: skb_push(skb, ETH_HLEN) + skb_postpush_rcsum, i.e.
  // skb->data back to the MAC header with the header added to the sum.
  SkbPushRcsum(s.skb, s.skb.csum_from);
  OvsFlowKeyExtract(s);
  return s;
}

OvsOutput OvsDoOutput(OvsSkb s, const OvsVport& vport) {
  OvsOutput out;
  SkBuff& skb = s.skb;
  // actions.c do_output: a trunc action's cut with pskb_trim, which (unlike
  // pskb_trim_rcsum) leaves a COMPLETE sum as it was; never below the MAC
  // header (ovs_mac_header_len = ETH_HLEN).
  if (s.cutlen > 0) {
    const size_t keep = skb.len() > s.cutlen + hdr::kEthLen ? skb.len() - s.cutlen : hdr::kEthLen;
    if (keep < skb.len()) skb.pkt.Resize(keep);
    s.cutlen = 0;
  }
  // ovs_vport_send: an Ethernet vport takes Ethernet frames; packet_length
  // is len - hard_header_len, less 4 for one in-band VLAN tag when none is
  // held out of band (skb->protocol is the frame's outer type).
  long length = static_cast<long>(skb.len()) - vport.hard_header_len;
  if (!s.vlan.present && skb.len() >= hdr::kEthLen && IsVlanType(GetBe16(skb.pkt.data() + 12)))
    length -= hdr::kVlanLen;
  if (length < 0) length = 0;
  if (length > static_cast<long>(vport.mtu) && !skb.is_gso()) {
    out.tx_error = true;
    out.drop_reason = "over-mtu packet (ovs_vport_send)";
    out.skb = std::move(s);
    return out;
  }
  out.handed_to_dev = true;
  if (vport.type == OvsVport::Type::kVxlan) {
    if (!s.tunnel) {
      out.drop_reason = "vxlan: no TX tunnel info (vxlan_xmit drops)";
    } else {
      const OvsTunnelKey& k = *s.tunnel;
      VxlanXmitRequest r;
      r.ipv6 = k.ipv6;
      r.src = k.src;
      r.dst = k.dst;
      r.vni = static_cast<uint32_t>(k.tun_id & 0xffffff);
      r.tos = k.tos;
      r.ttl = k.ttl;
      r.dont_fragment = k.dont_fragment;
      r.dst_port = k.tp_dst ? k.tp_dst : vport.vxlan_dst_port;
      r.udp_csum = k.csum;
      out.vxlan = r;
    }
  }
  out.skb = std::move(s);
  return out;
}

void OvsSetTunnel(OvsSkb& s, const OvsTunnelKey& key) { s.tunnel = key; }

void OvsRecirc(OvsSkb& s, uint32_t recirc_id) {
  // ovs_flow_key_update runs only for an invalidated key; either way the
  // offsets the actions need are those of the current frame.
  if (!s.key.valid) OvsFlowKeyExtract(s);
  s.recirc_id = recirc_id;
}

}  // namespace offlab::kernel
