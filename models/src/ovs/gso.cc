#include "offlab/ovs/gso.h"

#include <algorithm>

#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/net/error.h"
#include "offlab/net/headers.h"
#include "offlab/net/work.h"
#include "offlab/ovs/complete.h"

namespace offlab {

namespace {

struct TsoLayout {
  uint16_t tcp_ofs = kNoOffset;  // the segmented TCP header
  uint16_t tcp_l3_ofs = kNoOffset;
  size_t hdr_len = 0;  // all headers up to the TCP payload
  size_t payload = 0;
  Level tcp_level = Level::kOuter;
};

TsoLayout Layout(const Packet& p) {
  TsoLayout t;
  const bool tunnelled = p.offloads.tunnelled();
  t.tcp_level = tunnelled ? Level::kInner : Level::kOuter;
  t.tcp_ofs = tunnelled ? p.inner_l4_ofs : p.l4_ofs;
  t.tcp_l3_ofs = tunnelled ? p.inner_l3_ofs : p.l3_ofs;
  if (t.tcp_ofs == kNoOffset || t.tcp_l3_ofs == kNoOffset ||
      UpperProtocol(p, t.tcp_l3_ofs, t.tcp_ofs) != hdr::kProtoTcp) {
    throw Error("gso: TSO packet without a TCP header at its (inner) L4 offset");
  }
  size_t tcp_len = L4Length(p, t.tcp_l3_ofs, t.tcp_ofs);
  if (tcp_len < hdr::kTcpMinLen) throw Error("gso: TCP header truncated");
  size_t thl = (p.Linear(t.tcp_ofs + hdr::kTcpMinLen)[t.tcp_ofs + hdr::kTcpOffFlagsOfs] >> 4) * 4u;
  if (thl < hdr::kTcpMinLen || thl > tcp_len) throw Error("gso: bad TCP data offset");
  t.hdr_len = t.tcp_ofs + thl;
  t.payload = tcp_len - thl;
  return t;
}

// Fixes the length, id and checksum fields of one IP header of a segment.
void FixIp(Packet& s, uint16_t l3, Level level, size_t seg_no) {
  if (l3 == kNoOffset) return;
  uint8_t* ip = s.Linear(l3 + hdr::kIpv6Len) + l3;
  if ((ip[0] >> 4) == 4) {
    PutBe16(ip + hdr::kIpv4TotLenOfs, static_cast<uint16_t>(s.size() - l3));
    PutBe16(ip + hdr::kIpv4IdOfs, static_cast<uint16_t>(GetBe16(ip + hdr::kIpv4IdOfs) + seg_no));
    PutBe16(ip + hdr::kIpv4CsumOfs, 0);
    s.offloads.set_ip(CsumStatus::kPartial, level);
  } else {
    PutBe16(ip + hdr::kIpv6PlenOfs, static_cast<uint16_t>(s.size() - l3 - hdr::kIpv6Len));
  }
}

void FixOuterL4(Packet& s) {
  if (!s.offloads.tunnelled() || s.l4_ofs == kNoOffset) return;
  uint8_t* l4 = s.Linear(s.l4_ofs + hdr::kUdpLen) + s.l4_ofs;
  if (s.offloads.tunnel() == TunnelType::kGre) {
    uint16_t flags = GetBe16(l4);
    if (flags & hdr::kGreFlagC) {
      // Recomputed now, over inner bytes whose partial checksums are not
      // final yet - as OVS does.
      PutBe16(l4 + 4, 0);
      PutBe16(l4 + 4, csum::Finish(PartialSum(s, s.l4_ofs, s.size() - s.l4_ofs)));
    }
    return;
  }
  PutBe16(l4 + hdr::kUdpLenOfs, static_cast<uint16_t>(s.size() - s.l4_ofs));
}

// Builds segment `seg_no` carrying payload bytes [off, off+len).
Packet MakeSegment(const Packet& p, const TsoLayout& t, size_t seg_no, size_t off, size_t len,
                   bool last) {
  // Segments leave at egress, where nothing pushes headers any more: no
  // headroom, and the headers and payload copied once into an exact buffer.
  // A payload in a shared tail stays shared: the segment refers to its slice.
  Packet s(nullptr, 0, 0);
  const size_t payload_in_head =
      p.head_size() > t.hdr_len + off ? std::min(len, p.head_size() - t.hdr_len - off) : 0;
  s.Reserve(t.hdr_len + payload_in_head);
  s.AppendFrom(p, 0, t.hdr_len);
  s.AppendFrom(p, t.hdr_len + off, len);
  s.l2_5_ofs = p.l2_5_ofs;
  s.l3_ofs = p.l3_ofs;
  s.l4_ofs = p.l4_ofs;
  s.inner_l2_ofs = p.inner_l2_ofs;
  s.inner_l3_ofs = p.inner_l3_ofs;
  s.inner_l4_ofs = p.inner_l4_ofs;
  s.offloads = p.offloads;
  s.md = p.md;
  s.tso_segsz = 0;

  FixIp(s, s.l3_ofs, Level::kOuter, seg_no);
  if (s.offloads.tunnelled()) FixIp(s, s.inner_l3_ofs, Level::kInner, seg_no);
  uint8_t* tcp = s.Linear(t.tcp_ofs + hdr::kTcpMinLen) + t.tcp_ofs;
  PutBe32(tcp + hdr::kTcpSeqOfs, GetBe32(tcp + hdr::kTcpSeqOfs) + static_cast<uint32_t>(off));
  if (!last) {
    uint16_t f = GetBe16(tcp + hdr::kTcpOffFlagsOfs);
    PutBe16(tcp + hdr::kTcpOffFlagsOfs, f & ~(hdr::kTcpPsh | hdr::kTcpFin));
  }
  s.offloads.set_l4(CsumStatus::kPartial, t.tcp_level);
  FixOuterL4(s);
  return s;
}

}  // namespace

PacketBatch Gso(const Packet& p, Counters* counters) {
  if (!p.tso_segsz) return {p};
  TsoLayout t = Layout(p);
  PacketBatch out;
  const size_t n = std::max<size_t>(1, (t.payload + p.tso_segsz - 1) / p.tso_segsz);
  out.reserve(n);
  for (size_t i = 0; i < n; i++) {
    size_t off = i * p.tso_segsz;
    size_t len = std::min<size_t>(p.tso_segsz, t.payload - off);
    out.push_back(MakeSegment(p, t, i, off, len, i + 1 == n));
    work::Segment(out.back().size());
  }
  Count(counters, "dp_packet_gso");
  return out;
}

int GsoPartialNrSegs(const Packet& p) {
  const TunnelType type = p.offloads.tunnel();
  if (!p.tso_segsz || (type != TunnelType::kVxlan && type != TunnelType::kGeneve) ||
      p.offloads.l4() != CsumStatus::kPartial) {
    return 1;
  }
  return Layout(p).payload % p.tso_segsz ? 2 : 1;
}

PacketBatch GsoPartial(const Packet& p, Counters* counters) {
  if (GsoPartialNrSegs(p) != 2) return {p};
  TsoLayout t = Layout(p);
  const size_t n = (t.payload + p.tso_segsz - 1) / p.tso_segsz;
  PacketBatch out;
  if (n == 1) {
    // Shorter than one segment: it is a single frame already.
    Packet only = p;
    only.tso_segsz = 0;
    out.push_back(std::move(only));
  } else {
    const size_t head = (n - 1) * p.tso_segsz;
    // The head stays one TSO packet for the hardware; its length fields
    // changed, so its IPv4 checksums are partial like any GSO segment's.
    Packet h = MakeSegment(p, t, 0, 0, head, false);
    h.tso_segsz = n - 1 == 1 ? 0 : p.tso_segsz;
    if (h.tso_segsz) {
      // dp_packet_gso_update_segment leaves the flags of a segment that is
      // still TSO alone: the hardware clears PSH/FIN on all but its last frame.
      const size_t flags_ofs = t.tcp_ofs + hdr::kTcpOffFlagsOfs;
      PutBe16(h.Linear(flags_ofs + 2) + flags_ofs, GetBe16(p.Linear(flags_ofs + 2) + flags_ofs));
    }
    out.push_back(std::move(h));
    out.push_back(MakeSegment(p, t, n - 1, head, t.payload - head, true));
    // The head is the original buffer trimmed in place; only the tail is new.
    work::Segment(out.back().size());
  }
  Count(counters, "dp_packet_partial_gso");
  return out;
}

}  // namespace offlab
