#include "offlab/ovs/tunnel.h"

#include <algorithm>
#include <cstring>

#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/net/error.h"
#include "offlab/net/headers.h"
#include "offlab/ovs/complete.h"
#include "offlab/ovs/faults.h"
#include "offlab/ovs/gso.h"
#include "offlab/ovs/rss_hash.h"
#include "offlab/ovs/send_prepare.h"

namespace offlab {

namespace {

uint16_t DefaultPort(TunnelType t) {
  return t == TunnelType::kGeneve ? hdr::kGenevePort : hdr::kVxlanPort;
}

// netdev_tnl_get_src_port: the packet's hash scaled into the port range, so
// one flow keeps one source port (and one ECMP path / RSS queue). A packet the
// datapath gave no hash (the simple-match path) gets flow_hash_5tuple() of its
// current headers, kept for its later pushes (openvswitch/ovs d6a632a9b
// lib/netdev-native-tnl.c:71-90).
uint16_t SourcePort(Packet& p) {
  if (!p.md.has_hash) {
    Packet copy = p;  // parsing moves the offsets the push relies on
    p.md.hash = Hash5Tuple(Parse(copy));
    p.md.has_hash = true;
  }
  return TunnelSourcePortFromHash(p.md.hash);
}

size_t TunnelHeaderLen(const TunnelConfig& c) {
  switch (c.type) {
    case TunnelType::kVxlan:
      return hdr::kUdpLen + hdr::kVxlanLen;
    case TunnelType::kGeneve:
      return hdr::kUdpLen + hdr::kGeneveBaseLen + c.geneve_options.size();
    case TunnelType::kGre:
      return hdr::kGreBaseLen + (c.csum_enabled() ? 4 : 0) + (c.gre_key ? 4 : 0) +
             (c.gre_seq ? 4 : 0);
    case TunnelType::kNone:
      break;
  }
  throw Error("tunnel: no tunnel type configured");
}

struct OuterHeader {
  const MacAddr& eth_src;
  const MacAddr& eth_dst;
  bool ipv6;
  const IpAddr& ip_src;
  const IpAddr& ip_dst;
  uint8_t ttl, tos;
  bool df;
  uint8_t nw_proto;
};

// Writes the outer Ethernet and IP headers at the front of `p` (pushed and
// zeroed by the caller), points l3/l4 at them, and sets the IP status as
// netdev_tnl_push_ip_header does: partial for IPv4 (template checksum 0, left
// for send-prepare or the NIC), unknown for IPv6.
void WriteOuterHeader(Packet& p, const OuterHeader& o) {
  const size_t ip_len = o.ipv6 ? hdr::kIpv6Len : hdr::kIpv4MinLen;
  uint8_t* h = p.head();  // just pushed: always in the head
  p.l2_5_ofs = kNoOffset;
  p.l3_ofs = hdr::kEthLen;
  p.l4_ofs = static_cast<uint16_t>(hdr::kEthLen + ip_len);
  std::memcpy(h, o.eth_dst.data(), 6);
  std::memcpy(h + 6, o.eth_src.data(), 6);
  PutBe16(h + 12, o.ipv6 ? hdr::kEthTypeIpv6 : hdr::kEthTypeIpv4);
  uint8_t* ip = h + hdr::kEthLen;
  if (!o.ipv6) {
    ip[0] = 0x45;
    ip[hdr::kIpv4TosOfs] = o.tos;
    PutBe16(ip + hdr::kIpv4TotLenOfs, static_cast<uint16_t>(p.size() - hdr::kEthLen));
    PutBe16(ip + hdr::kIpv4FragOfs, o.df ? hdr::kIpv4DontFragment : 0);
    ip[hdr::kIpv4TtlOfs] = o.ttl;
    ip[hdr::kIpv4ProtoOfs] = o.nw_proto;
    std::memcpy(ip + hdr::kIpv4SrcOfs, o.ip_src.data(), 4);
    std::memcpy(ip + hdr::kIpv4DstOfs, o.ip_dst.data(), 4);
    p.offloads.set_ip(CsumStatus::kPartial);
  } else {
    PutBe32(ip, 0x60000000u | (uint32_t{o.tos} << 20));
    PutBe16(ip + hdr::kIpv6PlenOfs, static_cast<uint16_t>(p.size() - hdr::kEthLen - ip_len));
    ip[hdr::kIpv6NextOfs] = o.nw_proto;
    ip[hdr::kIpv6HlimOfs] = o.ttl;
    std::memcpy(ip + hdr::kIpv6SrcOfs, o.ip_src.data(), 16);
    std::memcpy(ip + hdr::kIpv6DstOfs, o.ip_dst.data(), 16);
    p.offloads.set_ip(CsumStatus::kUnknown);
  }
}

// lib/packets.h IP_ECN_MASK, IP_ECN_CE, IP_ECN_ECT_0.
constexpr uint8_t kEcnMask = 0x03, kEcnCe = 0x03, kEcnEct0 = 0x02;

// The outer TOS: the port's, plus the inner IP header's ECN bits, CE sent as
// ECT(0) (openvswitch/ovs d6a632a9b ofproto/tunnel.c:455-464, tnl_wc_init:
// "ECN fields are always inherited").
uint8_t OuterTos(const Packet& p, const TunnelConfig& c) {
  if (p.l3_ofs == kNoOffset || p.SizeFrom(p.l3_ofs) < 2) return c.tos;
  const uint8_t* ip = p.Linear(p.l3_ofs + 2u) + p.l3_ofs;
  uint8_t tc = 0;
  if ((ip[0] >> 4) == 4) {
    tc = ip[1];
  } else if ((ip[0] >> 4) == 6) {
    tc = static_cast<uint8_t>((ip[0] & 0x0f) << 4 | ip[1] >> 4);
  }
  const uint8_t ecn = tc & kEcnMask;
  return static_cast<uint8_t>(c.tos | (ecn == kEcnCe ? kEcnEct0 : ecn));
}

void PushOne(Packet& p, const TunnelConfig& c, uint32_t gre_seq) {
  const size_t ip_len = c.ipv6 ? hdr::kIpv6Len : hdr::kIpv4MinLen;
  const size_t tnl_len = TunnelHeaderLen(c);
  const size_t hl = hdr::kEthLen + ip_len + tnl_len;
  const uint16_t src_port = c.udp_src ? c.udp_src : SourcePort(p);
  const bool was_l3 = p.l3_ofs != kNoOffset;
  const uint8_t tos = OuterTos(p, c);

  // tnl_ol_push: the old outer statuses and proto become the inner ones.
  p.offloads.ShiftForEncap();
  p.offloads.set_tunnel(c.type);

  const uint16_t old_l3 = p.l3_ofs, old_l4 = p.l4_ofs;
  uint8_t* h = p.Push(hl);
  std::memset(h, 0, hl);
  p.inner_l2_ofs = static_cast<uint16_t>(hl);
  p.inner_l3_ofs = was_l3 ? static_cast<uint16_t>(old_l3 + hl) : kNoOffset;
  p.inner_l4_ofs = old_l4 != kNoOffset ? static_cast<uint16_t>(old_l4 + hl) : kNoOffset;
  const uint8_t nw_proto = c.type == TunnelType::kGre ? hdr::kProtoGre : hdr::kProtoUdp;
  // The shift left the outer IP status unknown: IPv6 keeps it that way.
  WriteOuterHeader(p,
                   {c.eth_src, c.eth_dst, c.ipv6, c.ip_src, c.ip_dst, c.ttl, tos, c.df, nw_proto});
  uint8_t* ip = h + hdr::kEthLen;
  uint8_t* t = ip + ip_len;
  if (c.type == TunnelType::kGre) {
    uint16_t flags = (c.csum_enabled() ? hdr::kGreFlagC : 0) | (c.gre_key ? hdr::kGreFlagK : 0) |
                     (c.gre_seq ? hdr::kGreFlagS : 0);
    PutBe16(t, flags);
    PutBe16(t + 2, hdr::kEthTypeTeb);
    size_t q = 4 + (c.csum_enabled() ? 4 : 0);
    if (c.gre_key) {
      PutBe32(t + q, c.key);
      q += 4;
    }
    if (c.gre_seq) PutBe32(t + q, gre_seq);
    if (c.csum_enabled()) {
      // Computed now in software over the current inner bytes (OVS
      // netdev_gre_push_header), before any inner partial is finished.
      PutBe16(t + 4, csum::Finish(PartialSum(p, p.l4_ofs, p.size() - p.l4_ofs)));
    }
    return;
  }
  PutBe16(t, src_port);
  PutBe16(t + 2, c.udp_dst ? c.udp_dst : DefaultPort(c.type));
  PutBe16(t + hdr::kUdpLenOfs, static_cast<uint16_t>(p.size() - p.l4_ofs));
  p.offloads.set_l4_proto(L4Proto::kUdp);
  if (c.csum_enabled()) {
    PutBe16(t + hdr::kUdpCsumOfs, 0xffff);  // placeholder until finished
    p.offloads.set_l4(CsumStatus::kPartial);
  } else {
    p.offloads.set_l4(CsumStatus::kGood);
  }
  uint8_t* th = t + hdr::kUdpLen;
  if (c.type == TunnelType::kVxlan) {
    th[0] = hdr::kVxlanFlagVni;
    PutBe32(th + 4, c.key << 8);
  } else {
    th[0] = static_cast<uint8_t>(c.geneve_options.size() / 4);
    PutBe16(th + 2, hdr::kEthTypeTeb);
    PutBe32(th + 4, c.key << 8);
    if (!c.geneve_options.empty()) {
      std::memcpy(th + hdr::kGeneveBaseLen, c.geneve_options.data(), c.geneve_options.size());
    }
  }
}

// Validation of one outer checksum at decap, with its counters.
// `verifies` runs only when the status is unknown: OVS does not read the
// bytes of a checksum the NIC already vouched for, and the work meter must
// not count what OVS does not compute.
template <typename Verify>
bool CheckOuter(Packet& p, Csum which, Verify verifies, Counters* counters, const char* checked,
                const char* err) {
  CsumStatus s = p.offloads.status(Level::kOuter, which);
  if (s == CsumStatus::kBad && !Faults::On(Fault::kDecapRechecksBad)) {
    Count(counters, err);
    return false;
  }
  if (s == CsumStatus::kUnknown || s == CsumStatus::kBad) {
    Count(counters, checked);
    if (!verifies()) {
      Count(counters, err);
      return false;
    }
    p.offloads.set_status(Level::kOuter, which, CsumStatus::kGood);
  }
  return true;
}

}  // namespace

void TunnelConfig::Validate() const {
  if (type == TunnelType::kNone) throw Error("tunnel: type must be vxlan, geneve or gre");
  if (geneve_options.size() % 4 || geneve_options.size() > 252) {
    throw Error("tunnel: geneve options must be a multiple of 4 bytes, at most 252");
  }
  if (type == TunnelType::kVxlan && key > 0xffffff) throw Error("tunnel: VNI exceeds 24 bits");
  if (type == TunnelType::kGeneve && key > 0xffffff) throw Error("tunnel: VNI exceeds 24 bits");
}

void PushHeader(PacketBatch& batch, const TunnelConfig& cfg, Counters* counters) {
  cfg.Validate();
  bool tunnelled_tso = false;
  for (const Packet& p : batch) tunnelled_tso |= p.offloads.tunnelled() && p.tso_segsz;
  if (tunnelled_tso) {
    PacketBatch segs;
    for (const Packet& p : batch) {
      PacketBatch s = Gso(p, counters);
      segs.insert(segs.end(), s.begin(), s.end());
    }
    batch.swap(segs);
  }
  static uint32_t gre_seq = 0;
  for (Packet& p : batch) {
    // A second encapsulation cannot describe two inner levels: finish everything.
    if (p.offloads.tunnelled()) SendPrepare(p, 0);
    PushOne(p, cfg, gre_seq++);
  }
}

bool PushPlainEncap(Packet& p, const PlainEncapConfig& c, Counters* counters) {
  if (p.tso_segsz) {
    Count(counters, "netdev_push_header_drops");
    return false;
  }
  if (c.kind == PlainEncap::kGtpu && c.ipv6) throw Error("gtpu: IPv4 underlay only");
  if (c.kind == PlainEncap::kSrv6 && !c.ipv6) throw Error("srv6: needs an IPv6 outer header");
  if (c.kind != PlainEncap::kErspan && p.l3_ofs == kNoOffset) {
    throw Error("encapsulation: the packet has no IP header to carry");
  }
  // Not a tunnel the NIC could finish: every partial is computed now.
  SendPrepare(p, 0);
  const bool inner_is_l2 = c.kind == PlainEncap::kErspan;
  const uint16_t old_l3 = p.l3_ofs, old_l4 = p.l4_ofs;
  const bool inner_v6 = old_l3 != kNoOffset && (p.data()[old_l3] >> 4) == 6;
  if (!inner_is_l2) {
    // GTP-U and SRv6 carry the IP packet, not its Ethernet header.
    p.Pull(old_l3);
  }
  const size_t ip_len = c.ipv6 ? hdr::kIpv6Len : hdr::kIpv4MinLen;
  const size_t tnl_len = c.kind == PlainEncap::kGtpu     ? hdr::kUdpLen + 8
                         : c.kind == PlainEncap::kErspan ? 8 + 8    // GRE with S, ERSPAN II
                                                         : 8 + 16;  // SRH with one segment
  const size_t hl = hdr::kEthLen + ip_len + tnl_len;
  const uint16_t base_l3 = inner_is_l2 ? old_l3 : 0;
  const uint16_t base_l4 =
      inner_is_l2 ? old_l4 : (old_l4 == kNoOffset ? kNoOffset : old_l4 - old_l3);
  uint8_t* h = p.Push(hl);
  std::memset(h, 0, hl);
  p.inner_l2_ofs = inner_is_l2 ? static_cast<uint16_t>(hl) : kNoOffset;
  p.inner_l3_ofs = base_l3 == kNoOffset ? kNoOffset : static_cast<uint16_t>(base_l3 + hl);
  p.inner_l4_ofs = base_l4 == kNoOffset ? kNoOffset : static_cast<uint16_t>(base_l4 + hl);
  const uint8_t nw = c.kind == PlainEncap::kGtpu     ? hdr::kProtoUdp
                     : c.kind == PlainEncap::kErspan ? hdr::kProtoGre
                                                     : hdr::kProtoRouting;
  WriteOuterHeader(p, {c.eth_src, c.eth_dst, c.ipv6, c.ip_src, c.ip_dst, 64, 0, true, nw});
  uint8_t* ip = h + hdr::kEthLen;
  uint8_t* t = ip + ip_len;
  switch (c.kind) {
    case PlainEncap::kGtpu: {
      PutBe16(t, 2152);
      PutBe16(t + 2, 2152);
      PutBe16(t + hdr::kUdpLenOfs, static_cast<uint16_t>(p.size() - p.l4_ofs));
      uint8_t* g = t + hdr::kUdpLen;
      g[0] = 0x30;  // version 1, PT=1
      g[1] = 0xff;  // G-PDU
      PutBe16(g + 2, static_cast<uint16_t>(p.size() - p.l4_ofs - hdr::kUdpLen - 8));
      PutBe32(g + 4, c.key);
      // The outer UDP checksum is left for send-prepare or the NIC.
      p.offloads.set_l4_proto(L4Proto::kUdp);
      p.offloads.set_l4(CsumStatus::kPartial);
      break;
    }
    case PlainEncap::kErspan:
      PutBe16(t, hdr::kGreFlagS);
      PutBe16(t + 2, 0x88be);  // ERSPAN type II
      PutBe32(t + 8, (1u << 28) | (c.key & 0x3ff));
      break;
    case PlainEncap::kSrv6: {
      t[0] = inner_v6 ? 41 : 4;  // next header: the carried IP packet
      t[1] = 2;                  // length in 8-byte units, excluding the first 8
      t[2] = 4;                  // routing type: segment routing header
      t[3] = 0;                  // segments left
      std::memcpy(t + 8, c.segment.data(), 16);
      break;
    }
  }
  return true;
}

TunnelType DetectTunnel(const Packet& p) {
  if (p.l3_ofs == kNoOffset || p.l3_ofs > p.size() || p.l4_ofs == kNoOffset ||
      p.l4_ofs > p.size()) {
    return TunnelType::kNone;
  }
  int proto = UpperProtocol(p, p.l3_ofs, p.l4_ofs);
  if (proto == hdr::kProtoGre) return TunnelType::kGre;
  if (proto != hdr::kProtoUdp || p.SizeFrom(p.l4_ofs) < hdr::kUdpLen) return TunnelType::kNone;
  uint16_t dport = GetBe16(p.Linear(p.l4_ofs + hdr::kUdpLen) + p.l4_ofs + 2);
  if (dport == hdr::kVxlanPort) return TunnelType::kVxlan;
  if (dport == hdr::kGenevePort) return TunnelType::kGeneve;
  return TunnelType::kNone;
}

uint16_t TunnelInnerOffset(const Packet& p) { return TunnelInnerOffset(p, DetectTunnel(p)); }

uint16_t TunnelInnerOffset(const Packet& p, TunnelType type) {
  if (type == TunnelType::kNone) return kNoOffset;
  const size_t len = L4Length(p, p.l3_ofs, p.l4_ofs);
  // The GRE flags or the Geneve option length: in the first 9 bytes.
  const uint8_t* l4 = p.Linear(p.l4_ofs + hdr::kUdpLen + 1u) + p.l4_ofs;
  size_t q;
  if (type == TunnelType::kGre) {
    if (len < hdr::kGreBaseLen) return kNoOffset;
    uint16_t f = GetBe16(l4);
    q = 4 + ((f & hdr::kGreFlagC) ? 4 : 0) + ((f & hdr::kGreFlagK) ? 4 : 0) +
        ((f & hdr::kGreFlagS) ? 4 : 0);
  } else if (type == TunnelType::kVxlan) {
    q = hdr::kUdpLen + hdr::kVxlanLen;
  } else {
    if (len < hdr::kUdpLen + hdr::kGeneveBaseLen) return kNoOffset;
    q = hdr::kUdpLen + hdr::kGeneveBaseLen + (l4[hdr::kUdpLen] & 0x3f) * 4u;
  }
  if (len < q + hdr::kEthLen) return kNoOffset;
  return static_cast<uint16_t>(p.l4_ofs + q);
}

bool PopHeader(Packet& p, Counters* counters, std::string* why) {
  auto fail = [&](const std::string& reason) {
    Count(counters, "datapath_drop_tunnel_pop_error");
    if (why) *why = reason;
    return false;
  };
  const TunnelType type = DetectTunnel(p);
  if (type == TunnelType::kNone) return fail("decap: not a VXLAN, Geneve or GRE packet");
  // Headers are read in the head; a shared payload stays where it is.
  const uint8_t* ip = p.Linear(p.l3_ofs + 1u) + p.l3_ofs;
  TunnelMetadata md;
  md.present = true;
  md.type = type;
  md.ipv6 = (ip[0] >> 4) == 6;
  if (!md.ipv6) {
    size_t ihl = (ip[0] & 0x0f) * 4u;
    ip = p.Linear(p.l3_ofs + std::max<size_t>(ihl, hdr::kIpv4MinLen)) + p.l3_ofs;
    auto ok = [ip, ihl] { return csum::Compute(ip, ihl) == 0; };
    if (!CheckOuter(p, Csum::kIp, ok, counters, "native_tnl_l3csum_checked",
                    "native_tnl_l3csum_err")) {
      return fail("decap: outer IPv4 checksum bad");
    }
    std::memcpy(md.src.data(), ip + hdr::kIpv4SrcOfs, 4);
    std::memcpy(md.dst.data(), ip + hdr::kIpv4DstOfs, 4);
    md.tos = ip[hdr::kIpv4TosOfs];
    md.ttl = ip[hdr::kIpv4TtlOfs];
  } else {
    ip = p.Linear(p.l3_ofs + hdr::kIpv6Len) + p.l3_ofs;
    std::memcpy(md.src.data(), ip + hdr::kIpv6SrcOfs, 16);
    std::memcpy(md.dst.data(), ip + hdr::kIpv6DstOfs, 16);
    md.tos = static_cast<uint8_t>(GetBe16(ip) >> 4);
    md.ttl = ip[hdr::kIpv6HlimOfs];
  }
  const size_t l4_len = L4Length(p, p.l3_ofs, p.l4_ofs);
  // The tunnel header's fixed part (GRE with its optional words, UDP with the
  // VXLAN or Geneve base header) ends within 16 bytes; the IP header is read
  // again for the pseudo-header, so nothing below makes the head move.
  const uint8_t* l4 =
      p.Linear(std::max<size_t>(p.l4_ofs + 16u, p.l3_ofs + hdr::kIpv6Len)) + p.l4_ofs;
  size_t hl;  // bytes to strip
  if (type == TunnelType::kGre) {
    if (l4_len < hdr::kGreBaseLen) return fail("decap: GRE header truncated");
    uint16_t flags = GetBe16(l4);
    if (flags & 0x4fff) {  // R, strict route, recursion, flags, version
      return fail("decap: unsupported GRE flags or version");
    }
    if (GetBe16(l4 + 2) != hdr::kEthTypeTeb) return fail("decap: GRE payload is not Ethernet");
    size_t q = 4;
    if (flags & hdr::kGreFlagC) {
      md.csum = true;
      // No offload status covers GRE: always checked in software.
      if (l4_len < q + 4 || csum::Finish(PartialSum(p, p.l4_ofs, l4_len)) != 0) {
        return fail("decap: GRE checksum bad");
      }
      q += 4;
    }
    if (flags & hdr::kGreFlagK) {
      if (l4_len < q + 4) return fail("decap: GRE header truncated");
      md.key = GetBe32(l4 + q);
      q += 4;
    }
    if (flags & hdr::kGreFlagS) q += 4;
    if (l4_len < q) return fail("decap: GRE header truncated");
    hl = p.l4_ofs + q;
  } else {
    md.tp_src = GetBe16(l4);
    md.tp_dst = GetBe16(l4 + 2);
    uint16_t c = GetBe16(l4 + hdr::kUdpCsumOfs);
    if (c != 0) {
      md.csum = true;
      auto ok = [&p, l4_len] {
        uint64_t ps = PseudoHeaderSum(p, p.l3_ofs, hdr::kProtoUdp, static_cast<uint32_t>(l4_len));
        return csum::Fold(PartialSum(p, p.l4_ofs, l4_len, ps)) == 0xffff;
      };
      if (!CheckOuter(p, Csum::kL4, ok, counters, "native_tnl_l4csum_checked",
                      "native_tnl_l4csum_err")) {
        return fail("decap: outer UDP checksum bad");
      }
    }
    const uint8_t* th = l4 + hdr::kUdpLen;
    const size_t tl = l4_len - hdr::kUdpLen;
    if (type == TunnelType::kVxlan) {
      if (tl < hdr::kVxlanLen) return fail("decap: VXLAN header truncated");
      // Only the I flag, and a zero reserved byte after the VNI: anything else
      // (remote checksum offload, group policy, ...) is dropped (OVS d6a632a9b
      // lib/netdev-native-tnl.c:1153-1158, netdev_vxlan_pop_header).
      if (GetBe32(th) != uint32_t{hdr::kVxlanFlagVni} << 24 || th[7] != 0) {
        return fail("decap: invalid VXLAN flags or reserved bits");
      }
      md.key = GetBe32(th + 4) >> 8;
      hl = p.l4_ofs + hdr::kUdpLen + hdr::kVxlanLen;
    } else {
      if (tl < hdr::kGeneveBaseLen) return fail("decap: Geneve header truncated");
      if (th[0] >> 6) return fail("decap: Geneve version not 0");
      size_t opt = (th[0] & 0x3f) * 4u;
      if (tl < hdr::kGeneveBaseLen + opt) return fail("decap: Geneve options truncated");
      if (GetBe16(th + 2) != hdr::kEthTypeTeb) return fail("decap: Geneve payload not Ethernet");
      md.key = GetBe32(th + 4) >> 8;
      hl = p.l4_ofs + hdr::kUdpLen + hdr::kGeneveBaseLen + opt;
      // The options stay as they came; what translation will make of them is
      // noted (openvswitch/ovs d6a632a9b lib/tun-metadata.c:633-675: an option
      // without a TLV mapping whose type has the critical bit 0x80, or one
      // longer than what is left, is EINVAL).
      const uint8_t* o = p.Linear(hl) + hl - opt;
      for (size_t at = 0; at < opt;) {
        const size_t len = opt - at < 4 ? 0 : 4 + (o[at + 3] & 0x1f) * 4u;
        if (len == 0 || len > opt - at || (o[at + 2] & 0x80)) {
          md.geneve_md_invalid = true;
          break;
        }
        at += len;
      }
    }
  }
  if (p.size() - hl < hdr::kEthLen) return fail("decap: inner frame shorter than Ethernet");
  // Strip only up to the end of the outer L3 payload: trailing padding of the
  // outer frame belongs to nobody.
  p.Resize(std::min(p.size(), p.l4_ofs + l4_len));
  p.Pull(hl);
  p.ResetOffsets();
  // tnl_ol_pop shifts the word down, netdev_pop_header then resets it.
  p.ResetOffload();
  p.md.tunnel = md;
  return true;
}

}  // namespace offlab
