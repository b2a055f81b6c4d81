#include "offlab/linux/nf_conntrack.h"

#include "offlab/linux/ovs_actions_csum.h"
#include "offlab/linux/ovs_dp.h"
#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/net/headers.h"
#include "offlab/net/work.h"

// Sources (kernel v6.18; function names as in the tree):
//   net/netfilter/utils.c nf_ip_checksum, nf_ip6_checksum, nf_checksum
//   net/core/skbuff.c __skb_checksum_complete
//   net/netfilter/nf_conntrack_core.c nf_conntrack_in, get_l4proto,
//     resolve_normal_ct, nf_conntrack_handle_icmp, nf_conntrack_handle_packet
//   net/netfilter/nf_conntrack_proto_tcp.c tcp_error (line 802 at mainline
//     73d587ae684d per the patch against it), tcp_valid_flags, tcp_new,
//     nf_conntrack_tcp_packet
//   net/netfilter/nf_conntrack_proto_udp.c udp_error
//   net/netfilter/nf_conntrack_proto_icmp.c nf_conntrack_icmpv4_error,
//     icmp_packet; nf_conntrack_proto_icmpv6.c likewise
//   net/netfilter/nf_conntrack_proto_sctp.c sctp_error

namespace offlab::kernel {

namespace {

// Keeps skb->data (csum_from) at the network header while conntrack looks
// at the packet, as the hooks run with it there, and puts it back after
// (skb_pull_rcsum / skb_push_rcsum semantics for a COMPLETE sum).
class DataAtNetworkHeader {
 public:
  DataAtNetworkHeader(SkBuff& skb, size_t l3) : skb_(skb), saved_(skb.csum_from) {
    if (l3 > saved_)
      SkbPullRcsum(skb_, l3 - saved_);
    else if (l3 < saved_)
      SkbPushRcsum(skb_, saved_ - l3);
  }
  ~DataAtNetworkHeader() {
    if (skb_.csum_from > saved_)
      SkbPushRcsum(skb_, skb_.csum_from - saved_);
    else if (skb_.csum_from < saved_)
      SkbPullRcsum(skb_, saved_ - skb_.csum_from);
  }
  DataAtNetworkHeader(const DataAtNetworkHeader&) = delete;
  DataAtNetworkHeader& operator=(const DataAtNetworkHeader&) = delete;

