#include "offlab/conntrack.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "offlab/bytes.h"
#include "offlab/checksum.h"
#include "offlab/complete.h"
#include "offlab/faults.h"
#include "offlab/headers.h"
#include "offlab/parse.h"
#include "offlab/rewrite.h"
#include "offlab/send_prepare.h"

namespace offlab {

namespace {

struct Tuple {
  uint16_t zone = 0;
  bool v6 = false;
  IpAddr src{}, dst{};
  uint8_t proto = 0;
  uint16_t sport = 0, dport = 0;
  auto operator<=>(const Tuple&) const = default;
  Tuple Reverse() const {
    Tuple r = *this;
    std::swap(r.src, r.dst);
    std::swap(r.sport, r.dport);
    return r;
  }
};

struct Conn {
  Tuple orig;        // as first seen
  Tuple translated;  // orig after NAT
  Tuple reply;       // what replies look like: translated reversed
  bool nat = false, snat = false;
  bool seen_reply = false;
};

bool IcmpError(bool v6, uint8_t type) {
  return v6 ? (type >= 1 && type <= 4)
            : (type == 3 || type == 4 || type == 5 || type == 11 || type == 12);
}
bool IcmpEcho(bool v6, uint8_t type) {
  return v6 ? (type == 128 || type == 129) : (type == 8 || type == 0);
}

// The tuple of the IP header at `l3` with its L4 header at `l4` (`len` bytes).
bool ExtractTuple(const uint8_t* d, size_t l3, size_t l4, size_t len, uint8_t proto, uint16_t zone,
                  Tuple* t) {
  t->zone = zone;
  t->v6 = (d[l3] >> 4) == 6;
  t->proto = proto;
  if (t->v6) {
    std::memcpy(t->src.data(), d + l3 + hdr::kIpv6SrcOfs, 16);
    std::memcpy(t->dst.data(), d + l3 + hdr::kIpv6DstOfs, 16);
  } else {
    std::memcpy(t->src.data(), d + l3 + hdr::kIpv4SrcOfs, 4);
    std::memcpy(t->dst.data(), d + l3 + hdr::kIpv4DstOfs, 4);
  }
  const uint8_t* h = d + l4;
  switch (proto) {
    case hdr::kProtoTcp:
    case hdr::kProtoUdp:
    case hdr::kProtoSctp:
      if (len < 4) return false;
      t->sport = GetBe16(h);
      t->dport = GetBe16(h + 2);
      return true;
    case hdr::kProtoIcmp:
    case hdr::kProtoIcmpv6:
      // Echo request and reply share one connection keyed by the identifier.
      if (len < 8 || !IcmpEcho(t->v6, h[0])) return false;
      t->sport = GetBe16(h + 4);
      t->dport = 0;
      return true;
    default:
      return false;
  }
}

bool Ipv4HeaderVerifies(const uint8_t* ip) { return csum::Compute(ip, (ip[0] & 0x0f) * 4u) == 0; }

bool L4Verifies(const Packet& p, uint8_t proto, size_t len) {
  const uint8_t* t = p.l4();
  if (proto == hdr::kProtoSctp) {
    if (len < hdr::kSctpLen) return false;
    Bytes copy(t, t + len);
    uint32_t field = GetBe32(copy.data() + hdr::kSctpCsumOfs);
    PutBe32(copy.data() + hdr::kSctpCsumOfs, 0);
    return __builtin_bswap32(csum::Crc32c(copy.data(), len)) == field;
  }
  uint64_t ps = (proto == hdr::kProtoIcmp)
                    ? 0
                    : PseudoHeaderSum(p, p.l3_ofs, proto, static_cast<uint32_t>(len));
  return csum::Verify(t, len, ps);
}

// Rewrites the packet's addresses and ports to those of `to` (rule M).
void ApplyTuple(Packet& p, const Tuple& from, const Tuple& to) {
  if (from.v6) {
    Ipv6Set s;
    if (from.src != to.src) s.src = to.src;
    if (from.dst != to.dst) s.dst = to.dst;
    SetIpv6(p, s);
  } else {
    Ipv4Set s;
    if (from.src != to.src)
      s.src = std::array<uint8_t, 4>{to.src[0], to.src[1], to.src[2], to.src[3]};
    if (from.dst != to.dst)
      s.dst = std::array<uint8_t, 4>{to.dst[0], to.dst[1], to.dst[2], to.dst[3]};
    SetIpv4(p, s);
  }
  if (from.proto == hdr::kProtoTcp || from.proto == hdr::kProtoUdp ||
      from.proto == hdr::kProtoSctp) {
    std::optional<uint16_t> sp, dp;
    if (from.sport != to.sport) sp = to.sport;
    if (from.dport != to.dport) dp = to.dport;
    if (sp || dp) SetL4Ports(p, sp, dp);
  }
}

struct FragKey {
  uint16_t zone;
  IpAddr src, dst;
  uint16_t id;
  uint8_t proto;
  auto operator<=>(const FragKey&) const = default;
};

constexpr size_t kMaxDatagrams = 256;
constexpr size_t kMaxFragments = 64;

}  // namespace

struct Conntrack::Impl {
  std::map<Tuple, std::shared_ptr<Conn>> table;
  std::map<FragKey, std::vector<Packet>> frags;

