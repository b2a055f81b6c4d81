// __skb_gso_segment and the network layer of software GSO: skb_mac_gso_segment
// (net/core/gso.c), inet_gso_segment (net/ipv4/af_inet.c) and
// ipv6_gso_segment (net/ipv6/ip6_offload.c), torvalds/linux 7d0a66e4bb90
// (v6.18) unless a line says otherwise.
#include <algorithm>
#include <utility>

#include "offlab/linux/gso_segment_internal.h"
#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/net/headers.h"

namespace offlab::kernel {

namespace gso_internal {

uint64_t AddBe32(uint64_t sum, uint32_t v) { return sum + (v >> 16) + (v & 0xffff); }
uint64_t SubBe32(uint64_t sum, uint32_t v) { return AddBe32(sum, ~v); }

uint64_t SwChecksum(const SkBuff& skb, size_t offset, size_t len, uint64_t sum) {
  if (offset >= skb.len()) return sum;
  return csum::Partial(skb.pkt.data() + offset, std::min(len, skb.len() - offset), sum);
}

void IpSendCheck(SkBuff& skb, uint16_t l3) {
  uint8_t* ip = skb.pkt.data() + l3;
  const size_t ihl = (ip[0] & 0x0f) * 4u;
  PutBe16(ip + hdr::kIpv4CsumOfs, 0);
  PutBe16(ip + hdr::kIpv4CsumOfs, csum::Finish(SwChecksum(skb, l3, ihl)));
}

SegResult MacGsoSegment(Ctx& ctx, SkBuff& skb, uint16_t mac_ofs, uint64_t features) {
  // net/core/gso.c :37-62: the handler registered for the network protocol
  // (after VLAN tags); none -> -EPROTONOSUPPORT, no protocol -> -EINVAL.
  uint16_t l3 = 0;
  const uint16_t type = NetworkProtocol(skb, mac_ofs, &l3);
  if (!type) return Error(gso_err::kInval);
  if (type == hdr::kEthTypeIpv4) return InetGsoSegment(ctx, skb, mac_ofs, l3, features);
  if (type == hdr::kEthTypeIpv6) return Ipv6GsoSegment(ctx, skb, mac_ofs, l3, features);
  return Error(gso_err::kProtoNoSupport);
}

namespace {

SegResult NotModelled(Ctx& ctx) {
  Count(ctx.counters, "gso_not_modelled");
  return Error(gso_err::kProtoNoSupport);
}

// The UDP handler of inet_offloads / inet6_offloads (udp4_ufo_fragment,
// net/ipv4/udp_offload.c :637-652; udp6_ufo_fragment, net/ipv6/udp_offload.c
// :35): tunnels go to skb_udp_tunnel_segment.
SegResult UdpGsoSegment(Ctx& ctx, SkBuff& skb, uint16_t l3, uint16_t uh, bool ipv6,
                        uint64_t features) {
  if (skb.encapsulation && (skb.gso_type & (gso::kUdpTunnel | gso::kUdpTunnelCsum)))
    return UdpTunnelSegment(ctx, skb, l3, uh, ipv6, features);
  if (skb.gso_type & (gso::kUdp | gso::kUdpL4)) return NotModelled(ctx);
  return Error(gso_err::kInval);
}

// Whether the IPv4 header at `l3` keeps its ID across segments.
bool FixedId(const Ctx& ctx, const SkBuff& skb, uint16_t l3, bool encap, bool* bad) {
  if (ctx.kv.AtLeast(6, 18)) {
    // af_inet.c :1398: SKB_GSO_TCP_FIXEDID for the header a GSO walk starts
    // at, _INNER one IP-in-IP level down. A UDP tunnel restarts the walk
    // (encap_level = 0, udp_offload.c :206), so VXLAN's inner header reads
    // SKB_GSO_TCP_FIXEDID too.
    return skb.gso_type & (encap ? gso618::kTcpFixedidInner : gso618::kTcpFixedid);
  }
  // v6.12.19 af_inet.c:1409-1416 (the same in v4.11 af_inet.c:1259-1266):
  // only the header of the innermost level reads SKB_GSO_TCP_FIXEDID (bit 3
  // then), and a fixed ID without DF fails the segmentation.
  if (skb.encapsulation && !encap) return false;
  const bool fixed = skb.gso_type & gso::kTcpFixedid;
  if (fixed && !(GetBe16(skb.pkt.data() + l3 + hdr::kIpv4FragOfs) & hdr::kIpv4DontFragment))
    *bad = true;
  return fixed;
}

}  // namespace

SegResult InetGsoSegment(Ctx& ctx, SkBuff& skb, uint16_t mac_ofs, uint16_t l3, uint64_t features) {
  // af_inet.c :1358-1451.
  if (size_t{l3} + hdr::kIpv4MinLen > skb.len()) return Error(gso_err::kInval);
  const uint8_t* ip = skb.pkt.data() + l3;
  const uint16_t ihl = (ip[0] & 0x0f) * 4u;
  if (ihl < hdr::kIpv4MinLen || size_t{l3} + ihl > skb.len()) return Error(gso_err::kInval);
  uint16_t id = GetBe16(ip + hdr::kIpv4IdOfs);
  const uint8_t proto = ip[hdr::kIpv4ProtoOfs];

  // :1389-1392 one level further inside an IP-in-IP packet only the tunnel
  // features apply.
  const bool encap = ctx.encap_level > 0;
  if (encap) features &= ctx.dev.hw_enc_features;
  ctx.encap_level += ihl;

  bool bad_fixedid = false;
  const bool fixedid = FixedId(ctx, skb, l3, encap, &bad_fixedid);
  if (bad_fixedid) return Error(gso_err::kProtoNoSupport);
  // :1400-1401 UFO (IP fragments of a UDP datagram).
  if ((!skb.encapsulation || encap) && (skb.gso_type & gso::kUdp)) return NotModelled(ctx);

  const uint16_t th = l3 + ihl;
  SegResult r;
  if (proto == hdr::kProtoTcp)
    r = TcpGsoSegment(ctx, skb, mac_ofs, l3, th, false, features);
  else if (proto == hdr::kProtoUdp)
    r = UdpGsoSegment(ctx, skb, l3, th, false, features);
  else if (proto == hdr::kProtoGre || proto == 4 || proto == 41 || proto == 50 ||
           proto == hdr::kProtoSctp)
    return NotModelled(ctx);
  else
    return Error(gso_err::kProtoNoSupport);
  if (r.err || r.unsegmented) return r;

  // :1413-1446 each segment's IPv4 header: the ID advances by the segments
  // a GSO segment stands for, the length is the segment's (one MSS segment's
  // for GSO_PARTIAL, which the device duplicates), checksum in software.
  const bool gso_partial = r.segs.front().skb.gso_type & gso::kPartial;
  for (Seg& seg : r.segs) {
    SkBuff& s = seg.skb;
    uint8_t* iph = s.pkt.data() + l3;
    size_t tot_len = s.len() - l3;
    if (s.is_gso()) {
      if (!fixedid) {
        PutBe16(iph + hdr::kIpv4IdOfs, id);
        id = static_cast<uint16_t>(id + s.gso_segs);
      }
      if (gso_partial) tot_len = size_t{s.gso_size} + seg.data_offset - l3;
    } else if (!fixedid) {
      PutBe16(iph + hdr::kIpv4IdOfs, id++);
    }
    PutBe16(iph + hdr::kIpv4TotLenOfs, static_cast<uint16_t>(tot_len));
    IpSendCheck(s, l3);
  }
  return r;
}

SegResult Ipv6GsoSegment(Ctx& ctx, SkBuff& skb, uint16_t mac_ofs, uint16_t l3, uint64_t features) {
  // net/ipv6/ip6_offload.c :107-195 (the jumbogram HBH removal of :123 is
  // not modelled: no skb here exceeds 64 KB).
  if (size_t{l3} + hdr::kIpv6Len > skb.len()) return Error(gso_err::kInval);
  const bool encap = ctx.encap_level > 0;
  if (encap) features &= ctx.dev.hw_enc_features;
  ctx.encap_level += hdr::kIpv6Len;

  // :139 ipv6_gso_pull_exthdrs: hop-by-hop, routing and destination options.
  // A header it cannot pull (pskb_may_pull of 8 bytes, then of its length)
  // ends the walk on the extension header itself, which has no gso_segment
  // callback: the skb keeps segs = ERR_PTR(-EPROTONOSUPPORT).
  uint8_t proto = skb.pkt.data()[l3 + hdr::kIpv6NextOfs];
  size_t th = size_t{l3} + hdr::kIpv6Len;
  while (proto == hdr::kProtoHopByHop || proto == hdr::kProtoRouting ||
         proto == hdr::kProtoDestOpts) {
    if (th + 8 > skb.len()) return Error(gso_err::kProtoNoSupport);
    const size_t len = (skb.pkt.data()[th + 1] + 1u) * 8;
    if (th + len > skb.len()) return Error(gso_err::kProtoNoSupport);
    proto = skb.pkt.data()[th];
    th += len;
  }
  if (th > skb.len() || th > 0xffff) return Error(gso_err::kInval);
  if (skb.gso_type & gso::kUdp) return NotModelled(ctx);  // :141-147 UFO fragments

  SegResult r;
  const auto t = static_cast<uint16_t>(th);
  if (proto == hdr::kProtoTcp)
    r = TcpGsoSegment(ctx, skb, mac_ofs, l3, t, true, features);
  else if (proto == hdr::kProtoUdp)
    r = UdpGsoSegment(ctx, skb, l3, t, true, features);
  else if (proto == hdr::kProtoGre || proto == 4 || proto == 41 || proto == 50 ||
           proto == hdr::kProtoSctp)
    return NotModelled(ctx);
  else
    return Error(gso_err::kProtoNoSupport);
  if (r.err || r.unsegmented) return r;

  // :162-172 payload_len per segment (one MSS segment's for GSO_PARTIAL).
  const bool gso_partial = r.segs.front().skb.gso_type & gso::kPartial;
  for (Seg& seg : r.segs) {
    SkBuff& s = seg.skb;
    size_t plen = s.len() - l3 - hdr::kIpv6Len;
    if (gso_partial && s.is_gso()) plen = size_t{s.gso_size} + seg.data_offset - l3 - hdr::kIpv6Len;
    PutBe16(s.pkt.data() + l3 + hdr::kIpv6PlenOfs, static_cast<uint16_t>(plen));
  }
  return r;
}

}  // namespace gso_internal

GsoResult SkbGsoSegment(SkBuff skb, uint64_t features, const DeviceFeatures& dev,
                        const XmitOptions& opt, KernelVersion kv, Counters* counters) {
  using namespace gso_internal;
  // net/core/gso.c :88-130. skb_needs_check (:66-73, tx path): a checksum
  // neither PARTIAL nor UNNECESSARY gets initialised by the handlers, which
  // the kernel reports as a bad offload (:126) once segments come back.
  const bool needs_check =
      skb.ip_summed != IpSummed::kPartial && skb.ip_summed != IpSummed::kUnnecessary;
  // :106-113 keep GSO_PARTIAL only if with the device's partial features
  // (and GSO_ROBUST) the skb becomes segmentable.
  if (features & netif::kGsoPartial) {
    const uint64_t partial = kNetifGsoRobust | (dev.features & opt.gso_partial_features);
    if (!SkbGsoOk(skb, features | partial)) features &= ~netif::kGsoPartial;
  }
  Ctx ctx{dev, opt, kv, counters, 0};
  SegResult r = MacGsoSegment(ctx, skb, 0, features);

  GsoResult out;
  out.err = r.err;
  if (r.err) {
    if (r.err == gso_err::kBug) Count(counters, "skb_segment_bug");
    Count(counters, "gso_error");
    return out;
  }
  if (r.unsegmented) {
    Count(counters, "gso_unsegmented");
    out.unsegmented = true;
    out.segs.push_back(std::move(skb));
    return out;
  }
  if (needs_check) Count(counters, "skb_warn_bad_offload");
  Count(counters, "gso_segments", r.segs.size());
  out.segs.reserve(r.segs.size());
  for (Seg& s : r.segs) out.segs.push_back(std::move(s.skb));
  return out;
}

}  // namespace offlab::kernel
