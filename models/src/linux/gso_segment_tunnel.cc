// UDP tunnel software GSO: skb_udp_tunnel_segment / __skb_udp_tunnel_segment
// (net/ipv4/udp_offload.c, torvalds/linux 7d0a66e4bb90, v6.18), for
// tunnels whose inner packet is an Ethernet frame (VXLAN, Geneve:
// ENCAP_TYPE_ETHER). Inner IP packets straight after the UDP header
// (ENCAP_TYPE_IPPROTO: FOU/GUE) are not modelled.
#include "offlab/linux/gso_segment_internal.h"
#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/net/headers.h"

namespace offlab::kernel::gso_internal {

SegResult UdpTunnelSegment(Ctx& ctx, SkBuff& skb, uint16_t /*l3*/, uint16_t uh, bool ipv6,
                           uint64_t features) {
  const Packet& p = skb.pkt;
  // :322-336 the inner protocol type: an inner MAC header means
  // ENCAP_TYPE_ETHER (skb_mac_gso_segment on the inner frame).
  const bool ether =
      p.inner_l2_ofs != kNoOffset && p.inner_l3_ofs != kNoOffset && p.inner_l2_ofs < p.inner_l3_ofs;
  if (!ether) {
    Count(ctx.counters, "gso_not_modelled");
    return Error(gso_err::kProtoNoSupport);
  }
  const uint16_t inner_mac = p.inner_l2_ofs;
  // :178-190 the tunnel header runs from the UDP header to the inner MAC.
  if (inner_mac < uh + hdr::kUdpLen || inner_mac > skb.len()) return Error(gso_err::kInval);

  // :192-202 take the old length out of the pseudo-header sum in the UDP
  // checksum field: the skb's UDP length, or for an skb already
  // partially segmented the field itself (it holds one segment's length).
  const uint8_t* u = p.data() + uh;
  const uint16_t check = GetBe16(u + hdr::kUdpCsumOfs);
  const uint64_t partial =
      (skb.gso_type & gso::kPartial)
          ? SubBe32(check, static_cast<uint32_t>(GetBe16(u + hdr::kUdpLenOfs)) << 16)
          : SubBe32(check, static_cast<uint32_t>(skb.len() - uh));

  // :204-218 the inner packet is segmented as if it were not encapsulated.
  const bool saved_encapsulation = skb.encapsulation;
  skb.encapsulation = false;
  const bool need_csum = skb.gso_type & gso::kUdpTunnelCsum;
  const bool remcsum = skb.gso_type & gso::kTunnelRemcsum;
  skb.remcsum_offload = remcsum;
  // :220-226 the outer UDP checksum can be left to the device if it
  // checksums this outer protocol (no IPsec here).
  const uint64_t outer_csum = netif::kHwCsum | (ipv6 ? netif::kIpv6Csum : netif::kIpCsum);
  const bool offload_csum = need_csum && (ctx.dev.features & outer_csum);
  // :228-240 only tunnel features apply; with remote checksum offload the
  // inner checksum is the receiver's (HW_CSUM stands for "leave it"), unless
  // the outer checksum must be done in software, which then needs the inner.
  features &= ctx.dev.hw_enc_features;
  if (need_csum) features &= ~netif::kSctpCrc;
  if (remcsum) {
    features &= ~netif::kCsumMask;
    if (!need_csum || offload_csum) features |= netif::kHwCsum;
  }

  ctx.encap_level = 0;
  SegResult r = MacGsoSegment(ctx, skb, inner_mac, features);
  if (r.err || r.unsegmented) {
    // :244-248 skb_gso_error_unwind.
    skb.encapsulation = saved_encapsulation;
    return r;
  }

  // :250-304 per segment: outer UDP length, and the outer checksum from the
  // adjusted pseudo-header sum, completed in software over the headers plus
  // the (complete or still partial) inner checksum's stand-in sum, unless
  // the inner checksum is software-done and the device takes the outer one.
  const bool gso_partial = r.segs.front().skb.gso_type & gso::kPartial;
  for (Seg& seg : r.segs) {
    SkBuff& s = seg.skb;
    if (remcsum) s.ip_summed = IpSummed::kNone;
    if (s.ip_summed == IpSummed::kPartial) s.encapsulation = true;
    uint8_t* su = s.pkt.data() + uh;
    const size_t len = s.len() - uh;
    // :281-287 a GSO_PARTIAL segment's outer UDP length is one MSS
    // segment's. v4.11 (udp_offload.c:125) did this for the trailing
    // non-GSO segment too, giving it a header-only length; fixed by v4.19.
    size_t uh_len = len;
    if (gso_partial && (s.is_gso() || !ctx.kv.AtLeast(4, 19)))
      uh_len = size_t{s.gso_size} + seg.data_offset - uh;
    PutBe16(su + hdr::kUdpLenOfs, static_cast<uint16_t>(uh_len));
    if (!need_csum) continue;
    const uint16_t c = csum::Fold(AddBe32(partial, static_cast<uint32_t>(len)));
    PutBe16(su + hdr::kUdpCsumOfs, c);
    if (s.encapsulation || !offload_csum) {
      uint16_t done = GsoMakeChecksum(seg, uh, static_cast<uint16_t>(~c));
      if (done == 0) done = 0xffff;  // :297-298 CSUM_MANGLED_0
      PutBe16(su + hdr::kUdpCsumOfs, done);
    } else {
      s.ip_summed = IpSummed::kPartial;
      s.csum_start = uh;
      s.csum_offset = hdr::kUdpCsumOfs;
    }
  }
  return r;
}

}  // namespace offlab::kernel::gso_internal
