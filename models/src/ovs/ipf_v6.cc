// IPv6 fragments in ipf (openvswitch/ovs v3.1.0 lib/ipf.c): what makes one
// valid and how a complete list is reassembled for conntrack.
#include <algorithm>
#include <cstring>
#include <utility>

#include "ipf_internal.h"
#include "offlab/net/bytes.h"
#include "offlab/net/headers.h"
#include "offlab/ovs/ipf.h"
#include "offlab/ovs/parse.h"

namespace offlab {

namespace ipf_detail {

std::optional<V6FragHeader> FindV6FragHeader(const Packet& p) {
  const uint8_t* ip = p.l3();
  if (!ip || p.SizeFrom(p.l3_ofs) < hdr::kIpv6Len) return std::nullopt;
  const size_t len =
      std::min(p.SizeFrom(p.l3_ofs), hdr::kIpv6Len + GetBe16(ip + hdr::kIpv6PlenOfs));
  constexpr uint8_t kProtoAh = 51;
  size_t q = hdr::kIpv6Len, naming = hdr::kIpv6NextOfs;
  uint8_t nh = ip[hdr::kIpv6NextOfs];
  while (nh == hdr::kProtoHopByHop || nh == hdr::kProtoRouting || nh == hdr::kProtoDestOpts ||
         nh == hdr::kProtoFragment || nh == kProtoAh) {
    if (len - q < kIpv6FragHdrLen) return std::nullopt;
    if (nh == hdr::kProtoFragment) {
      return V6FragHeader{q, GetBe16(ip + q + 2), GetBe32(ip + q + 4), naming};
    }
    const size_t hl = nh == kProtoAh ? (ip[q + 1] + 2u) * 4u : (ip[q + 1] + 1u) * 8u;
    if (hl > len - q) return std::nullopt;
    naming = q;
    nh = ip[q];
    q += hl;
  }
  return std::nullopt;
}

}  // namespace ipf_detail

using namespace ipf_detail;

// ipf_is_valid_v6_frag (lib/ipf.c:660-710): no L4 offset or a header cut
// short is invalid; no fragment header, or an atomic one (offset and M
// clear), is not ipf's; a fragment other than the last shorter than
// min_v6_frag_size is invalid (ipf_nfrags_too_small).
Ipf::Verdict Ipf::ValidateV6(const Packet& p) const {
  const uint8_t* ip = p.l3();
  if (p.size() < hdr::kEthLen || !ip || p.l4_ofs == kNoOffset) return Verdict::kInvalid;
  const size_t l3_size = p.SizeFrom(p.l3_ofs);
  if (l3_size < hdr::kIpv6Len) return Verdict::kInvalid;
  const size_t len = hdr::kIpv6Len + GetBe16(ip + hdr::kIpv6PlenOfs);
  if (len > l3_size) return Verdict::kInvalid;
  const std::optional<V6FragHeader> f = FindV6FragHeader(p);
  if (!f || !(f->offlg & (kIp6fOffMask | kIp6fMoreFrag))) return Verdict::kNotFragment;
  const bool last = (f->offlg & kIp6fOffMask) && !(f->offlg & kIp6fMoreFrag);
  if (!last && len < cfg_.min_v6_frag_size) return Verdict::kInvalid;
  return Verdict::kFragment;
}

// ipf_reassemble_v6_frags (lib/ipf.c:452-506): the first fragment's packet
// (without padding) grown by the others' data, refused past 65535 bytes of
// payload; see ipf.h for the fragment header.
bool Ipf::ReassembleV6(const List& list, Packet* out) {
  const Packet& first = list.frags.front().packet;
  const size_t l3 = first.l3_ofs;
  const uint8_t* ip0 = first.l3();
  const size_t plen0 = GetBe16(ip0 + hdr::kIpv6PlenOfs);
  const size_t rest = list.frags.size() > 1 ? list.frags.back().end - list.frags[1].start + 1 : 0;
  const std::optional<V6FragHeader> f = FindV6FragHeader(first);
  if (!f || plen0 < kIpv6FragHdrLen || plen0 - kIpv6FragHdrLen + rest > 0xffff) return false;

  Bytes b = first.bytes();
  b.resize(l3 + hdr::kIpv6Len + plen0);
  // The header that named the fragment header names what followed it.
  b[l3 + f->naming_ofs] = b[l3 + f->ofs];
  b.erase(b.begin() + static_cast<long>(l3 + f->ofs),
          b.begin() + static_cast<long>(l3 + f->ofs + kIpv6FragHdrLen));
  for (size_t i = 1; i < list.frags.size(); i++) {
    const Frag& fr = list.frags[i];
    const Bytes data = fr.packet.bytes();
    b.insert(b.end(), data.begin() + fr.packet.l4_ofs,
             data.begin() + static_cast<long>(fr.packet.l4_ofs + (fr.end - fr.start + 1)));
  }
  PutBe16(&b[l3 + hdr::kIpv6PlenOfs], static_cast<uint16_t>(b.size() - l3 - hdr::kIpv6Len));
  Packet r(b);
  r.offloads = first.offloads;
  r.md = first.md;
  Parse(r);
  *out = std::move(r);
  return true;
}

// ipf_post_execute_reass_pkts (lib/ipf.c:1139-1210) for IPv6: the first
// fragment's L4 bytes (as many as it holds) from the reassembly's, and every
// fragment's conntrack metadata and addresses (no header checksum to fix).
PacketBatch Ipf::ReleaseV6(List& list, const Packet& reassembled) {
  const Bytes rb = reassembled.bytes();
  const size_t rl3 = reassembled.l3_ofs, rl4 = reassembled.l4_ofs;
  PacketBatch out;
  out.reserve(list.frags.size());
  for (size_t i = 0; i < list.frags.size(); i++) {
    Packet& f = list.frags[i].packet;
    uint8_t* d = f.data();
    if (i == 0 && rl4 != kNoOffset && f.l4_ofs != kNoOffset) {
      const size_t n = std::min(f.SizeFrom(f.l4_ofs), rb.size() - rl4);
      std::memcpy(d + f.l4_ofs, rb.data() + rl4, n);
    }
    std::memcpy(d + f.l3_ofs + hdr::kIpv6SrcOfs, rb.data() + rl3 + hdr::kIpv6SrcOfs, 32);
    f.md.ct_state = reassembled.md.ct_state;
    f.md.ct_zone = reassembled.md.ct_zone;
    f.md.ct_mark = reassembled.md.ct_mark;
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace offlab