  void Track(Packet& p, const CtSpec& spec, Counters* counters);
  bool Validate(Packet& p, uint8_t proto, size_t l4_len, Counters* counters);
  void RelatedIcmp(Packet& p, const CtSpec& spec, uint32_t* state);
  PacketBatch Fragment(Packet p, const CtSpec& spec, Counters* counters);
};

bool Conntrack::Impl::Validate(Packet& p, uint8_t proto, size_t l4_len, Counters* counters) {
  const uint8_t* ip = p.l3();
  if ((ip[0] >> 4) == 4) {
    CsumStatus s = p.offloads.ip();
    if (s == CsumStatus::kBad) {
      Count(counters, "conntrack_l3csum_err");
      return false;
    }
    if (s == CsumStatus::kUnknown && !Faults::On(Fault::kCtSkipsUnknownIpCheck)) {
      Count(counters, "conntrack_l3csum_checked");
      if (!Ipv4HeaderVerifies(ip)) {
        Count(counters, "conntrack_l3csum_err");
        return false;
      }
      p.offloads.set_ip(CsumStatus::kGood);
    }
  }
  switch (proto) {
    case hdr::kProtoTcp:
    case hdr::kProtoUdp:
    case hdr::kProtoSctp: {
      CsumStatus s = p.offloads.l4();
      if (s == CsumStatus::kBad) {
        Count(counters, "conntrack_l4csum_err");
        return false;
      }
      if (s != CsumStatus::kUnknown) return true;
      // IPv4 UDP without a checksum has nothing to check.
      if (proto == hdr::kProtoUdp && (ip[0] >> 4) == 4 && l4_len >= hdr::kUdpLen &&
          GetBe16(p.l4() + hdr::kUdpCsumOfs) == 0) {
        return true;
      }
      Count(counters, "conntrack_l4csum_checked");
      if (!L4Verifies(p, proto, l4_len)) {
        Count(counters, "conntrack_l4csum_err");
        return false;
      }
      p.offloads.set_l4(CsumStatus::kGood);
      p.offloads.set_l4_proto(proto == hdr::kProtoTcp   ? L4Proto::kTcp
                              : proto == hdr::kProtoUdp ? L4Proto::kUdp
                                                        : L4Proto::kSctp);
      return true;
    }
    case hdr::kProtoIcmp:
    case hdr::kProtoIcmpv6:
      // ICMP has no offload status: always checked in software.
      Count(counters, "conntrack_l4csum_checked");
      if (!L4Verifies(p, proto, l4_len)) {
        Count(counters, "conntrack_l4csum_err");
        return false;
      }
      return true;
    default:
      return false;
  }
}

void Conntrack::Impl::RelatedIcmp(Packet& p, const CtSpec& spec, uint32_t* state) {
  const uint8_t* d = p.data();
  const size_t icmp = p.l4_ofs;
  const size_t icmp_len = L4Length(p, p.l3_ofs, p.l4_ofs);
  const size_t in_l3 = icmp + 8;
  if (icmp_len < 8 + hdr::kIpv4MinLen) return;
  const bool v6 = (d[p.l3_ofs] >> 4) == 6;
  size_t in_hl;
  uint8_t in_proto;
  if (!v6) {
    if ((d[in_l3] >> 4) != 4) return;
    in_hl = (d[in_l3] & 0x0f) * 4u;
    in_proto = d[in_l3 + hdr::kIpv4ProtoOfs];
  } else {
    if (icmp_len < 8 + hdr::kIpv6Len || (d[in_l3] >> 4) != 6) return;
    in_hl = hdr::kIpv6Len;
    in_proto = d[in_l3 + hdr::kIpv6NextOfs];
  }
  if (in_hl < hdr::kIpv4MinLen || 8 + in_hl + 8 > icmp_len) return;
  const size_t in_l4 = in_l3 + in_hl;
  Tuple e;
  if (!ExtractTuple(d, in_l3, in_l4, icmp_len - 8 - in_hl, in_proto, spec.zone, &e)) return;
  auto it = table.find(e.Reverse());
  if (it == table.end()) return;
  const Conn& c = *it->second;
  const bool reply_dir = e.Reverse() == c.reply;
  *state = ct::kTracked | ct::kRelated | (reply_dir ? ct::kReplyDir : 0);
  if (!spec.nat.enabled || !c.nat) return;

  // nat_inner_packet: the embedded headers are NATed with the status forced to
  // unknown so their own checksums are updated in the bytes, then the ICMP
  // checksum is recomputed in full.
  const Offloads saved = p.offloads;
  const uint16_t l3 = p.l3_ofs, l4 = p.l4_ofs;
  if (!Faults::On(Fault::kCtIcmpErrorKeepsOuterStatus)) {
    p.offloads.set_ip(CsumStatus::kUnknown);
    p.offloads.set_l4(CsumStatus::kUnknown);
  }
  const Tuple& target = reply_dir ? c.orig : c.reply;
  p.l3_ofs = static_cast<uint16_t>(in_l3);
  p.l4_ofs = static_cast<uint16_t>(in_l4);
  if (e.proto == hdr::kProtoTcp && icmp_len - 8 - in_hl < hdr::kTcpMinLen) {
    // RFC 792 quotes 8 bytes: the ports, but not the TCP checksum.
    Tuple addrs_only = target;
    addrs_only.proto = 0;
    Tuple from = e;
    from.proto = 0;
    ApplyTuple(p, from, addrs_only);
    PutBe16(p.data() + in_l4, target.sport);
    PutBe16(p.data() + in_l4 + 2, target.dport);
  } else {
    ApplyTuple(p, e, target);
  }
  p.l3_ofs = l3;
  p.l4_ofs = l4;
  if (!Faults::On(Fault::kCtIcmpErrorKeepsOuterStatus)) p.offloads = saved;
  // The outer addresses that belong to the connection follow its NAT.
  Tuple outer;
  ExtractTuple(p.data(), l3, l4, 8, 0, spec.zone, &outer);
  Tuple outer_to = outer;
  const Tuple& seen = reply_dir ? c.reply : c.orig;
  const Tuple& want = reply_dir ? c.orig.Reverse() : c.translated;
  if (outer.src == seen.src) outer_to.src = want.src;
  if (outer.dst == seen.dst) outer_to.dst = want.dst;
  ApplyTuple(p, outer, outer_to);
  uint8_t* t = p.data() + l4;
  PutBe16(t + hdr::kIcmpCsumOfs, 0);
  uint64_t ps = v6 ? PseudoHeaderSum(p, l3, hdr::kProtoIcmpv6, static_cast<uint32_t>(icmp_len)) : 0;
  PutBe16(t + hdr::kIcmpCsumOfs, csum::Finish(csum::Partial(t, icmp_len, ps)));
  *state |= c.snat ? ct::kSrcNat : ct::kDstNat;
}

void Conntrack::Impl::Track(Packet& p, const CtSpec& spec, Counters* counters) {
  p.md.ct_state = ct::kTracked | ct::kInvalid;
  const int proto = UpperProtocol(p, p.l3_ofs, p.l4_ofs);
  if (proto < 0 || p.l4_ofs == kNoOffset) return;
  const size_t l4_len = L4Length(p, p.l3_ofs, p.l4_ofs);
  if (!Validate(p, static_cast<uint8_t>(proto), l4_len, counters)) return;

  const uint8_t* d = p.data();
  const bool v6 = (d[p.l3_ofs] >> 4) == 6;
  if ((proto == hdr::kProtoIcmp || proto == hdr::kProtoIcmpv6) && l4_len >= 8 &&
      IcmpError(v6, d[p.l4_ofs])) {
    uint32_t state = ct::kTracked | ct::kInvalid;
    RelatedIcmp(p, spec, &state);
    p.md.ct_state = state;
    return;
  }
  Tuple t;
  if (!ExtractTuple(d, p.l3_ofs, p.l4_ofs, l4_len, static_cast<uint8_t>(proto), spec.zone, &t)) {
    return;
  }
  uint32_t state = ct::kTracked;
  auto it = table.find(t);
  if (it != table.end()) {
    Conn& c = *it->second;
    const bool reply = t == c.reply && !(t == c.orig);
    if (reply) {
      c.seen_reply = true;
      state |= ct::kEstablished | ct::kReplyDir;
    } else {
      state |= c.seen_reply ? ct::kEstablished : ct::kNew;
    }
    if (spec.nat.enabled && c.nat) {
      ApplyTuple(p, t, reply ? c.orig.Reverse() : c.translated);
      state |= c.snat ? ct::kSrcNat : ct::kDstNat;
    }
  } else {
    state |= ct::kNew;
    if (spec.commit) {
      auto c = std::make_shared<Conn>();
      c->orig = t;
      c->translated = t;
      if (spec.nat.enabled && spec.nat.addr) {
        c->nat = true;
        c->snat = spec.nat.snat;
        if (c->snat) {
          c->translated.src = *spec.nat.addr;
          if (spec.nat.port) c->translated.sport = *spec.nat.port;
        } else {
          c->translated.dst = *spec.nat.addr;
          if (spec.nat.port) c->translated.dport = *spec.nat.port;
        }
      }
      c->reply = c->translated.Reverse();
      table[c->orig] = c;
      table[c->reply] = c;
      if (c->nat) {
        ApplyTuple(p, t, c->translated);
        state |= c->snat ? ct::kSrcNat : ct::kDstNat;
      }
    }
  }
  p.md.ct_state = state;
}

PacketBatch Conntrack::Impl::Fragment(Packet p, const CtSpec& spec, Counters* counters) {
  const uint8_t* ip = p.l3();
  FragKey key{spec.zone, {}, {}, GetBe16(ip + hdr::kIpv4IdOfs), ip[hdr::kIpv4ProtoOfs]};
  std::memcpy(key.src.data(), ip + hdr::kIpv4SrcOfs, 4);
  std::memcpy(key.dst.data(), ip + hdr::kIpv4DstOfs, 4);
  if (!frags.count(key) && frags.size() >= kMaxDatagrams) {
    Count(counters, "ipf_drop_too_many_datagrams");
    return {};
  }
  auto& list = frags[key];
  if (list.size() >= kMaxFragments) {
    Count(counters, "ipf_drop_too_many_fragments");
    frags.erase(key);
    return {};
  }
  list.push_back(std::move(p));

  // Complete when the pieces cover [0, end) without gaps and the last has MF clear.
  struct Piece {
    size_t off, len;
    size_t idx;
    bool more;
  };
  std::vector<Piece> pieces;
  for (size_t i = 0; i < list.size(); i++) {
    const uint8_t* h = list[i].l3();
    uint16_t fo = GetBe16(h + hdr::kIpv4FragOfs);
    size_t ihl = (h[0] & 0x0f) * 4u;
    size_t len = GetBe16(h + hdr::kIpv4TotLenOfs) - ihl;
    pieces.push_back(
        {(fo & hdr::kIpv4FragOffsetMask) * 8u, len, i, (fo & hdr::kIpv4MoreFragments) != 0});
  }
  std::sort(pieces.begin(), pieces.end(),
            [](const Piece& a, const Piece& b) { return a.off < b.off; });
  size_t covered = 0;
  for (const Piece& pc : pieces) {
    if (pc.off > covered) return {};
    if (pc.off < covered) {
      Count(counters, "ipf_drop_overlap");
      frags.erase(key);
      return {};
    }
    covered += pc.len;
  }
  if (pieces.back().more) return {};

  std::vector<Packet> parts = std::move(list);
  frags.erase(key);
  // Reassemble: the first fragment's headers, every payload in order.
  const Packet& first = parts[pieces.front().idx];
  const size_t hlen =
      first.l4_ofs == kNoOffset ? first.l3_ofs + (first.l3()[0] & 0x0f) * 4u : first.l4_ofs;
  Packet r(first.data(), hlen);
  for (const Piece& pc : pieces) {
    const Packet& f = parts[pc.idx];
    size_t ihl = (f.l3()[0] & 0x0f) * 4u;
    r.Put(f.data() + f.l3_ofs + ihl, pc.len);
  }
  uint8_t* rip = r.data() + first.l3_ofs;
  PutBe16(rip + hdr::kIpv4TotLenOfs, static_cast<uint16_t>(r.size() - first.l3_ofs));
  PutBe16(rip + hdr::kIpv4FragOfs, GetBe16(rip + hdr::kIpv4FragOfs) & hdr::kIpv4DontFragment);
  PutBe16(rip + hdr::kIpv4CsumOfs, 0);
  PutBe16(rip + hdr::kIpv4CsumOfs, csum::Compute(rip, (rip[0] & 0x0f) * 4u));
  r.md = first.md;
  Parse(r);
  r.offloads.set_ip(CsumStatus::kGood);
  Track(r, spec, counters);
  SendPrepare(r, 0);

  PacketBatch out;
  for (const Piece& pc : pieces) {
    Packet f = std::move(parts[pc.idx]);
    const uint8_t* rh = r.data() + r.l3_ofs;
    Ipv4Set s;
    s.src = std::array<uint8_t, 4>{rh[12], rh[13], rh[14], rh[15]};
    s.dst = std::array<uint8_t, 4>{rh[16], rh[17], rh[18], rh[19]};
    const uint16_t saved_l4 = f.l4_ofs;
    f.l4_ofs = kNoOffset;  // the L4 header is copied whole below
    SetIpv4(f, s);
    f.l4_ofs = saved_l4;
    if (pc.off == 0 && r.l4_ofs != kNoOffset) {
      size_t ihl = (f.l3()[0] & 0x0f) * 4u;
      size_t at = f.l3_ofs + ihl;
      size_t n = std::min(f.size() - at, r.size() - r.l4_ofs);
      size_t l4_hdr = std::min<size_t>(n, UpperProtocol(r, r.l3_ofs, r.l4_ofs) == hdr::kProtoTcp
                                              ? (r.l4()[hdr::kTcpOffFlagsOfs] >> 4) * 4u
                                              : 8u);
      std::memcpy(f.data() + at, r.l4(), l4_hdr);
    }
    f.md.ct_state = r.md.ct_state;
    f.md.ct_zone = spec.zone;
    out.push_back(std::move(f));
  }
  return out;
}

Conntrack::Conntrack() : impl_(std::make_unique<Impl>()) {}
Conntrack::~Conntrack() = default;

PacketBatch Conntrack::Execute(Packet p, const CtSpec& spec, Counters* counters) {
  p.md.ct_zone = spec.zone;
  const uint8_t* ip = p.l3();
  if (!ip) {
    p.md.ct_state = ct::kTracked | ct::kInvalid;
    return {std::move(p)};
  }
  if ((ip[0] >> 4) == 4) {
    const uint16_t fo = GetBe16(ip + hdr::kIpv4FragOfs);
    const bool fragment = fo & (hdr::kIpv4MoreFragments | hdr::kIpv4FragOffsetMask);
    const CsumStatus s = p.offloads.ip();
    // ipf_is_valid_v4_frag: only fragments are its business (8a7f1292d).
    const bool ipf_checks = fragment || Faults::On(Fault::kIpfChecksNonFragments);
    if (ipf_checks && s == CsumStatus::kBad) {
      Count(counters, "ipf_l3csum_err");
      p.md.ct_state = ct::kTracked | ct::kInvalid;
      return {std::move(p)};
    }
    if (fragment) {
      if (s == CsumStatus::kUnknown) {
        Count(counters, "ipf_l3csum_checked");
        if (!Ipv4HeaderVerifies(ip)) {
          Count(counters, "ipf_l3csum_err");
          p.md.ct_state = ct::kTracked | ct::kInvalid;
          return {std::move(p)};
        }
        p.offloads.set_ip(CsumStatus::kGood);
      }
      return impl_->Fragment(std::move(p), spec, counters);
    }
  }
  impl_->Track(p, spec, counters);
  return {std::move(p)};
}

size_t Conntrack::connections() const {
  size_t n = 0;
  for (const auto& [t, c] : impl_->table) n += t == c->orig;
  return n;
}

size_t Conntrack::pending_fragments() const {
  size_t n = 0;
  for (const auto& [k, v] : impl_->frags) n += v.size();
  return n;
}

void Conntrack::Clear() {
  impl_->table.clear();
  impl_->frags.clear();
}

}  // namespace offlab
