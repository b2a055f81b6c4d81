#include "offlab/linux/nf_conntrack_nat.h"

#include <cstring>

#include "offlab/linux/ovs_actions_csum.h"
#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/net/headers.h"
#include "offlab/net/work.h"

// Sources: net/netfilter/nf_nat_proto.c (kernel v6.18): nf_nat_ipv4_manip_pkt,
// nf_nat_ipv6_manip_pkt, nf_nat_ipv4_csum_update, nf_nat_ipv6_csum_update,
// tcp_manip_pkt, udp_manip_pkt/__udp_manip_pkt, sctp_manip_pkt,
// icmp_manip_pkt, icmpv6_manip_pkt. Before v5.1 the same rules lived in
// nf_nat_proto_{tcp,udp,icmp}.c and nf_nat_l3proto_ipv{4,6}.c.

namespace offlab::kernel {

namespace {

bool Writable(const SkBuff& skb, size_t len) { return len <= skb.len(); }

// nf_csum_update -> nf_nat_ipv4_csum_update / nf_nat_ipv6_csum_update: the
// address about to change, folded into the L4 checksum as a pseudo-header
// value (the IP header itself is rewritten afterwards).
void CsumUpdateAddr(SkBuff& skb, size_t l3, size_t check_ofs, const NatTarget& t,
                    const KernelVersion& kv) {
  const uint8_t* ip = skb.pkt.data() + l3;
  if (!t.ipv6) {
    const size_t a = t.manip == NatManip::kSrc ? hdr::kIpv4SrcOfs : hdr::kIpv4DstOfs;
    InetProtoCsumReplace4(skb, check_ofs, GetBe32(ip + a), GetBe32(t.addr.data()), true);
  } else {
    const size_t a = t.manip == NatManip::kSrc ? hdr::kIpv6SrcOfs : hdr::kIpv6DstOfs;
    uint8_t old[16];
    std::memcpy(old, ip + a, 16);
    InetProtoCsumReplace16(skb, check_ofs, old, t.addr.data(), true, kv);
  }
}

// The port field the manip type rewrites, and its new value.
size_t PortOfs(const NatTarget& t) { return t.manip == NatManip::kSrc ? 0 : 2; }
uint16_t NewPort(const NatTarget& t, const uint8_t* l4) {
  return t.port ? *t.port : GetBe16(l4 + PortOfs(t));
}

bool TcpManip(SkBuff& skb, size_t l3, size_t l4, const NatTarget& t, const KernelVersion& kv) {
  // Only 8 bytes are guaranteed (an ICMP error's inner header); the
  // checksum is updated only when the full header is present.
  const size_t hdrsize = skb.len() >= l4 + hdr::kTcpMinLen ? hdr::kTcpMinLen : 8;
  if (!Writable(skb, l4 + hdrsize)) return false;
  uint8_t* th = skb.pkt.data() + l4;
  const uint16_t oldport = GetBe16(th + PortOfs(t)), newport = NewPort(t, th);
  PutBe16(th + PortOfs(t), newport);
  if (hdrsize < hdr::kTcpMinLen) return true;
  CsumUpdateAddr(skb, l3, l4 + hdr::kTcpCsumOfs, t, kv);
  InetProtoCsumReplace2(skb, l4 + hdr::kTcpCsumOfs, oldport, newport, false);
  return true;
}

bool UdpManip(SkBuff& skb, size_t l3, size_t l4, const NatTarget& t, const KernelVersion& kv) {
  if (!Writable(skb, l4 + hdr::kUdpLen)) return false;
  uint8_t* uh = skb.pkt.data() + l4;
  const uint16_t newport = NewPort(t, uh);
  // do_csum = !!hdr->check: a zero (absent) UDP checksum stays zero; unlike
  // OVS's set_ipv4 there is no exception for CHECKSUM_PARTIAL.
  if (GetBe16(uh + hdr::kUdpCsumOfs)) {
    CsumUpdateAddr(skb, l3, l4 + hdr::kUdpCsumOfs, t, kv);
    InetProtoCsumReplace2(skb, l4 + hdr::kUdpCsumOfs, GetBe16(uh + PortOfs(t)), newport, false);
    if (!GetBe16(uh + hdr::kUdpCsumOfs)) PutBe16(uh + hdr::kUdpCsumOfs, 0xffff);
  }
  PutBe16(uh + PortOfs(t), newport);
  return true;
}

bool SctpManip(SkBuff& skb, size_t l4, const NatTarget& t) {
  const size_t hdrsize = skb.len() >= l4 + hdr::kSctpLen ? hdr::kSctpLen : 8;
  if (!Writable(skb, l4 + hdrsize)) return false;
  uint8_t* sh = skb.pkt.data() + l4;
  PutBe16(sh + PortOfs(t), NewPort(t, sh));
  if (hdrsize < hdr::kSctpLen) return true;
  // The CRC32c is recomputed from scratch (an earlier error is not kept)
  // and the skb becomes CHECKSUM_NONE; a PARTIAL skb leaves it to the
  // device.
  if (skb.ip_summed != IpSummed::kPartial) {
    std::memset(sh + hdr::kSctpCsumOfs, 0, 4);
    const size_t n = skb.len() - l4;
    work::Csum(n);
    const uint32_t crc = csum::Crc32c(sh, n);
    for (int i = 0; i < 4; i++) sh[hdr::kSctpCsumOfs + i] = static_cast<uint8_t>(crc >> (8 * i));
    skb.ip_summed = IpSummed::kNone;
  }
  return true;
}

bool IcmpManip(SkBuff& skb, size_t l4, const NatTarget& t) {
  if (!Writable(skb, l4 + hdr::kIcmpLen)) return false;
  uint8_t* ih = skb.pkt.data() + l4;
  // Only query/reply pairs carry an id: echo, timestamp, info, address mask.
  switch (ih[0]) {
    case 0:
    case 8:
    case 13:
    case 14:
    case 15:
    case 16:
    case 17:
    case 18:
      break;
    default:
      return true;
  }
  const uint16_t id = t.port ? *t.port : GetBe16(ih + 4);  // tuple->src.u.icmp.id
  InetProtoCsumReplace2(skb, l4 + hdr::kIcmpCsumOfs, GetBe16(ih + 4), id, false);
  PutBe16(ih + 4, id);
  return true;
}

bool Icmpv6Manip(SkBuff& skb, size_t l3, size_t l4, const NatTarget& t, const KernelVersion& kv) {
  if (!Writable(skb, l4 + hdr::kIcmpLen)) return false;
  CsumUpdateAddr(skb, l3, l4 + hdr::kIcmpCsumOfs, t, kv);
  uint8_t* ih = skb.pkt.data() + l4;
  if (ih[0] == 128 || ih[0] == 129) {  // echo request / reply
    const uint16_t id = t.port ? *t.port : GetBe16(ih + 4);
    InetProtoCsumReplace2(skb, l4 + hdr::kIcmpCsumOfs, GetBe16(ih + 4), id, false);
    PutBe16(ih + 4, id);
  }
  return true;
}

// l4proto_manip_pkt: dispatch on the tuple's protocol.
bool L4Manip(SkBuff& skb, size_t l3, size_t l4, uint8_t proto, const NatTarget& t,
             const KernelVersion& kv) {
  switch (proto) {
    case hdr::kProtoTcp:
      return TcpManip(skb, l3, l4, t, kv);
    case hdr::kProtoUdp:
      return UdpManip(skb, l3, l4, t, kv);
    case hdr::kProtoSctp:
      return SctpManip(skb, l4, t);
    case hdr::kProtoIcmp:
      return !t.ipv6 ? IcmpManip(skb, l4, t) : true;
    case hdr::kProtoIcmpv6:
      return t.ipv6 ? Icmpv6Manip(skb, l3, l4, t, kv) : true;
    default:
      return true;  // e.g. GRE: only its key, no checksum; not modelled
  }
}

}  // namespace

bool NfNatManipPkt(SkBuff& skb, size_t l3, const NatTarget& t, const KernelVersion& kv) {
  if (!t.ipv6) {
    if (!Writable(skb, l3 + hdr::kIpv4MinLen)) return false;
    const uint8_t* iph = skb.pkt.data() + l3;
    const size_t l4 = l3 + (iph[0] & 0x0f) * 4u;
    if (!L4Manip(skb, l3, l4, iph[hdr::kIpv4ProtoOfs], t, kv)) return false;
    uint8_t* ip = skb.pkt.data() + l3;
    const size_t a = t.manip == NatManip::kSrc ? hdr::kIpv4SrcOfs : hdr::kIpv4DstOfs;
    CsumReplace4(ip + hdr::kIpv4CsumOfs, GetBe32(ip + a), GetBe32(t.addr.data()));
    std::memcpy(ip + a, t.addr.data(), 4);
    return true;
  }
  if (!Writable(skb, l3 + hdr::kIpv6Len)) return false;
  // ipv6_skip_exthdr (net/ipv6/exthdrs_core.c); the L4 rewrite only for an
  // unfragmented or first fragment, the address always. It reads only the
  // 2-byte option header of each extension header (4 bytes of a fragment
  // header, for frag_off): a header cut shorter than that, or
  // NEXTHDR_NONE, is hdroff < 0 (address only); otherwise the transport
  // header is where the lengths say, and the L4 rewrite's
  // skb_ensure_writable refuses one past the end (the packet is dropped).
  const uint8_t* d = skb.pkt.data();
  uint8_t nh = d[l3 + hdr::kIpv6NextOfs];
  size_t ofs = l3 + hdr::kIpv6Len;
  bool l4_ok = true;
  while (nh == 0 || nh == 43 || nh == 44 || nh == 51 || nh == 60 || nh == 59) {
    if (nh == hdr::kProtoNoNext || ofs + (nh == hdr::kProtoFragment ? 4 : 2) > skb.len()) {
      l4_ok = false;
      break;
    }
    size_t hlen = (size_t{d[ofs + 1]} + 1) * 8;
    if (nh == hdr::kProtoFragment) {
      if (GetBe16(d + ofs + 2) & 0xfff8) l4_ok = false;
      hlen = 8;
    } else if (nh == 51) {
      hlen = (size_t{d[ofs + 1]} + 2) * 4;
    }
    nh = d[ofs];
    ofs += hlen;
    if (!l4_ok) break;
  }
  if (l4_ok && !L4Manip(skb, l3, ofs, nh, t, kv)) return false;
  uint8_t* ip = skb.pkt.data() + l3;
  std::memcpy(ip + (t.manip == NatManip::kSrc ? hdr::kIpv6SrcOfs : hdr::kIpv6DstOfs), t.addr.data(),
              16);
  return true;
}

}  // namespace offlab::kernel
