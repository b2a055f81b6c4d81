// Who applies or writes virtio-net headers, with what: TAP write and read
// (drivers/net/tun.c, drivers/net/tun_vnet.h) and AF_PACKET send and
// receive (net/packet/af_packet.c), at Linux v6.18 (cited from v6.18.19,
// 6952350/linux-6.18.y f3fce0151d48); plus the basic flow dissection
// (net/core/flow_dissector.c) they rely on.
#include <algorithm>

#include "offlab/linux/skb_csum.h"
#include "offlab/linux/virtio_net.h"
#include "offlab/net/bytes.h"
#include "offlab/net/error.h"
#include "offlab/net/headers.h"

namespace offlab::kernel {

namespace {

constexpr uint16_t kEthPAll = 0x0003;  // ETH_P_ALL
// ETH_P_ARP, ETH_P_RARP, ETH_P_MPLS_UC, ETH_P_MPLS_MC.
constexpr uint16_t kEthPArp = 0x0806, kEthPRarp = 0x8035, kEthPMplsUc = 0x8847,
                   kEthPMplsMc = 0x8848;
constexpr uint8_t kNexthdrHop = 0, kNexthdrRouting = 43, kNexthdrFragment = 44, kNexthdrDest = 60,
                  kProtoIpip = 4, kProtoIpv6 = 41;
// MAX_FLOW_DISSECT_HDRS (net/core/flow_dissector.c): skb_flow_dissect_allowed
// lets at most 15 PROTO_AGAIN / IPPROTO_AGAIN rounds through.
constexpr int kMaxFlowDissectHdrs = 15;
// VLAN_MAX_DEPTH (include/linux/if_vlan.h), __vlan_get_protocol's budget.
constexpr int kVlanMaxDepth = 8;

bool IsVlan(uint16_t type) { return type == hdr::kEthTypeVlan || type == hdr::kEthTypeQinQ; }

SkBuff FreshSkb(Packet frame) {
  SkBuff skb;
  skb.pkt = std::move(frame).WithBytesOnly();
  return skb;
}

SkBuff FreshSkb(const Bytes& frame) { return FreshSkb(Packet(frame)); }

}  // namespace

bool FlowDissectBasic(const SkBuff& skb, uint16_t proto, size_t nhoff, uint8_t* ip_proto,
                      uint16_t* thoff) {
  // v6.18.19 net/core/flow_dissector.c __skb_flow_dissect with the basic
  // keys and no flags: the network layers (:1197-1310), then the IP
  // protocol chain (:1540-1640).
  const uint8_t* d = skb.pkt.data();
  const size_t len = skb.len();
  uint8_t p = 0;
  bool have_proto = false;
  // skb_flow_dissect_allowed: each header followed counts; when one more is
  // refused the dissection ends OUT_GOOD where it stands (out_good).
  int num_hdrs = 0;
  auto allowed = [&num_hdrs] { return ++num_hdrs <= kMaxFlowDissectHdrs; };
  for (;;) {
    if (!have_proto) {
      if (IsVlan(proto)) {
        if (nhoff + hdr::kVlanLen > len) return false;
        proto = GetBe16(d + nhoff + 2);
        nhoff += hdr::kVlanLen;
        if (!allowed()) break;
        continue;
      }
      if (proto == hdr::kEthTypeIpv4) {
        // :1199-1204 an IPv4 header with ihl >= 5 must be readable.
        if (nhoff + hdr::kIpv4MinLen > len) return false;
        const uint8_t ihl = d[nhoff] & 0x0f;
        if (ihl < 5) return false;
        p = d[nhoff + hdr::kIpv4ProtoOfs];
        const uint16_t frag = GetBe16(d + nhoff + hdr::kIpv4FragOfs);
        nhoff += static_cast<size_t>(ihl) * 4;
        // :1229-1242 a fragment (first or not) ends the dissection there.
        if (frag & (hdr::kIpv4MoreFragments | hdr::kIpv4FragOffsetMask)) break;
        have_proto = true;
        continue;
      }
      if (proto == hdr::kEthTypeIpv6) {
        if (nhoff + hdr::kIpv6Len > len) return false;
        p = d[nhoff + hdr::kIpv6NextOfs];
        nhoff += hdr::kIpv6Len;
        have_proto = true;
        continue;
      }
      // __skb_flow_dissect_arp / __skb_flow_dissect_mpls return OUT_GOOD at
      // once for a dissector without the ARP / MPLS keys, as the basic one
      // (flow_keys_basic_dissector_keys: CONTROL, BASIC) is.
      if (proto == kEthPArp || proto == kEthPRarp || proto == kEthPMplsUc || proto == kEthPMplsMc)
        break;
      return false;  // other ethertypes: FLOW_DISSECT_RET_OUT_BAD
    }
    if (proto == hdr::kEthTypeIpv6 &&
        (p == kNexthdrHop || p == kNexthdrRouting || p == kNexthdrDest)) {
      // :1547-1565 skip an options / routing header.
      if (nhoff + 2 > len) return false;
      const size_t ext = (static_cast<size_t>(d[nhoff + 1]) + 1) * 8;
      p = d[nhoff];
      nhoff += ext;
      if (!allowed()) break;
      continue;
    }
    if (proto == hdr::kEthTypeIpv6 && p == kNexthdrFragment) {
      // :1566-1588 the fragment header ends the dissection after it.
      if (nhoff + hdr::kIpv6FragHdrLen > len) return false;
      p = d[nhoff];
      nhoff += hdr::kIpv6FragHdrLen;
      break;
    }
    if (p == kProtoIpip || p == kProtoIpv6) {
      // :1600-1625 IP-in-IP is followed (no STOP_BEFORE_ENCAP flag).
      proto = p == kProtoIpip ? hdr::kEthTypeIpv4 : hdr::kEthTypeIpv6;
      have_proto = false;
      if (!allowed()) break;
      continue;
    }
    // TCP, UDP, SCTP, ICMP, GRE...: the transport header starts here. (GRE
    // is followed by the kernel too; the model stops at it.)
    break;
  }
  *ip_proto = p;
  *thoff = static_cast<uint16_t>(std::min(nhoff, len));  // :1925 thoff clamped to len
  return true;
}

void EthReceiveOffsets(SkBuff& skb) {
  // eth_type_trans (net/ethernet/eth.c) pulls the MAC header; the receive
  // path resets the network header there and probes the transport header
  // (skb_probe_transport_header, v6.18.19 include/linux/skbuff.h:3177-3187).
  if (skb.len() < hdr::kEthLen) return;
  skb.pkt.l3_ofs = hdr::kEthLen;
  if (skb.pkt.l4_ofs != kNoOffset) return;
  uint8_t ip_proto = 0;
  uint16_t thoff = 0;
  if (FlowDissectBasic(skb, GetBe16(skb.pkt.data() + 12), hdr::kEthLen, &ip_proto, &thoff))
    skb.pkt.l4_ofs = thoff;
}

std::string TapWrite(const Bytes& frame, const VnetHdrTunnel& hdr, const TapConfig& cfg,
                     SkBuff* out, Counters* counters) {
  return TapWrite(Packet(frame), hdr, cfg, out, counters);
}

std::string TapWrite(Packet frame, const VnetHdrTunnel& hdr, const TapConfig& cfg, SkBuff* out,
                     Counters* counters) {
  // v6.18.19 drivers/net/tun.c:1697-1848 tun_get_user for IFF_TAP|IFF_NO_PI.
  const size_t size = frame.size();
  *out = FreshSkb(std::move(frame));
  VnetHdrTunnel applied;  // :1719 zeroed: no header means no offload
  bool tnl = false;
  size_t hdr_len = 0;
  if (cfg.vnet_hdr) {
    // tun_vnet_ioctl TUNSETVNETHDRSZ refuses less than a basic header.
    if (cfg.vnet_hdr_sz < vnet::kHdrLen)
      throw Error("TAP vnet_hdr_sz " + std::to_string(cfg.vnet_hdr_sz) + " below 10");
    // tun_vnet.h:190-195 the tunnel header is read when the configured
    // size can hold it; otherwise its offsets stay zero.
    tnl = cfg.vnet_hdr_sz >= vnet::kHdrTunnelLen;
    applied.hdr = hdr.hdr;
    if (tnl)
      applied.outer_th_offset = hdr.outer_th_offset, applied.inner_nh_offset = hdr.inner_nh_offset;
    // tun_vnet.h:134-142 __tun_vnet_hdr_get: hdr_len grows to cover the
    // checksum field and must fit in what was written.
    hdr_len = applied.hdr.hdr_len;
    if (applied.hdr.flags & VnetHdr::kNeedsCsum)
      hdr_len = std::max<size_t>(
          static_cast<size_t>(applied.hdr.csum_start) + applied.hdr.csum_offset + 2, hdr_len);
    if (hdr_len > size) return "hdr_len " + std::to_string(hdr_len) + " beyond the packet";
  }
  // tun.c:1743-1747 a TAP frame (and its header length) covers Ethernet.
  if (size < hdr::kEthLen || (hdr_len && hdr_len < hdr::kEthLen))
    return "frame shorter than an Ethernet header";
  // tun.c:1814-1818 the header is applied before eth_type_trans, with no
  // network header and no protocol yet; a rejection counts a frame error.
  std::string err = VirtioNetHdrTnlToSkb(*out, applied, tnl, tnl, VnetSkbContext{});
  if (!err.empty()) {
    Count(counters, "rx_frame_errors");
    return err;
  }
  // tun.c:1848 eth_type_trans, :1860-1861 network header and probe.
  EthReceiveOffsets(*out);
  return "";
}

std::string TapRead(const SkBuff& skb, const DeviceFeatures& tap, const TapConfig& cfg,
                    VnetHdrTunnel* out) {
  // v6.18.19 drivers/net/tun.c:2067-2083 tun_put_user and tun_vnet.h:236-267
  // tun_vnet_hdr_tnl_from_skb: has_data_valid is true for a TAP reader.
  *out = VnetHdrTunnel{};
  if (!cfg.vnet_hdr) return "";
  const bool tnl = tap.features & netif::kGsoUdpTunnel;
  std::string err = VirtioNetHdrTnlFromSkb(skb, tnl, true, out, 0);
  if (!err.empty()) return err;
  // tun_vnet.h:156-172 __tun_vnet_hdr_put: the header the device's
  // offloads call for must fit in vnet_hdr_sz.
  const int parsed = tnl ? vnet::kHdrTunnelLen : vnet::kHdrLen;
  if (cfg.vnet_hdr_sz < parsed)
    return "EFAULT: vnet_hdr_sz " + std::to_string(cfg.vnet_hdr_sz) + " below " +
           std::to_string(parsed);
  return "";
}

std::string PacketSnd(const Bytes& frame, const std::optional<VnetHdr>& hdr,
                      const PacketSocketConfig& cfg, SkBuff* out) {
  // v6.18.19 net/packet/af_packet.c:2942-3090 packet_snd.
  Bytes bytes = frame;
  if (cfg.sock_dgram) {
    // :3029-3033 SOCK_DGRAM: dev_hard_header builds the Ethernet header in
    // front; the skb (and the header's offsets) start there.
    Bytes eth(hdr::kEthLen, 0);
    PutBe16(eth.data() + 12, cfg.protocol);
    bytes.insert(bytes.begin(), eth.begin(), eth.end());
  }
  *out = FreshSkb(bytes);
  size_t len = bytes.size();
  VnetHdr vh;
  if (hdr) {
    // :2532-2546 __packet_snd_vnet_parse: hdr_len covers the checksum
    // field and must fit in the packet.
    vh = *hdr;
    if ((vh.flags & VnetHdr::kNeedsCsum) &&
        static_cast<size_t>(vh.csum_start) + vh.csum_offset + 2 > vh.hdr_len)
      vh.hdr_len = static_cast<uint16_t>(vh.csum_start + vh.csum_offset + 2);
    if (vh.hdr_len > frame.size()) return "hdr_len beyond the packet";
  }
  // :3013-3015, :3054-3058 a non-GSO packet may not exceed the MTU (a VLAN
  // tag's four bytes allowed when the frame carries an 802.1Q one:
  // packet_extra_vlan_len_allowed tests h_proto == ETH_P_8021Q only).
  const size_t reserve = cfg.sock_dgram ? 0 : hdr::kEthLen;
  const size_t payload = cfg.sock_dgram ? frame.size() : len;
  if (!vh.gso_type) {
    const bool tagged = len >= hdr::kEthLen && GetBe16(bytes.data() + 12) == hdr::kEthTypeVlan;
    if (payload > cfg.mtu + reserve + (tagged ? hdr::kVlanLen : 0))
      return "EMSGSIZE: " + std::to_string(payload) + " bytes above the MTU";
  }
  if (len < hdr::kEthLen) return "frame shorter than the device header";  // :3046-3050
  // :3027 network header where the link header ends; :3069 and :1925-1942
  // packet_parse_headers: protocol from the frame for SOCK_RAW without
  // one, the network header after VLAN tags, the transport header probed.
  uint16_t protocol = cfg.protocol;
  if (!cfg.sock_dgram && (protocol == 0 || protocol == kEthPAll))
    protocol = GetBe16(bytes.data() + 12);
  // A tagged frame's network header goes to the depth
  // vlan_get_protocol_and_depth (include/linux/if_vlan.h) reports whenever
  // the type it returns is not 0, whatever that type is; __vlan_get_protocol
  // returns 0 for a cut-short tag and at the VLAN_MAX_DEPTH-th tag
  // (!--parse_depth).
  out->pkt.l3_ofs = hdr::kEthLen;
  if (IsVlan(protocol)) {
    size_t nh = hdr::kEthLen;
    uint16_t inner = protocol;
    int parse_depth = kVlanMaxDepth;
    while (IsVlan(inner)) {
      if (nh + hdr::kVlanLen > len || --parse_depth == 0) {
        inner = 0;
        break;
      }
      inner = GetBe16(bytes.data() + nh + 2);
      nh += hdr::kVlanLen;
    }
    if (inner != 0) out->pkt.l3_ofs = static_cast<uint16_t>(nh);
  }
  uint8_t ip_proto = 0;
  uint16_t thoff = 0;
  if (FlowDissectBasic(*out, protocol, out->pkt.l3_ofs, &ip_proto, &thoff)) out->pkt.l4_ofs = thoff;
  if (!hdr) return "";  // no header: CHECKSUM_NONE, no GSO
  // :3071-3076 virtio_net_hdr_to_skb (plain: no UDP tunnel types here).
  return VirtioNetHdrToSkb(*out, vh, VnetSkbContext{protocol, true});
}

std::string PacketRcvVnet(const SkBuff& skb, bool sock_dgram, VnetHdr* out) {
  // v6.18.19 net/packet/af_packet.c:2090-2103 packet_rcv_vnet (and
  // tpacket_rcv :2364-2367): has_data_valid true, vlan_hlen 0. The offset
  // is skb_checksum_start_offset from skb->data, the network header for
  // SOCK_DGRAM.
  std::string err = VirtioNetHdrFromSkb(skb, true, out, 0);
  if (!err.empty()) return err;
  if (sock_dgram && (out->flags & VnetHdr::kNeedsCsum) && skb.pkt.l3_ofs != kNoOffset)
    out->csum_start = static_cast<uint16_t>(out->csum_start - skb.pkt.l3_ofs);
  return "";
}

uint32_t PacketCsumStatus(const SkBuff& skb, bool outgoing) {
  // v6.18.19 net/packet/af_packet.c:2287-2292 (and :3528-3533 auxdata).
  uint32_t status = 0;
  if (skb.ip_summed == IpSummed::kPartial)
    status |= tp_status::kCsumNotReady;
  else if (!outgoing && SkbCsumUnnecessary(skb))
    status |= tp_status::kCsumValid;
  if (skb.is_gso() && (skb.gso_type & (gso::kTcpv4 | gso::kTcpv6))) status |= tp_status::kGsoTcp;
  return status;
}

}  // namespace offlab::kernel