 private:
  SkBuff& skb_;
  size_t saved_;
};

uint32_t SumRange(const SkBuff& skb, size_t from, size_t to) {
  if (from >= to || to > skb.len()) return 0;
  work::Csum(to - from);
  return WsumPartial(skb.pkt.data() + from, to - from, 0);
}

// csum_tcpudp_nofold / csum_ipv6_magic's inputs: addresses, length, protocol.
uint32_t Pseudo(const SkBuff& skb, size_t l3, bool ipv6, uint32_t len, uint8_t proto) {
  const uint8_t* ip = skb.pkt.data() + l3;
  uint32_t s =
      ipv6 ? WsumPartial(ip + hdr::kIpv6SrcOfs, 32, 0) : WsumPartial(ip + hdr::kIpv4SrcOfs, 8, 0);
  s = WsumAdd(s, len >> 16);
  s = WsumAdd(s, len & 0xffff);
  return WsumAdd(s, proto);
}

// __skb_checksum_complete: the software sum of skb->data..end added to
// skb->csum (which the caller loaded with the pseudo-header part); the skb
// (never shared here) keeps the data sum as a COMPLETE checksum.
uint16_t ChecksumComplete(SkBuff& skb, size_t l3, uint32_t init, bool from_complete, bool* fault) {
  const uint32_t sum = SumRange(skb, l3, skb.len());
  const uint16_t res = CsumFold(WsumAdd(init, sum));
  if (res == 0 && from_complete && fault) *fault = true;  // netdev_rx_csum_fault
  skb.csum = sum;
  skb.ip_summed = IpSummed::kComplete;
  skb.csum_valid = res == 0;
  return res;
}

bool HookChecksCompleteSum(NfHook h) { return h == NfHook::kPreRouting || h == NfHook::kLocalIn; }

}  // namespace

uint16_t NfIpChecksum(SkBuff& skb, size_t l3, size_t l4, NfHook hook, uint8_t protocol,
                      bool* fault) {
  if (l3 + hdr::kIpv4MinLen > skb.len() || l4 > skb.len()) return 0;
  DataAtNetworkHeader at(skb, l3);
  const bool tcpudp = protocol == hdr::kProtoTcp || protocol == hdr::kProtoUdp;
  const uint32_t len = static_cast<uint32_t>(skb.len() - l4);
  bool from_complete = false;
  switch (skb.ip_summed) {
    case IpSummed::kComplete:
      if (!HookChecksCompleteSum(hook)) return 0;
      // A COMPLETE sum covers the IP header too; a correct header adds -0.
      if ((!tcpudp && CsumFold(skb.csum) == 0) ||
          CsumFold(WsumAdd(skb.csum, Pseudo(skb, l3, false, len, protocol))) == 0) {
        skb.ip_summed = IpSummed::kUnnecessary;
        return 0;
      }
      from_complete = true;
      [[fallthrough]];
    case IpSummed::kNone: {
      // Only TCP and UDP checksums include a pseudo-header.
      const uint32_t init = tcpudp ? Pseudo(skb, l3, false, len, protocol) : 0;
      return ChecksumComplete(skb, l3, init, from_complete, fault);
    }
    default:
      return 0;  // UNNECESSARY and PARTIAL are taken as correct
  }
}

uint16_t NfIp6Checksum(SkBuff& skb, size_t l3, size_t l4, NfHook hook, uint8_t protocol,
                       bool* fault) {
  if (l3 + hdr::kIpv6Len > skb.len() || l4 > skb.len() || l4 < l3) return 0;
  DataAtNetworkHeader at(skb, l3);
  const uint32_t len = static_cast<uint32_t>(skb.len() - l4);
  // The IPv6 header (and extension headers) has no checksum of its own, so
  // its bytes [data, dataoff) are taken out of the sum.
  const uint32_t hsum = SumRange(skb, l3, l4);
  bool from_complete = false;
  switch (skb.ip_summed) {
    case IpSummed::kComplete:
      if (!HookChecksCompleteSum(hook)) return 0;
      if (CsumFold(WsumAdd(Pseudo(skb, l3, true, len, protocol), WsumSub(skb.csum, hsum))) == 0) {
        skb.ip_summed = IpSummed::kUnnecessary;
        return 0;
      }
      from_complete = true;
      [[fallthrough]];
    case IpSummed::kNone:
      return ChecksumComplete(skb, l3, WsumSub(Pseudo(skb, l3, true, len, protocol), hsum),
                              from_complete, fault);
    default:
      return 0;
  }
}

uint8_t NfCtResult::OvsCtState() const {
  if (!tracked) return ovs_cs::kTracked | ovs_cs::kInvalid;
  switch (ctinfo) {
    case NfCtInfo::kNew:
      return ovs_cs::kTracked | ovs_cs::kNew;
    case NfCtInfo::kEstablished:
      return ovs_cs::kTracked | ovs_cs::kEstablished;
    case NfCtInfo::kEstablishedReply:
      return ovs_cs::kTracked | ovs_cs::kEstablished | ovs_cs::kReplyDir;
    case NfCtInfo::kRelated:
      return ovs_cs::kTracked | ovs_cs::kRelated;
    case NfCtInfo::kNone:
      break;
  }
  return ovs_cs::kTracked;
}

namespace {

struct L4 {
  bool ipv6 = false;
  uint8_t proto = 0;
  size_t ofs = 0;  // dataoff (absolute)
};

// get_l4proto: ipv4_get_l4proto / ipv6_get_l4proto. False = not trackable.
bool GetL4Proto(const SkBuff& skb, size_t l3, L4& out) {
  const uint8_t* d = skb.pkt.data();
  const size_t len = skb.len();
  if (l3 >= len) return false;
  if ((d[l3] >> 4) == 4) {
    if (l3 + hdr::kIpv4MinLen > len) return false;
    if (GetBe16(d + l3 + hdr::kIpv4FragOfs) & hdr::kIpv4FragOffsetMask) return false;
    out.proto = d[l3 + hdr::kIpv4ProtoOfs];
    out.ofs = l3 + (d[l3] & 0x0f) * 4u;
    return out.ofs <= len;
  }
  if ((d[l3] >> 4) != 6 || l3 + hdr::kIpv6Len > len) return false;
  // ipv6_skip_exthdr; a non-first fragment or NEXTHDR_NONE is untrackable.
  // It reads only each extension header's 2-byte option header (4 bytes of
  // a fragment header, for frag_off), and ipv6_get_l4proto, unlike the
  // IPv4 one, does not check the offset against skb->len: a transport
  // header past the end is the trackers' to refuse.
  out.ipv6 = true;
  uint8_t nh = d[l3 + hdr::kIpv6NextOfs];
  size_t ofs = l3 + hdr::kIpv6Len;
  while (nh == 0 || nh == 43 || nh == 44 || nh == 51 || nh == 60 || nh == 59) {
    if (nh == hdr::kProtoNoNext || ofs + (nh == hdr::kProtoFragment ? 4 : 2) > len) return false;
    size_t hlen = (size_t{d[ofs + 1]} + 1) * 8;
    if (nh == hdr::kProtoFragment) {
      if (GetBe16(d + ofs + 2) & 0xfff8) return false;
      hlen = 8;
    } else if (nh == 51) {
      hlen = (size_t{d[ofs + 1]} + 2) * 4;
    }
    nh = d[ofs];
    ofs += hlen;
  }
  out.proto = nh;
  out.ofs = ofs;
  return true;
}

// The bytes from the transport header to the end (0 when it lies past it).
size_t L4Room(const SkBuff& skb, const L4& l4) {
  return l4.ofs <= skb.len() ? skb.len() - l4.ofs : 0;
}

NfCtResult Invalid(NfCtResult r, const char* reason, bool error_counter = false) {
  r.tracked = false;
  r.ctinfo = NfCtInfo::kNone;
  r.reason = reason;
  if (error_counter)
    r.stat_error++;
  else
    r.stat_invalid++;
  return r;
}

bool L4Checksum(SkBuff& skb, size_t l3, const L4& l4, NfHook hook, uint8_t proto, NfCtResult& r) {
  r.checksum_checked = skb.ip_summed == IpSummed::kNone ||
                       (skb.ip_summed == IpSummed::kComplete && HookChecksCompleteSum(hook));
  const uint16_t res = l4.ipv6 ? NfIp6Checksum(skb, l3, l4.ofs, hook, proto, &r.rx_csum_fault)
                               : NfIpChecksum(skb, l3, l4.ofs, hook, proto, &r.rx_csum_fault);
  r.checksum_ok = res == 0;
  return r.checksum_ok;
}

// tcp_valid_flags: PSH, ECE and CWR are ignored; FIN|SYN|RST|ACK|URG must be
// one of these combinations.
bool TcpFlagsValid(uint8_t flags) {
  switch (flags & 0x37) {  // FIN 01, SYN 02, RST 04, ACK 10, URG 20
    case 0x02:
    case 0x22:
    case 0x12:
    case 0x04:
    case 0x14:
    case 0x11:
    case 0x31:
    case 0x10:
    case 0x30:
      return true;
    default:
      return false;
  }
}

NfCtResult Tcp(SkBuff& skb, size_t l3, const L4& l4, NfHook hook, const NfConntrackConfig& cfg,
               NfCtExisting existing, NfCtResult r) {
  const size_t tcplen = skb.len() - l4.ofs;
  // nf_conntrack_tcp_packet: skb_header_pointer for the 20-byte header.
  if (tcplen < hdr::kTcpMinLen) return Invalid(r, "");
  const uint8_t* th = skb.pkt.data() + l4.ofs;
  const size_t doff = (th[hdr::kTcpOffFlagsOfs] >> 4) * 4u;
  if (doff < hdr::kTcpMinLen || tcplen < doff) return Invalid(r, "truncated packet");
  if (cfg.checksum && hook == NfHook::kPreRouting &&
      !L4Checksum(skb, l3, l4, hook, hdr::kProtoTcp, r))
    return Invalid(r, "bad checksum");
  const uint8_t flags = th[hdr::kTcpOffFlagsOfs + 1];
  if (!TcpFlagsValid(flags)) return Invalid(r, "invalid tcp flag combination");
  if (existing == NfCtExisting::kNone) {
    // tcp_new: tcp_conntracks[0][index][TCP_CONNTRACK_NONE]; from "none" only
    // SYN (-> SYN_SENT) and, with tcp_loose, a bare ACK (-> ESTABLISHED,
    // picked up mid-stream) are valid.
    const bool rst = flags & 0x04, syn = flags & 0x02, fin = flags & 0x01, ack = flags & 0x10;
    const bool syn_only = !rst && syn && !ack;
    const bool ack_only = !rst && !syn && !fin && ack;
    if (!syn_only && !ack_only) return Invalid(r, "invalid new");
    if (ack_only && !cfg.tcp_loose) return Invalid(r, "");
  }
  return r;
}

NfCtResult Udp(SkBuff& skb, size_t l3, const L4& l4, NfHook hook, const NfConntrackConfig& cfg,
               NfCtResult r) {
  const size_t udplen = skb.len() - l4.ofs;
  if (udplen < hdr::kUdpLen) return Invalid(r, "short packet");
  const uint8_t* uh = skb.pkt.data() + l4.ofs;
  const uint16_t ulen = GetBe16(uh + hdr::kUdpLenOfs);
  if (ulen > udplen || ulen < hdr::kUdpLen) return Invalid(r, "truncated/malformed packet");
  // A zero checksum is "none" and accepted as it is (the v5.15-era change
  // that marked it UNNECESSARY, 5bed9f3f63f8, was reverted).
  if (!GetBe16(uh + hdr::kUdpCsumOfs)) return r;
  if (hook == NfHook::kPreRouting && cfg.checksum &&
      !L4Checksum(skb, l3, l4, hook, hdr::kProtoUdp, r))
    return Invalid(r, "bad checksum");
  return r;
}

// nf_conntrack_icmpv4_error / icmpv6_error, then icmp_packet's rule that
// only a request may start a connection. Errors of the first stage count as
// "error", of the second as "invalid".
NfCtResult Icmp(SkBuff& skb, size_t l3, const L4& l4, NfHook hook, const NfConntrackConfig& cfg,
                NfCtExisting existing, NfCtResult r) {
  if (L4Room(skb, l4) < hdr::kIcmpLen) return Invalid(r, "short packet", true);
  if (cfg.checksum && hook == NfHook::kPreRouting &&
      !L4Checksum(skb, l3, l4, hook, l4.ipv6 ? hdr::kProtoIcmpv6 : hdr::kProtoIcmp, r))
    return Invalid(r, l4.ipv6 ? "ICMPv6 checksum failed" : "bad hw icmp checksum", true);
  const uint8_t type = skb.pkt.data()[l4.ofs];
  bool error_msg, valid_new;
  if (l4.ipv6) {
    error_msg = type < 128;
    valid_new = type == 128 || type == 139;  // echo request, node info query
  } else {
    if (type > 18) return Invalid(r, "invalid icmp type", true);  // NR_ICMP_TYPES
    error_msg = type == 3 || type == 4 || type == 5 || type == 11 || type == 12;
    valid_new = type == 8 || type == 13 || type == 15 || type == 17;
  }
  if (error_msg) {
    // The inner packet must belong to a tracked connection.
    if (existing != NfCtExisting::kRelated) return Invalid(r, "no match for inner packet", true);
    r.ctinfo = NfCtInfo::kRelated;
    return r;
  }
  if (existing == NfCtExisting::kNone && !valid_new) return Invalid(r, "invalid new");
  return r;
}

// sctp_error: the CRC32c is checked only for a CHECKSUM_NONE skb.
NfCtResult Sctp(SkBuff& skb, const L4& l4, NfHook hook, const NfConntrackConfig& cfg,
                NfCtResult r) {
  const size_t n = skb.len() - l4.ofs;
  if (n < hdr::kSctpLen) return Invalid(r, "nf_ct_sctp: short packet ");
  if (hook == NfHook::kPreRouting && cfg.checksum && skb.ip_summed == IpSummed::kNone) {
    r.checksum_checked = true;
    Bytes seg(skb.pkt.data() + l4.ofs, skb.pkt.data() + skb.len());
    const uint32_t field = seg[8] | (seg[9] << 8) | (seg[10] << 16) | (uint32_t{seg[11]} << 24);
    seg[8] = seg[9] = seg[10] = seg[11] = 0;
    work::Csum(n);
    r.checksum_ok = csum::Crc32c(seg.data(), seg.size()) == field;
    if (!r.checksum_ok) return Invalid(r, "nf_ct_sctp: bad CRC ");
    skb.ip_summed = IpSummed::kUnnecessary;
  }
  return r;
}

}  // namespace

NfCtResult NfConntrackIn(SkBuff& skb, size_t l3, NfHook hook, const NfConntrackConfig& cfg,
                         NfCtExisting existing) {
  NfCtResult r;
  r.tracked = true;
  switch (existing) {
    case NfCtExisting::kNone:
      r.ctinfo = NfCtInfo::kNew;
      break;
    case NfCtExisting::kEstablished:
      r.ctinfo = NfCtInfo::kEstablished;
      break;
    case NfCtExisting::kReply:
      r.ctinfo = NfCtInfo::kEstablishedReply;
      break;
    case NfCtExisting::kRelated:
      r.ctinfo = NfCtInfo::kRelated;
      break;
  }
  L4 l4;
  // get_l4proto failing: "not prepared to track yet" -> invalid.
  if (!GetL4Proto(skb, l3, l4)) return Invalid(r, "");
  const bool icmp =
      (!l4.ipv6 && l4.proto == hdr::kProtoIcmp) || (l4.ipv6 && l4.proto == hdr::kProtoIcmpv6);
  if (icmp) return Icmp(skb, l3, l4, hook, cfg, existing, r);
  const bool ports = l4.proto == hdr::kProtoTcp || l4.proto == hdr::kProtoUdp ||
                     l4.proto == hdr::kProtoSctp || l4.proto == 136 || l4.proto == 33;
  // resolve_normal_ct: a tuple with ports needs their 4 bytes.
  if (ports && L4Room(skb, l4) < 4) return Invalid(r, "");
  switch (l4.proto) {
    case hdr::kProtoTcp:
      return Tcp(skb, l3, l4, hook, cfg, existing, r);
    case hdr::kProtoUdp:
      return Udp(skb, l3, l4, hook, cfg, r);
    case hdr::kProtoSctp:
      return Sctp(skb, l4, hook, cfg, r);
    default:
      return r;  // generic tracker: no validation
  }
}

}  // namespace offlab::kernel
