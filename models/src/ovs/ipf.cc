#include "offlab/ovs/ipf.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "ipf_internal.h"
#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/net/headers.h"
#include "offlab/ovs/faults.h"
#include "offlab/ovs/parse.h"
#include "offlab/ovs/rewrite.h"
#include "offlab/ovs/send_prepare.h"

namespace offlab {

namespace {

constexpr size_t kIpv4MaxSize = 65535;
constexpr size_t kIpv4MaxHeader = 60;

bool IsFragment(const uint8_t* ip) {
  return GetBe16(ip + hdr::kIpv4FragOfs) & (hdr::kIpv4MoreFragments | hdr::kIpv4FragOffsetMask);
}

// Rule M for an IPv4 header word that Ipv4Set has no field for (total length,
// fragment field): the reassembly rewrites them.
void WriteIpv4Word(Packet& p, size_t ofs, uint16_t value) {
  uint8_t* ip = p.l3();
  uint16_t old = GetBe16(ip + ofs);
  if (old == value) return;
  PutBe16(ip + ofs, value);
  if (IsValid(p.offloads.ip())) {
    p.offloads.set_ip(CsumStatus::kPartial);
  } else {
    uint16_t c = GetBe16(ip + hdr::kIpv4CsumOfs);
    PutBe16(ip + hdr::kIpv4CsumOfs, csum::Update16(c, old, value));
  }
}

}  // namespace

using namespace ipf_detail;

Ipf::Ipf(IpfConfig cfg) : cfg_(cfg) {
  cfg_.min_v4_frag_size = std::max<uint16_t>(cfg_.min_v4_frag_size, 400);
  cfg_.min_v6_frag_size = std::max<uint16_t>(cfg_.min_v6_frag_size, 400);
  const size_t per_frag = cfg_.min_v4_frag_size - kIpv4MaxHeader;
  max_list_size_ = (kIpv4MaxSize - kIpv4MaxHeader + per_frag - 1) / per_frag;
}

Ipf::Verdict Ipf::Validate(Packet& p, Counters* counters) const {
  // 8a7f1292d: the flag was trusted before anything told a fragment apart
  // from a whole datagram, so whole datagrams were judged here too.
  if (Faults::On(Fault::kIpfChecksNonFragments) && p.offloads.ip() == CsumStatus::kBad) {
    Count(counters, "ipf_l3csum_err");
    return Verdict::kInvalid;
  }
  const uint8_t* ip = p.l3();
  if (ip && p.SizeFrom(p.l3_ofs) >= 1 && (ip[0] >> 4) == 6) return ValidateV6(p);
  const size_t l3_size = p.SizeFrom(p.l3_ofs);
  if (p.size() < hdr::kEthLen || !ip || l3_size < hdr::kIpv4MinLen) return Verdict::kInvalid;
  if (!IsFragment(ip)) return Verdict::kNotFragment;

  const size_t tot = GetBe16(ip + hdr::kIpv4TotLenOfs);
  const size_t ihl = (ip[0] & 0x0f) * 4u;
  // Bytes past the total length are link-layer padding, as OVS trims them.
  if (tot > l3_size || ihl < hdr::kIpv4MinLen || tot < ihl) return Verdict::kInvalid;

  bool bad = p.offloads.ip() == CsumStatus::kBad;
  if (!bad && p.offloads.ip() == CsumStatus::kUnknown) {
    Count(counters, "ipf_l3csum_checked");
    bad = !csum::Verify(ip, ihl);
    p.offloads.set_ip(bad ? CsumStatus::kBad : CsumStatus::kGood);
  }
  if (bad) {
    Count(counters, "ipf_l3csum_err");
    return Verdict::kInvalid;
  }
  const bool last = !(GetBe16(ip + hdr::kIpv4FragOfs) & hdr::kIpv4MoreFragments);
  if (!last && tot < cfg_.min_v4_frag_size) return Verdict::kInvalid;
  return Verdict::kFragment;
}

Ipf::AddResult Ipf::Add(Packet p, uint16_t zone) {
  AddResult r;
  const uint8_t* ip = p.l3();
  ListKey key;
  size_t start, len;
  bool first, last;
  if ((ip[0] >> 4) == 6) {
    // ipf_v6_key_extract (lib/ipf.c:715-741): the data bytes are counted
    // from the fragment header, so every fragment's start is 8 further on.
    const V6FragHeader f = *FindV6FragHeader(p);
    start = (f.offlg & kIp6fOffMask) + kIpv6FragHdrLen;
    len = p.l3_ofs + hdr::kIpv6Len + GetBe16(ip + hdr::kIpv6PlenOfs) - p.l4_ofs;
    first = !(f.offlg & kIp6fOffMask) && (f.offlg & kIp6fMoreFrag);
    last = (f.offlg & kIp6fOffMask) && !(f.offlg & kIp6fMoreFrag);
    key.v6 = true;
    std::memcpy(key.src.data(), ip + hdr::kIpv6SrcOfs, 16);
    std::memcpy(key.dst.data(), ip + hdr::kIpv6DstOfs, 16);
    key.id = f.id;
  } else {
    const size_t ihl = (ip[0] & 0x0f) * 4u;
    const uint16_t fo = GetBe16(ip + hdr::kIpv4FragOfs);
    start = (fo & hdr::kIpv4FragOffsetMask) * 8u;
    len = GetBe16(ip + hdr::kIpv4TotLenOfs) - ihl;
    first = start == 0 && (fo & hdr::kIpv4MoreFragments);
    last = start != 0 && !(fo & hdr::kIpv4MoreFragments);
    std::memcpy(key.src.data(), ip + hdr::kIpv4SrcOfs, 4);
    std::memcpy(key.dst.data(), ip + hdr::kIpv4DstOfs, 4);
    key.id = GetBe16(ip + hdr::kIpv4IdOfs);
    key.proto = ip[hdr::kIpv4ProtoOfs];
  }
  // An empty fragment or one reaching past the largest datagram can never be
  // part of a reassembly.
  if (len == 0 || start + len > kIpv4MaxSize + (key.v6 ? kIpv6FragHdrLen : 0)) {
    r.outcome = Outcome::kInvalid;
    r.packet = std::move(p);
    return r;
  }
  const size_t end = start + len - 1;
  key.zone = zone;
  key.recirc_id = p.md.recirc_id;

  auto it = lists_.find(key);
  const bool full = held_ >= cfg_.max_fragments;
  if (full ||
      (it != lists_.end() && (it->second.id != 0 || it->second.frags.size() >= max_list_size_))) {
    r.outcome = Outcome::kNotHeld;
    r.packet = std::move(p);
    return r;
  }
  if (it == lists_.end()) it = lists_.emplace(key, List{}).first;
  List& list = it->second;
  for (const Frag& f : list.frags) {
    if ((start >= f.start && start <= f.end) || (end >= f.start && end <= f.end)) {
      r.outcome = Outcome::kInvalid;
      r.packet = std::move(p);
      return r;
    }
  }
  list.first_seen |= first;
  list.last_seen |= last;
  list.frags.push_back({std::move(p), start, end});
  held_++;
  r.outcome = Outcome::kHeld;
  if (!list.first_seen || !list.last_seen) return r;

  std::stable_sort(list.frags.begin(), list.frags.end(),
                   [](const Frag& a, const Frag& b) { return a.start < b.start; });
  for (size_t i = 1; i < list.frags.size(); i++) {
    if (list.frags[i - 1].end + 1 != list.frags[i].start) return r;
  }
  Packet reassembled;
  if (!(key.v6 ? ReassembleV6(list, &reassembled) : Reassemble(list, &reassembled))) {
    // OVS keeps a failed list until it expires, then frees its fragments.
    held_ -= list.frags.size();
    lists_.erase(it);
    return r;
  }
  list.id = next_id_++;
  completed_[list.id] = key;
  r.outcome = Outcome::kCompleted;
  r.packet = std::move(reassembled);
  r.datagram = list.id;
  return r;
}

bool Ipf::Reassemble(const List& list, Packet* out) {
  const Packet& first = list.frags.front().packet;
  const uint8_t* ip0 = first.l3();
  const size_t tot0 = GetBe16(ip0 + hdr::kIpv4TotLenOfs);
  const size_t rest = list.frags.size() > 1 ? list.frags.back().end - list.frags[1].start + 1 : 0;
  if (tot0 + rest > kIpv4MaxSize) return false;

  Packet r = first;
  r.Resize(r.l3_ofs + tot0);
  for (size_t i = 1; i < list.frags.size(); i++) {
    const Frag& f = list.frags[i];
    const uint8_t* ip = f.packet.l3();
    const size_t ihl = (ip[0] & 0x0f) * 4u;
    r.Put(ip + ihl, f.end - f.start + 1);
  }
  const uint16_t fo = GetBe16(r.l3() + hdr::kIpv4FragOfs);
  WriteIpv4Word(r, hdr::kIpv4FragOfs, fo & ~hdr::kIpv4MoreFragments);
  WriteIpv4Word(r, hdr::kIpv4TotLenOfs, static_cast<uint16_t>(tot0 + rest));
  // The first fragment may have been too short to carry its whole L4 header.
  Parse(r);
  *out = std::move(r);
  return true;
}

PacketBatch Ipf::Release(uint64_t datagram, Packet& reassembled) {
  auto cit = completed_.find(datagram);
  if (cit == completed_.end()) return {};
  auto lit = lists_.find(cit->second);
  completed_.erase(cit);
  if (lit == lists_.end()) return {};
  List list = std::move(lit->second);
  lists_.erase(lit);
  held_ -= list.frags.size();

  // The fragments carry their own L4 bytes: everything deferred must be final
  // before the first fragment's share is copied back.
  SendPrepare(reassembled, 0);

  const uint8_t* rip = reassembled.l3();
  if ((rip[0] >> 4) == 6) return ReleaseV6(list, reassembled);
  const size_t rihl = (rip[0] & 0x0f) * 4u;
  const size_t rlen = reassembled.SizeFrom(reassembled.l3_ofs);
  PacketBatch out;
  out.reserve(list.frags.size());
  for (size_t i = 0; i < list.frags.size(); i++) {
    Packet& f = list.frags[i].packet;
    uint8_t* ip = f.l3();
    const size_t ihl = (ip[0] & 0x0f) * 4u;
    if (i == 0 && ihl == rihl && rlen >= rihl) {
      const size_t n = std::min(list.frags[0].end + 1, rlen - rihl);
      std::memcpy(ip + ihl, rip + rihl, n);
    }
    f.md.ct_state = reassembled.md.ct_state;
    f.md.ct_zone = reassembled.md.ct_zone;
    f.md.ct_mark = reassembled.md.ct_mark;
    Ipv4Set set;
    set.src.emplace();
    set.dst.emplace();
    std::memcpy(set.src->data(), rip + hdr::kIpv4SrcOfs, 4);
    std::memcpy(set.dst->data(), rip + hdr::kIpv4DstOfs, 4);
    // Only the fragment's IP checksum covers the addresses now: its L4 bytes
    // (first fragment) were just copied final, so the L4 must not be touched.
    const uint16_t l4 = f.l4_ofs;
    f.l4_ofs = kNoOffset;
    SetIpv4(f, set);
    f.l4_ofs = l4;
    out.push_back(std::move(f));
  }
  return out;
}

void Ipf::Clear() {
  lists_.clear();
  completed_.clear();
  held_ = 0;
}

}  // namespace offlab
