// The drivers whose receive checksum rules are code rather than a table:
// mlx5e (CHECKSUM_COMPLETE), ibmveth (the hypervisor's flag) and virtio_net
// (the virtio-net header). Citations: v6.18.19 = 6952350/linux-6.18.y
// f3fce0151d48 (Linux v6.18 networking).
#include <algorithm>

#include "offlab/linux/skb_csum.h"
#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/net/headers.h"
#include "rx_internal.h"

namespace offlab::kernel::rx_detail {

namespace {

// ETH_ZLEN + ETH_FCS_LEN: mlx5e's short_frame() bound (en_rx.c:1417).
constexpr size_t kMlx5ShortFrame = 64;
// VLAN_MAX_DEPTH (include/linux/if_vlan.h): __vlan_get_protocol's
// parse_depth, decremented before each tag is used ("!--parse_depth"
// returns 0), so at most 7 tags are parsed.
constexpr int kVlanMaxDepth = 8;

// __vlan_get_protocol through is_last_ethertype_ip (en_rx.c:1377-1390): the
// ethertype after any VLAN tags and where its header starts; false unless
// it is IPv4 or IPv6 with the whole fixed header present (a cut-short tag
// or the VLAN_MAX_DEPTH-th tag makes the protocol 0).
bool LastEthertypeIp(const SkBuff& skb, size_t* depth, uint16_t* proto) {
  const uint8_t* d = skb.pkt.data();
  if (skb.len() < hdr::kEthLen) return false;
  *proto = GetBe16(d + 12);
  *depth = hdr::kEthLen;
  int parse_depth = kVlanMaxDepth;
  while (*proto == hdr::kEthTypeVlan || *proto == hdr::kEthTypeQinQ) {
    if (*depth + hdr::kVlanLen > skb.len() || --parse_depth == 0) return false;
    *proto = GetBe16(d + *depth + 2);
    *depth += hdr::kVlanLen;
  }
  if (*proto == hdr::kEthTypeIpv4) return *depth + hdr::kIpv4MinLen <= skb.len();
  if (*proto == hdr::kEthTypeIpv6) return *depth + hdr::kIpv6Len <= skb.len();
  return false;
}

}  // namespace

void Mlx5eHandleCsum(SkBuff& skb, const NicProfile& p, const DeviceFeatures& dev, Counters* c) {
  // v6.18.19 drivers/net/ethernet/mellanox/mlx5/core/en_rx.c:1492-1564
  // mlx5e_handle_csum, called before eth_type_trans (:1621-1625).
  if (!(dev.features & netif::kRxCsum)) {  // :1502-1503
    Count(c, "rx_csum_none");
    return;
  }
  // :1505-1509 (LRO frames) and :1512-1514 (NO_CSUM_COMPLETE priv flag,
  // XDP) are not modelled: both are off by default.
  size_t depth = 0;
  uint16_t proto = 0;
  // :1524-1525 the hardware sum leaves out the padding of short frames, so
  // every frame up to 64 bytes takes the UNNECESSARY path.
  if (skb.len() > kMlx5ShortFrame && LastEthertypeIp(skb, &depth, &proto)) {
    const uint8_t ip_proto =
        skb.pkt
            .data()[depth + (proto == hdr::kEthTypeIpv4 ? hdr::kIpv4ProtoOfs : hdr::kIpv6NextOfs)];
    if (ip_proto != hdr::kProtoSctp) {  // :1528-1529 SCTP's CRC is no sum
      // :1531-1545 the CQE sum starts at the IP header; mlx5e_skb_csum_fixup
      // (:1458-1490) adds VLAN headers and tail padding, so after
      // eth_type_trans pulls the MAC header skb->csum covers every byte
      // from offset 14 to the end, right or wrong.
      Count(c, "rx_csum_complete");
      skb.ip_summed = IpSummed::kComplete;
      skb.csum = csum::Fold(SkbChecksum(skb, hdr::kEthLen, skb.len() - hdr::kEthLen));
      skb.csum_from = hdr::kEthLen;
      return;
    }
  }
  // :1548-1560 the CQE's L3_OK and L4_OK (the profile's verification);
  // tunnelled frames say the inner checksum was verified.
  const HwCheck h = VerifyLikeHardware(skb, p);
  if (!h.bad && h.l4_checked) {
    skb.ip_summed = IpSummed::kUnnecessary;
    if (h.tunnel) {
      skb.csum_level = 1;
      skb.encapsulation = true;
      Count(c, "rx_csum_unnecessary_inner");
      return;
    }
    Count(c, "rx_csum_unnecessary");
    return;
  }
  Count(c, "rx_csum_none");  // :1561-1563
}

namespace {

// ibmveth_rx_mss_helper (v6.18.19 drivers/net/ethernet/ibm/ibmveth.c
// :1332-1377): a frame the hypervisor aggregated becomes a GSO skb; without
// an MSS from the descriptor the sender left it in the TCP checksum field,
// which is then zeroed.
void IbmvethMssHelper(SkBuff& skb, uint16_t mss, bool large_packet) {
  uint8_t* d = skb.pkt.data();
  const size_t nh = hdr::kEthLen;
  const uint16_t proto = GetBe16(d + 12);
  size_t offset = 0;
  uint32_t gso_type = 0;
  if (proto == hdr::kEthTypeIpv4 && nh + hdr::kIpv4MinLen <= skb.len() &&
      d[nh + hdr::kIpv4ProtoOfs] == hdr::kProtoTcp) {
    offset = static_cast<size_t>(d[nh] & 0x0f) * 4;
    gso_type = gso::kTcpv4;
  } else if (proto == hdr::kEthTypeIpv6 && nh + hdr::kIpv6Len <= skb.len() &&
             d[nh + hdr::kIpv6NextOfs] == hdr::kProtoTcp) {
    offset = hdr::kIpv6Len;
    gso_type = gso::kTcpv6;
  } else {
    return;
  }
  skb.gso_type = gso_type;
  const size_t th = nh + offset;
  if (th + hdr::kTcpMinLen > skb.len()) return;  // the model refuses to read past the frame
  if (large_packet) {
    skb.gso_size = mss;
  } else if (offset) {
    skb.gso_size = GetBe16(d + th + hdr::kTcpCsumOfs);
    PutBe16(d + th + hdr::kTcpCsumOfs, 0);
  }
  if (skb.gso_size) {
    const size_t hdr_len = offset + static_cast<size_t>(d[th + hdr::kTcpOffFlagsOfs] >> 4) * 4;
    const size_t l3_len = skb.len() - nh;
    const size_t payload = l3_len > hdr_len ? l3_len - hdr_len : 0;
    skb.gso_segs = static_cast<uint16_t>((payload + skb.gso_size - 1) / skb.gso_size);
  }
}

// The pseudo-header sum ~csum_tcpudp_magic / ~csum_ipv6_magic stores: the
// folded, uncomplemented pseudo-header sum for `l4_len` bytes of TCP.
uint16_t TcpPseudoField(const SkBuff& skb, size_t nh, uint32_t l4_len) {
  return csum::Fold(PseudoHeaderSum(skb, static_cast<uint16_t>(nh), hdr::kProtoTcp, l4_len));
}

}  // namespace

void IbmvethReceive(SkBuff& skb, const NicProfile& p, const DeviceFeatures& dev, KernelVersion kv,
                    const RxMeta& meta, Counters* c) {
  // v6.18.19 drivers/net/ethernet/ibm/ibmveth.c:1466-1535 ibmveth_poll.
  const KernelNicView& view = *p.kernel;
  if (skb.len() < hdr::kEthLen) return;
  uint8_t* d = skb.pkt.data();
  const size_t nh = hdr::kEthLen;  // eth_type_trans (:1517)
  const uint16_t proto = GetBe16(d + 12);
  const bool ipv4 = proto == hdr::kEthTypeIpv4 && nh + hdr::kIpv4MinLen <= skb.len();
  const bool ipv6 = proto == hdr::kEthTypeIpv6 && nh + hdr::kIpv6Len <= skb.len();
  // :1519-1528 a frame above the MTU, flagged large, or whose IPv4 checksum
  // is 0xffff (firmware without PLSO) is an aggregate.
  const uint16_t iph_check = ipv4 ? GetBe16(d + nh + hdr::kIpv4CsumOfs) : 0;
  if (skb.len() > meta.mtu + hdr::kEthLen || meta.ibmveth_large_packet || iph_check == 0xffff) {
    IbmvethMssHelper(skb, meta.ibmveth_mss, meta.ibmveth_large_packet);
    Count(c, "rx_large_packets");
  }
  // :1530-1533 IBMVETH_RXQ_CSUM_GOOD is the sending partition's word that
  // it offloaded the checksum: nothing verifies the bytes. (With rx-checksum
  // off the driver withdraws its checksum offload from the hypervisor.)
  if (!meta.ibmveth_csum_good || !(dev.features & netif::kRxCsum) || !view.csum_good_unverified)
    return;
  skb.ip_summed = IpSummed::kUnnecessary;
  skb.csum_level = 0;
  // ibmveth_rx_csum_helper (:1379-1446).
  size_t iphlen = 0;
  uint8_t iph_proto = 0;
  if (ipv4) {
    // :1397-1401 an IPv4 checksum of 0xffff is rebuilt.
    if (iph_check == 0xffff) {
      PutBe16(d + nh + hdr::kIpv4CsumOfs, 0);
      const size_t ihl = static_cast<size_t>(d[nh] & 0x0f) * 4;
      if (nh + ihl <= skb.len()) PutBe16(d + nh + hdr::kIpv4CsumOfs, csum::Compute(d + nh, ihl));
    }
    iphlen = static_cast<size_t>(d[nh] & 0x0f) * 4;
    iph_proto = d[nh + hdr::kIpv4ProtoOfs];
  } else if (ipv6) {
    iphlen = hdr::kIpv6Len;
    iph_proto = d[nh + hdr::kIpv6NextOfs];
  }
  if (iph_proto != hdr::kProtoTcp || !view.null_tcp_csum_partial) return;
  const size_t th = nh + iphlen;
  if (th + hdr::kTcpCsumOfs + 2 > skb.len()) return;
  const bool null_csum = GetBe16(d + th + hdr::kTcpCsumOfs) == 0;
  bool recompute = false;
  bool partial = false;
  if (kv.AtLeast(6, 6)) {
    // :1426-1444 (torvalds/linux 51e7a66666e0, v6.6): a NULL TCP checksum is
    // the sender's offload: rebuild the pseudo-header sum and hand the skb
    // on as CHECKSUM_PARTIAL, whatever the adapter's mode.
    recompute = partial = null_csum;
  } else if (kv.AtLeast(5, 14)) {
    // 7525de2516fb (v5.14): PARTIAL for a NULL checksum; the pseudo-header
    // sum only in trunk mode (linux-6.1 ibmveth.c:1314-1330).
    partial = null_csum;
    recompute = null_csum && view.active_trunk;
  } else if (kv.AtLeast(4, 19)) {
    // Trunk mode only, every TCP frame (linux-4.19 ibmveth.c:1284-1300).
    recompute = partial = view.active_trunk;
  }
  if (recompute) {
    const uint32_t l4_len = static_cast<uint32_t>(skb.len() - th);  // skb->len - iphlen
    PutBe16(d + th + hdr::kTcpCsumOfs, TcpPseudoField(skb, nh, l4_len));
  }
  if (partial) {
    // skb_partial_csum_set(skb, iphlen, 16) from the network header, then
    // skb_reset_network_header.
    skb.ip_summed = IpSummed::kPartial;
    skb.csum_start = static_cast<uint16_t>(th);
    skb.csum_offset = hdr::kTcpCsumOfs;
    skb.pkt.l4_ofs = static_cast<uint16_t>(th);
    skb.pkt.l3_ofs = static_cast<uint16_t>(nh);
  }
}

std::string VirtnetReceiveDone(SkBuff& skb, const RxMeta& meta, Counters* c) {
  // v6.18.19 drivers/net/virtio_net.c:2583-2621 virtnet_receive_done.
  const VnetHdr& hdr = meta.vnet.hdr;
  // include/linux/virtio_net.h:347-375 virtio_net_handle_csum_offload:
  // DATA_VALID -> UNNECESSARY (csum_level 1 with the tunnel checksum flag,
  // which needs its feature); never with UDP-tunnel GSO.
  std::string err;
  if (!(hdr.gso_type & vnet::kGsoUdpTunnel)) {
    if (hdr.flags & VnetHdr::kDataValid) {
      skb.ip_summed = IpSummed::kUnnecessary;
      if (hdr.flags & vnet::kFlagUdpTunnelCsum) {
        if (!meta.vnet_tnl_csum)
          err = "DATA_VALID with UDP_TUNNEL_CSUM not negotiated";
        else
          skb.csum_level = 1;
      }
    }
  } else if (hdr.flags & VnetHdr::kDataValid) {
    err = "DATA_VALID with UDP tunnel GSO";
  }
  // :2601-2610 then the header's offload request.
  if (err.empty()) err = VirtioNetHdrTnlToSkb(skb, meta.vnet, meta.vnet_tnl, meta.vnet_tnl_csum);
  if (!err.empty()) {
    Count(c, "rx_frame_errors");  // :2618-2620
    return err;
  }
  skb.pkt.l3_ofs = hdr::kEthLen;  // :2613 eth_type_trans
  return "";
}

}  // namespace offlab::kernel::rx_detail
