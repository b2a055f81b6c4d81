#include "offlab/ovs/rewrite.h"

#include <cstring>

#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/net/headers.h"
#include "offlab/ovs/complete.h"
#include "offlab/ovs/faults.h"

namespace offlab {

namespace {

size_t L4Len(const Packet& p) { return p.SizeFrom(p.l4_ofs); }

// Rule M for the IPv4 header checksum.
void UpdateIpCsum(Packet& p, const uint8_t* old_b, const uint8_t* new_b, size_t len) {
  if (IsValid(p.offloads.ip())) {
    p.offloads.set_ip(CsumStatus::kPartial);
    return;
  }
  uint8_t* ip = p.l3();
  uint16_t c = GetBe16(ip + hdr::kIpv4CsumOfs);
  PutBe16(ip + hdr::kIpv4CsumOfs, csum::UpdateBytes(c, old_b, new_b, len));
}

// Writes `len` bytes at `field` in the IPv4 header with rule M applied.
void WriteIpv4Field(Packet& p, uint8_t* field, const uint8_t* value, size_t len) {
  if (std::memcmp(field, value, len) == 0) return;
  uint8_t old_b[4];
  std::memcpy(old_b, field, len);
  std::memcpy(field, value, len);
  UpdateIpCsum(p, old_b, value, len);
}

// A 16-bit-aligned view of a single byte change inside an IPv4 header word.
void WriteIpv4Byte(Packet& p, size_t ofs, uint8_t v) {
  uint8_t* ip = p.l3();
  size_t word = ofs & ~size_t{1};
  uint8_t old_w[2] = {ip[word], ip[word + 1]};
  if (ip[ofs] == v) return;
  ip[ofs] = v;
  UpdateIpCsum(p, old_w, ip + word, 2);
}

}  // namespace

void UpdateL4Word(Packet& p, uint8_t nw_proto, uint8_t* l4, size_t l4_len, const uint8_t* old_b,
                  const uint8_t* new_b, size_t len, bool pseudo_header_field) {
  switch (nw_proto) {
    case hdr::kProtoTcp:
      if (l4_len < hdr::kTcpMinLen) return;
      if (IsValid(p.offloads.l4())) {
        p.offloads.set_l4(CsumStatus::kPartial);
      } else if (uint16_t c = GetBe16(l4 + hdr::kTcpCsumOfs);
                 c != 0 || !Faults::On(Fault::kTcpZeroCsumTakenAsAbsent)) {
        // A TCP checksum is always present: 0x0000 is a value like any other.
        PutBe16(l4 + hdr::kTcpCsumOfs, csum::UpdateBytes(c, old_b, new_b, len));
      }
      return;
    case hdr::kProtoUdp:
      if (l4_len < hdr::kUdpLen) return;
      if (IsValid(p.offloads.l4())) {
        p.offloads.set_l4(CsumStatus::kPartial);
      } else if (uint16_t c = GetBe16(l4 + hdr::kUdpCsumOfs); c != 0) {
        // A UDP checksum of 0 means "none" and stays 0; a computed 0 is sent as 0xffff.
        c = csum::UpdateBytes(c, old_b, new_b, len);
        if (c == 0 && Faults::On(Fault::kUdpUpdateZeroKeepsStaleCsum)) return;
        PutBe16(l4 + hdr::kUdpCsumOfs, c ? c : 0xffff);
      }
      return;
    case hdr::kProtoIcmpv6:
      // ICMPv6 has no offload status: always updated incrementally.
      if (pseudo_header_field && l4_len >= 4) {
        uint16_t c = GetBe16(l4 + hdr::kIcmpCsumOfs);
        PutBe16(l4 + hdr::kIcmpCsumOfs, csum::UpdateBytes(c, old_b, new_b, len));
      }
      return;
    default:
      return;
  }
}

bool SetEth(Packet& p, const std::optional<MacAddr>& src, const std::optional<MacAddr>& dst) {
  if (p.size() < hdr::kEthLen) return false;
  if (dst) std::memcpy(p.data(), dst->data(), 6);
  if (src) std::memcpy(p.data() + 6, src->data(), 6);
  return true;
}

bool SetIpv4(Packet& p, const Ipv4Set& s) {
  uint8_t* ip = p.l3();
  if (!ip || p.SizeFrom(p.l3_ofs) < hdr::kIpv4MinLen || (ip[0] >> 4) != 4) return false;
  const uint8_t proto = ip[hdr::kIpv4ProtoOfs];
  uint8_t* l4 = p.l4();
  const size_t l4_len = L4Len(p);
  auto set_addr = [&](size_t ofs, const std::array<uint8_t, 4>& a) {
    uint8_t* field = ip + ofs;
    if (std::memcmp(field, a.data(), 4) == 0) return;
    uint8_t old_b[4];
    std::memcpy(old_b, field, 4);
    // The L4 checksum first: it covers the address through the pseudo-header.
    if (l4) UpdateL4Word(p, proto, l4, l4_len, old_b, a.data(), 4, true);
    WriteIpv4Field(p, field, a.data(), 4);
  };
  if (s.src) set_addr(hdr::kIpv4SrcOfs, *s.src);
  if (s.dst) set_addr(hdr::kIpv4DstOfs, *s.dst);
  if (s.tos) {
    const uint8_t old = p.l3()[hdr::kIpv4TosOfs];
    WriteIpv4Byte(p, hdr::kIpv4TosOfs,
                  static_cast<uint8_t>((old & ~s.tos_mask) | (*s.tos & s.tos_mask)));
  }
  if (s.ttl) WriteIpv4Byte(p, hdr::kIpv4TtlOfs, *s.ttl);
  return true;
}

bool SetIpv6(Packet& p, const Ipv6Set& s) {
  uint8_t* ip = p.l3();
  if (!ip || p.SizeFrom(p.l3_ofs) < hdr::kIpv6Len || (ip[0] >> 4) != 6) return false;
  uint8_t* l4 = p.l4();
  const size_t l4_len = L4Len(p);
  // packet_rh_present (openvswitch/ovs v3.1.0 lib/packets.c:1156-1234): the
  // extension headers before the L4 offset give the protocol whose checksum
  // the addresses are in. A fragment header other than a first fragment's
  // (offset 0, M set) means no checksum to update; a routing header with
  // segments left stops the walk on itself, so neither address updates one
  // (checked with ovs-vswitchd 3.1.0: ovs-diff cases ipv6-rewrite-ext).
  uint8_t proto = ip[hdr::kIpv6NextOfs];
  bool recalc = true, routing_segments_left = false;
  if (l4) {
    constexpr uint8_t kProtoAh = 51;
    size_t q = p.l3_ofs + hdr::kIpv6Len;
    while (proto == hdr::kProtoHopByHop || proto == hdr::kProtoRouting ||
           proto == hdr::kProtoDestOpts || proto == hdr::kProtoFragment || proto == kProtoAh) {
      if (q + 8 > p.l4_ofs) break;
      const uint8_t* e = p.data() + q;
      size_t len = (e[1] + 1u) * 8u;
      if (proto == kProtoAh) {
        len = (e[1] + 2u) * 4u;
      } else if (proto == hdr::kProtoFragment) {
        const uint16_t offlg = GetBe16(e + 2);
        recalc = !(offlg & 0xfff8) && (offlg & 1);
        len = 8;
      } else if (proto == hdr::kProtoRouting && e[3] != 0) {
        routing_segments_left = true;
        break;
      }
      proto = e[0];
      if (q + len > p.l4_ofs) break;
      q += len;
    }
  }
  auto set_addr = [&](size_t ofs, const IpAddr& a, bool is_dst) {
    uint8_t* field = ip + ofs;
    if (std::memcmp(field, a.data(), 16) == 0) return;
    // With segments left, the pseudo-header uses the final destination from
    // the routing header, which this write does not change.
    if (l4 && recalc && !(is_dst && routing_segments_left)) {
      UpdateL4Word(p, proto, l4, l4_len, field, a.data(), 16, true);
    }
    std::memcpy(field, a.data(), 16);
  };
  if (s.src) set_addr(hdr::kIpv6SrcOfs, *s.src, false);
  if (s.dst) set_addr(hdr::kIpv6DstOfs, *s.dst, true);
  uint32_t w = GetBe32(ip);
  if (s.tclass) {
    const uint32_t tc =
        ((w >> 20) & ~uint32_t{s.tclass_mask} & 0xffu) | (*s.tclass & s.tclass_mask);
    w = (w & 0xf00fffffu) | (tc << 20);
  }
  if (s.flow_label) w = (w & 0xfff00000u) | (*s.flow_label & 0xfffffu);
  PutBe32(ip, w);
  if (s.hlimit) ip[hdr::kIpv6HlimOfs] = *s.hlimit;
  return true;
}

bool SetL4Ports(Packet& p, std::optional<uint16_t> src, std::optional<uint16_t> dst) {
  uint8_t* l4 = p.l4();
  const uint8_t* ip = p.l3();
  if (!l4 || !ip) return false;
  const size_t l4_len = L4Len(p);
  L4Proto proto;
  if ((ip[0] >> 4) == 4) {
    uint8_t n = ip[hdr::kIpv4ProtoOfs];
    proto = n == hdr::kProtoTcp    ? L4Proto::kTcp
            : n == hdr::kProtoUdp  ? L4Proto::kUdp
            : n == hdr::kProtoSctp ? L4Proto::kSctp
                                   : L4Proto::kNone;
  } else {
    // IPv6: the protocol recorded by Parse() for the header at l4.
    proto = p.offloads.l4_proto();
  }
  if (proto == L4Proto::kNone) return false;
  size_t min_len = proto == L4Proto::kTcp   ? hdr::kTcpMinLen
                   : proto == L4Proto::kUdp ? hdr::kUdpLen
                                            : hdr::kSctpLen;
  if (l4_len < min_len) return false;

  if (proto == L4Proto::kSctp) {
    uint8_t new_ports[4];
    std::memcpy(new_ports, l4, 4);
    if (src) PutBe16(new_ports, *src);
    if (dst) PutBe16(new_ports + 2, *dst);
    if (std::memcmp(new_ports, l4, 4) == 0) return true;
    if (IsValid(p.offloads.l4())) {
      std::memcpy(l4, new_ports, 4);
      p.offloads.set_l4(CsumStatus::kPartial);
      return true;
    }
    // CRC32c is not one's-complement: keep the error delta by XOR, as
    // packet_set_sctp_port does (old ^ old_correct ^ new_correct).
    // The CRC covers the SCTP packet as the IP length delimits it; Ethernet
    // padding would change the delta (OVS: dp_packet_l4_size excludes it).
    const size_t sctp_len = L4Length(p, p.l3_ofs, p.l4_ofs);
    uint32_t old_field = GetBe32(l4 + hdr::kSctpCsumOfs);
    PutBe32(l4 + hdr::kSctpCsumOfs, 0);
    uint32_t old_correct = csum::Crc32c(l4, sctp_len);
    std::memcpy(l4, new_ports, 4);
    uint32_t new_correct = csum::Crc32c(l4, sctp_len);
    // The field holds the CRC little-endian on the wire (RFC 9260 appendix B).
    uint32_t field_le = __builtin_bswap32(old_field);
    uint32_t updated = field_le ^ old_correct ^ new_correct;
    PutBe32(l4 + hdr::kSctpCsumOfs, __builtin_bswap32(updated));
    return true;
  }
  const uint8_t nw = proto == L4Proto::kTcp ? hdr::kProtoTcp : hdr::kProtoUdp;
  auto set_port = [&](size_t ofs, uint16_t v) {
    uint8_t nb[2];
    PutBe16(nb, v);
    if (std::memcmp(l4 + ofs, nb, 2) == 0) return;
    UpdateL4Word(p, nw, l4, l4_len, l4 + ofs, nb, 2, false);
    std::memcpy(l4 + ofs, nb, 2);
  };
  if (src) set_port(0, *src);
  if (dst) set_port(2, *dst);
  return true;
}

bool SetEcnCe(Packet& p) {
  uint8_t* ip = p.l3();
  if (!ip) return false;
  if ((ip[0] >> 4) == 4 && p.SizeFrom(p.l3_ofs) >= hdr::kIpv4MinLen) {
    uint8_t tos = ip[hdr::kIpv4TosOfs];
    if ((tos & 3) == 0) return false;  // not ECN-capable
    WriteIpv4Byte(p, hdr::kIpv4TosOfs, tos | 3);
    return true;
  }
  if ((ip[0] >> 4) == 6 && p.SizeFrom(p.l3_ofs) >= hdr::kIpv6Len) {
    uint32_t w = GetBe32(ip);
    if (((w >> 20) & 3) == 0) return false;
    PutBe32(ip, w | (3u << 20));
    return true;
  }
  return false;
}

bool DecTtl(Packet& p) {
  uint8_t* ip = p.l3();
  if (!ip) return false;
  if ((ip[0] >> 4) == 4 && p.SizeFrom(p.l3_ofs) >= hdr::kIpv4MinLen) {
    if (ip[hdr::kIpv4TtlOfs] <= 1) return false;
    WriteIpv4Byte(p, hdr::kIpv4TtlOfs, ip[hdr::kIpv4TtlOfs] - 1);
    return true;
  }
  if ((ip[0] >> 4) == 6 && p.SizeFrom(p.l3_ofs) >= hdr::kIpv6Len) {
    if (ip[hdr::kIpv6HlimOfs] <= 1) return false;
    ip[hdr::kIpv6HlimOfs]--;
    return true;
  }
  return false;
}

namespace {

// The ICMPv6 ND message at l4 (type 135 or 136, target present), or nullptr.
uint8_t* NdMessage(Packet& p, size_t* len) {
  uint8_t* icmp = p.l4();
  if (!icmp || !p.l3() || (p.l3()[0] >> 4) != 6) return nullptr;
  if (UpperProtocol(p, p.l3_ofs, p.l4_ofs) != hdr::kProtoIcmpv6) return nullptr;
  *len = L4Length(p, p.l3_ofs, p.l4_ofs);
  if (*len < 24 || (icmp[0] != 135 && icmp[0] != 136)) return nullptr;
  return icmp;
}

}  // namespace

bool SetNd(Packet& p, const std::optional<IpAddr>& target, const std::optional<MacAddr>& ll) {
  size_t len = 0;
  uint8_t* nd = NdMessage(p, &len);
  if (!nd) return false;
  auto write = [&](uint8_t* field, const uint8_t* value, size_t n) {
    uint16_t c = GetBe16(nd + hdr::kIcmpCsumOfs);
    PutBe16(nd + hdr::kIcmpCsumOfs, csum::UpdateBytes(c, field, value, n));
    std::memcpy(field, value, n);
  };
  if (target) write(nd + 8, target->data(), 16);
  if (ll) {
    // The first source (type 1) or target (type 2) link-layer address option.
    for (size_t o = 24; o + 8 <= len; o += nd[o + 1] * 8u) {
      if (nd[o + 1] == 0) break;
      if ((nd[o] == 1 || nd[o] == 2) && nd[o + 1] == 1) {
        write(nd + o + 2, ll->data(), 6);
        break;
      }
    }
  }
  return true;
}

bool SetNdExt(Packet& p, std::optional<uint32_t> reserved, std::optional<uint8_t> option_type) {
  size_t len = 0;
  uint8_t* nd = NdMessage(p, &len);
  if (!nd) return false;
  if (reserved) PutBe32(nd + 4, *reserved);
  if (option_type && len >= 32) nd[24] = *option_type;
  PutBe16(nd + hdr::kIcmpCsumOfs, 0);
  uint64_t ps = PseudoHeaderSum(p, p.l3_ofs, hdr::kProtoIcmpv6, static_cast<uint32_t>(len));
  PutBe16(nd + hdr::kIcmpCsumOfs, csum::Finish(csum::Partial(nd, len, ps)));
  return true;
}

}  // namespace offlab
