#include "offlab/nic/nic.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/net/headers.h"
#include "offlab/nic/caps.h"
#include "offlab/ovs/complete.h"
#include "offlab/ovs/faults.h"
#include "offlab/ovs/gso.h"
#include "offlab/ovs/parse.h"
#include "offlab/ovs/tunnel.h"

namespace offlab {

namespace {

uint32_t TnlTsoCap(TunnelType t) {
  switch (t) {
    case TunnelType::kVxlan:
      return cap::kVxlanTnlTso;
    case TunnelType::kGeneve:
      return cap::kGeneveTnlTso;
    case TunnelType::kGre:
      return cap::kGreTnlTso;
    case TunnelType::kNone:
      return 0;
  }
  return 0;
}

bool IsIpv4At(const Packet& p, uint16_t l3) {
  return l3 != kNoOffset && p.SizeFrom(l3) >= 1 && (p.Linear(l3 + 1u)[l3] >> 4) == 4;
}

// Intel-style outer UDP (DPDK Bugzilla 1406): the hardware adds the UDP
// segment to whatever the checksum field holds, expecting the pseudo-header
// sum there. Since DPDK f876dbef0809 the driver's tx_prepare
// (rte_net_intel_cksum_flags_prepare, reached through rte_eth_tx_prepare)
// seeds the field with the non-complemented outer pseudo-header sum; with TSO
// it omits the length, which the hardware adds per segment. Seeding each frame
// after segmentation with its own length is the same sum. With the
// intel-outer-udp-unseeded fault (DPDK before that commit) the field keeps
// what the datapath left there, e.g. OVS's 0xffff placeholder.
void SeededOuterUdp(Packet& f) {
  size_t len = L4Length(f, f.l3_ofs, f.l4_ofs);
  if (len < hdr::kUdpLen) return;
  const uint64_t pseudo = PseudoHeaderSum(f, f.l3_ofs, hdr::kProtoUdp, static_cast<uint32_t>(len));
  uint8_t* udp = f.Linear(f.l4_ofs + hdr::kUdpLen) + f.l4_ofs;
  if (!Faults::On(Fault::kIntelOuterUdpUnseeded)) {
    PutBe16(udp + hdr::kUdpCsumOfs, csum::Fold(pseudo));
  }
  uint16_t c = csum::Finish(PartialSum(f, f.l4_ofs, len));
  PutBe16(udp + hdr::kUdpCsumOfs, c ? c : 0xffff);
}

}  // namespace

NicTx NicTx::FromProfile(const NicProfile& p) {
  NicTx n;
  n.caps = p.tx_caps;
  n.outer_udp_needs_pseudo_seed = p.outer_udp_needs_pseudo_seed;
  n.outer_udp_left_as_is = p.outer_udp_left_as_is;
  n.tso_ipv4_only = p.tso_ipv4_only;
  return n;
}

namespace {

// The hardware's checksum work on one frame on its way out.
void CompleteFrame(Packet& f, const NicTx& nic, bool hw_tso, std::vector<std::string>* violations) {
  auto violation = [&](const std::string& what) {
    if (violations) violations->push_back(what);
  };
  // Whether the hardware performs a requested capability.
  auto performs = [&](uint32_t c, const char* what) {
    if (!(nic.caps & c)) {
      violation(std::string("requested ") + what + " without the capability");
      return false;
    }
    return !(nic.disabled & c);
  };
  Offloads& o = f.offloads;
  if (!o.tunnelled()) {
    if (o.ip() == CsumStatus::kPartial && IsIpv4At(f, f.l3_ofs) &&
        (hw_tso || performs(cap::kIpv4Cksum, "ipv4_cksum"))) {
      CompleteIpCsum(f, Level::kOuter);
    }
    if (o.l4() == CsumStatus::kPartial && o.l4_proto() != L4Proto::kNone &&
        (hw_tso || performs(CapForProto(o.l4_proto()), ToString(o.l4_proto())))) {
      CompleteL4Csum(f, Level::kOuter, o.l4_proto());
    }
    return;
  }
  if (o.ip(Level::kInner) == CsumStatus::kPartial && IsIpv4At(f, f.inner_l3_ofs) &&
      (hw_tso || performs(cap::kIpv4Cksum, "ipv4_cksum (inner)"))) {
    CompleteIpCsum(f, Level::kInner);
  }
  const L4Proto ip4 = o.l4_proto(Level::kInner);
  if (o.l4(Level::kInner) == CsumStatus::kPartial && ip4 != L4Proto::kNone &&
      (hw_tso || performs(CapForProto(ip4), "inner L4 checksum"))) {
    CompleteL4Csum(f, Level::kInner, ip4);
  }
  if (o.ip() == CsumStatus::kPartial && IsIpv4At(f, f.l3_ofs) &&
      (hw_tso || performs(cap::kOuterIpCksum, "outer_ip_cksum"))) {
    CompleteIpCsum(f, Level::kOuter);
  }
  if (o.l4() == CsumStatus::kPartial && o.tunnel() != TunnelType::kGre &&
      performs(cap::kOuterUdpCksum, "outer_udp_cksum") && !nic.outer_udp_left_as_is) {
    if (nic.outer_udp_needs_pseudo_seed) {
      SeededOuterUdp(f);
      o.set_l4(CsumStatus::kGood);
    } else {
      CompleteL4Csum(f, Level::kOuter, L4Proto::kUdp);
    }
  }
}

}  // namespace

bool NicSendsWhole(const Packet& p, const NicTx& nic) { return !(p.tso_segsz && nic.segments_tso); }

void NicTransmitWhole(Packet& p, const NicTx& nic, std::vector<std::string>* violations) {
  CompleteFrame(p, nic, false, violations);
}

PacketBatch NicTransmit(Packet in, const NicTx& nic, std::vector<std::string>* violations) {
  PacketBatch frames;
  bool hw_tso = false;
  if (in.tso_segsz && nic.segments_tso) {
    uint32_t need = cap::kTcpTso | TnlTsoCap(in.offloads.tunnel());
    if ((nic.caps & need) != need) {
      if (violations) {
        violations->push_back("requested TSO (" + CapsToString(need) + ") without the capability");
      }
      frames.push_back(std::move(in));
    } else if (nic.tso_ipv4_only &&
               !IsIpv4At(in, in.offloads.tunnelled() ? in.inner_l3_ofs : in.l3_ofs)) {
      frames.push_back(std::move(in));  // checksummed whole as for TSO, not segmented
      hw_tso = true;
    } else {
      frames = Gso(in);
      hw_tso = true;
    }
  } else {
    frames.push_back(std::move(in));
  }
  for (Packet& f : frames) CompleteFrame(f, nic, hw_tso, violations);
  return frames;
}

Packet NicReceive(Bytes frame, const NicProfile& profile, RxStatus* status) {
  return NicReceive(Packet::Adopt(std::move(frame)), profile, status);
}

Packet NicReceive(Packet p, const NicProfile& profile, RxStatus* status) {
  Parse(p);
  RxStatus st;
  st.tunnel = DetectTunnel(p);
  const RxValidation& rx = profile.rx_for(st.tunnel);

  auto ip_status = [&](uint16_t l3) {
    if (!IsIpv4At(p, l3)) return CsumStatus::kUnknown;
    size_t ihl = (p.head()[l3] & 0x0f) * 4u;
    const uint8_t* ip = p.Linear(l3 + ihl) + l3;
    return csum::Compute(ip, ihl) == 0 ? CsumStatus::kGood : CsumStatus::kBad;
  };
  auto l4_status = [&](uint16_t l3, uint16_t l4) {
    int proto = UpperProtocol(p, l3, l4);
    size_t len = L4Length(p, l3, l4);
    if (proto == hdr::kProtoTcp || proto == hdr::kProtoUdp) {
      if (proto == hdr::kProtoUdp && len >= hdr::kUdpLen &&
          GetBe16(p.Linear(l4 + hdr::kUdpLen) + l4 + hdr::kUdpCsumOfs) == 0) {
        // "No checksum" is not an error, except to DPDK's TAP PMD, which
        // reports RX_L4_CKSUM_NONE for it over IPv4 and checks it over IPv6
        // (drivers/net/tap/rte_eth_tap.c:384-403 at v22.11.11).
        if (!profile.rx_zero_udp_csum_literal) return CsumStatus::kGood;
        if (IsIpv4At(p, l3)) return CsumStatus::kPartial;
      }
      if (len < (proto == hdr::kProtoTcp ? hdr::kTcpMinLen : hdr::kUdpLen)) {
        return CsumStatus::kUnknown;
      }
      uint64_t ps = PseudoHeaderSum(p, l3, static_cast<uint8_t>(proto), static_cast<uint32_t>(len));
      // A shared payload is summed where it lies (its slices' sums reused).
      return csum::Fold(PartialSum(p, l4, len, ps)) == 0xffff ? CsumStatus::kGood
                                                              : CsumStatus::kBad;
    }
    if (proto == hdr::kProtoSctp && len >= hdr::kSctpLen) {
      const uint8_t* t = p.data() + l4;
      Bytes copy(t, t + len);
      uint32_t field = GetBe32(copy.data() + hdr::kSctpCsumOfs);
      PutBe32(copy.data() + hdr::kSctpCsumOfs, 0);
      return __builtin_bswap32(csum::Crc32c(copy.data(), len)) == field ? CsumStatus::kGood
                                                                        : CsumStatus::kBad;
    }
    return CsumStatus::kUnknown;
  };

  if (rx.outer_ip) st.ip = ip_status(p.l3_ofs);
  if (rx.outer_l4 && p.l4_ofs != kNoOffset) st.l4 = l4_status(p.l3_ofs, p.l4_ofs);
  if (st.tunnel != TunnelType::kNone) {
    uint16_t inner = TunnelInnerOffset(p, st.tunnel);  // p is as DetectTunnel saw it
    if (inner != kNoOffset && ParseInner(p, inner)) {
      if (rx.inner_ip) st.inner_ip = ip_status(p.inner_l3_ofs);
      if (rx.inner_l4 && p.inner_l4_ofs != kNoOffset) {
        st.inner_l4 = l4_status(p.inner_l3_ofs, p.inner_l4_ofs);
      }
    }
  }
  // The host gets the frame unparsed, with only the statuses the NIC reports.
  p.ResetOffsets();
  p.offloads = Offloads();
  p.md = {};
  p.tso_segsz = 0;
  p.offloads.set_ip(st.ip);
  p.offloads.set_l4(st.l4);
  if (status) *status = st;
  return p;
}

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
