// Receive coalescing (LRO / driver GRO) of the frames a NIC received:
// Coalesce merges in-order, validated TCP segments of a flow as Linux's GRO
// does (models/src/linux/gro*.cc is the kernel's own model).
#include <algorithm>
#include <array>
#include <cstring>

#include "nic_internal.h"
#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/net/headers.h"
#include "offlab/nic/nic.h"
#include "offlab/ovs/complete.h"
#include "offlab/ovs/parse.h"
#include "offlab/ovs/tunnel.h"

namespace offlab {

namespace {

// The flow a segment belongs to: outer addresses, tunnel key word, inner
// addresses, ports and header length. Every header byte except lengths, ids,
// checksums, seq and flags would be too strict; these suffice.
struct GroKey {
  std::array<uint8_t, 2 * 32 + 4 + 4 + 2> b{};
  uint8_t n = 0;
  void Add(const uint8_t* p, size_t len) {
    std::memcpy(b.data() + n, p, len);
    n = static_cast<uint8_t>(n + len);
  }
  bool operator==(const GroKey& o) const {
    return n == o.n && std::memcmp(b.data(), o.b.data(), n) == 0;
  }
};

struct TcpView {
  bool ok = false;
  uint16_t tcp = 0;  // offset of the segmented TCP header
  size_t hdr_len = 0, payload = 0;
  uint32_t seq = 0, ack = 0;
  uint16_t flags = 0;
  GroKey key;
};

TcpView View(Packet& p, TunnelType tunnel) {
  TcpView v;
  Parse(p);
  uint16_t l3 = p.l3_ofs, l4 = p.l4_ofs;
  if (tunnel != TunnelType::kNone) {
    uint16_t inner = TunnelInnerOffset(p);
    if (inner == kNoOffset || !ParseInner(p, inner)) return v;
    l3 = p.inner_l3_ofs;
    l4 = p.inner_l4_ofs;
  }
  if (UpperProtocol(p, l3, l4) != hdr::kProtoTcp) return v;
  // GRO refuses a segment whose IPv4 header checksum is wrong, at each level
  // (torvalds/linux 006c8b834aed net/ipv4/af_inet.c inet_gro_receive:
  // ip_fast_csum(iph, 5) != 0 flushes it), whatever the NIC said of its TCP.
  auto ip_ok = [&](uint16_t ip) {
    if (!IsIpv4At(p, ip)) return true;
    size_t ihl = (p.head()[ip] & 0x0f) * 4u;
    return csum::Compute(p.Linear(ip + ihl) + ip, ihl) == 0;
  };
  if (!ip_ok(p.l3_ofs) || (tunnel != TunnelType::kNone && !ip_ok(l3))) return v;
  size_t len = L4Length(p, l3, l4);
  if (len < hdr::kTcpMinLen) return v;
  size_t thl = (p.Linear(l4 + hdr::kTcpMinLen)[l4 + hdr::kTcpOffFlagsOfs] >> 4) * 4u;
  if (thl < hdr::kTcpMinLen || thl > len) return v;
  // Everything read below lies before the end of the TCP header.
  const uint8_t* d = p.Linear(l4 + thl);
  const uint8_t* t = d + l4;
  v.ok = true;
  v.tcp = l4;
  v.hdr_len = l4 + thl;
  v.payload = len - thl;
  v.seq = GetBe32(t + hdr::kTcpSeqOfs);
  v.ack = GetBe32(t + hdr::kTcpAckOfs);
  v.flags = GetBe16(t + hdr::kTcpOffFlagsOfs) & 0x0fff;
  auto add_ip = [&](uint16_t ip) {
    if ((d[ip] >> 4) == 4)
      v.key.Add(d + ip + hdr::kIpv4SrcOfs, 8);
    else
      v.key.Add(d + ip + hdr::kIpv6SrcOfs, 32);
  };
  add_ip(p.l3_ofs);
  if (tunnel != TunnelType::kNone) {
    v.key.Add(d + p.inner_l2_ofs - 4, 4);  // VNI / key word
    add_ip(l3);
  }
  v.key.Add(d + l4, 4);
  uint8_t hl[2];
  PutBe16(hl, static_cast<uint16_t>(v.hdr_len));
  v.key.Add(hl, 2);
  return v;
}

// Whether the inner TCP checksum of a tunnelled segment View accepted verifies.
bool InnerTcpOk(Packet& p, const TcpView& v) {
  const size_t len = L4Length(p, p.inner_l3_ofs, v.tcp);
  const uint64_t ps =
      PseudoHeaderSum(p, p.inner_l3_ofs, hdr::kProtoTcp, static_cast<uint32_t>(len));
  return csum::Fold(PartialSum(p, v.tcp, len, ps)) == 0xffff;
}

void SetLengths(Packet& m, uint16_t l3, Level level) {
  if (l3 == kNoOffset) return;
  uint8_t* ip = m.Linear(l3 + hdr::kIpv6PlenOfs + 2u) + l3;
  if ((ip[0] >> 4) == 4) {
    PutBe16(ip + hdr::kIpv4TotLenOfs, static_cast<uint16_t>(m.size() - l3));
    m.offloads.set_ip(CsumStatus::kPartial, level);
  } else {
    PutBe16(ip + hdr::kIpv6PlenOfs, static_cast<uint16_t>(m.size() - l3 - hdr::kIpv6Len));
  }
}

// A frame passed on as received: its bytes and statuses, nothing parsed.
Packet Raw(Packet&& p) {
  Packet raw = std::move(p);
  raw.ResetOffsets();
  raw.md = {};
  raw.tso_segsz = 0;
  return raw;
}

struct Aggregate {
  Packet pkt;
  TcpView first;
  TunnelType tunnel = TunnelType::kNone;
  size_t segs = 1;
  uint32_t next_seq = 0;
  bool closed = false;  // a short or PSH segment ends it
};

Packet Finish(Aggregate& a) {
  if (a.segs < 2) return Raw(std::move(a.pkt));
  Packet& m = a.pkt;
  Offloads o;
  if (a.tunnel != TunnelType::kNone) {
    o.set_tunnel(a.tunnel);
    o.set_l4_proto(L4Proto::kTcp, Level::kInner);
    o.set_l4(CsumStatus::kPartial, Level::kInner);
    if (a.tunnel != TunnelType::kGre) {
      o.set_l4_proto(L4Proto::kUdp);
      uint8_t* udp = m.Linear(m.l4_ofs + hdr::kUdpLen) + m.l4_ofs;
      uint16_t c = GetBe16(udp + hdr::kUdpCsumOfs);
      o.set_l4(c ? CsumStatus::kPartial : CsumStatus::kGood);
      PutBe16(udp + hdr::kUdpLenOfs, static_cast<uint16_t>(m.size() - m.l4_ofs));
    }
  } else {
    o.set_l4_proto(L4Proto::kTcp);
    o.set_l4(CsumStatus::kPartial);
  }
  m.offloads = o;
  SetLengths(m, m.l3_ofs, Level::kOuter);
  if (a.tunnel != TunnelType::kNone) SetLengths(m, m.inner_l3_ofs, Level::kInner);
  m.tso_segsz = static_cast<uint16_t>(a.first.payload);
  return std::move(m);
}

}  // namespace

PacketBatch Coalesce(std::vector<std::pair<Packet, RxStatus>> frames, size_t max_bytes,
                     CoalesceStats* stats) {
  CoalesceStats s;
  PacketBatch out;
  out.reserve(frames.size());
  // Open aggregates, oldest first (Linux flushes its GRO list in that order);
  // a poll carries few flows, so a linear search beats any map.
  std::vector<Aggregate> open;
  auto find = [&](const GroKey& k) {
    return std::find_if(open.begin(), open.end(),
                        [&](const Aggregate& a) { return a.first.key == k; });
  };
  auto flush = [&](std::vector<Aggregate>::iterator it) {
    out.push_back(Finish(*it));
    open.erase(it);
  };
  for (auto& [p, st] : frames) {
    s.frames_in++;
    TcpView v = View(p, st.tunnel);
    // A verified non-zero outer UDP checksum vouches for the inner TCP one
    // only if that verifies too: Linux turns it into a complete sum
    // (skb_gro_checksum_try_convert in udp4_gro_receive) against which
    // tcp4_gro_receive validates the inner checksum (skb_gro_checksum_validate;
    // torvalds/linux 573e8fca255a, models/src/linux/gro_csum.cc), and flushes
    // a segment whose inner checksum the sender got wrong.
    bool validated =
        st.tunnel == TunnelType::kNone
            ? st.l4 == CsumStatus::kGood
            : st.inner_l4 == CsumStatus::kGood ||
                  (st.tunnel != TunnelType::kGre && st.l4 == CsumStatus::kGood &&
                   GetBe16(p.Linear(p.l4_ofs + hdr::kUdpLen) + p.l4_ofs + hdr::kUdpCsumOfs) != 0 &&
                   v.ok && InnerTcpOk(p, v));
    bool mergeable = v.ok && v.payload > 0 && !(v.flags & ~(hdr::kTcpAck | hdr::kTcpPsh));
    if (v.ok && !validated) s.not_validated++;
    if (!mergeable || !validated) {
      if (v.ok) {
        if (auto it = find(v.key); it != open.end()) flush(it);
      }
      out.push_back(Raw(std::move(p)));
      continue;
    }
    auto it = find(v.key);
    if (it != open.end()) {
      Aggregate& a = *it;
      bool fits = !a.closed && v.seq == a.next_seq && v.ack == a.first.ack &&
                  v.payload <= a.first.payload && a.pkt.size() + v.payload <= max_bytes;
      if (fits) {
        // A payload in a shared tail is appended as shared bytes.
        if (a.segs == 1 && !p.has_tail()) a.pkt.Reserve(max_bytes);
        a.pkt.AppendFrom(p, v.hdr_len, v.payload);
        a.segs++;
        a.next_seq += static_cast<uint32_t>(v.payload);
        s.merged++;
        if (v.payload < a.first.payload || (v.flags & hdr::kTcpPsh)) {
          uint8_t* t =
              a.pkt.Linear(a.first.tcp + hdr::kTcpMinLen) + a.first.tcp + hdr::kTcpOffFlagsOfs;
          PutBe16(t, GetBe16(t) | (v.flags & hdr::kTcpPsh));
          a.closed = true;
        }
        continue;
      }
      flush(it);
    }
    const uint32_t next = v.seq + static_cast<uint32_t>(v.payload);
    const bool closed = (v.flags & hdr::kTcpPsh) != 0;
    const size_t len = v.hdr_len + v.payload;
    open.push_back(Aggregate{std::move(p), std::move(v), st.tunnel, 1, next, closed});
    open.back().pkt.Resize(len);  // drop Ethernet padding
  }
  while (!open.empty()) flush(open.begin());
  s.packets_out = out.size();
  if (stats) *stats = s;
  return out;
}

}  // namespace offlab
