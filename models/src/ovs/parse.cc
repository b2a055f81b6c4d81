#include "offlab/ovs/parse.h"

#include <cstdio>
#include <cstring>

#include "offlab/net/bytes.h"
#include "offlab/net/headers.h"
#include "offlab/ovs/faults.h"

namespace offlab {

namespace {

// 32-bit fields: built from 16-bit stores and returned in one register, the
// struct cost a store-forwarding stall on every parse. The protocol is 32-bit
// too: a byte stored and the word around it loaded back stalled the same way.
struct L3L4 {
  uint32_t l3 = kNoOffset, l4 = kNoOffset;
  uint32_t proto_ = static_cast<uint32_t>(L4Proto::kNone);
  L4Proto proto() const { return static_cast<L4Proto>(proto_); }
  void set_proto(L4Proto p) { proto_ = static_cast<uint32_t>(p); }
};

// Parses from an L2 header at `ofs`; fills `key` and returns the offsets.
// Only the first `readable` bytes of the packet's `size` are at `d` (a packet
// with a shared tail): a header that would be read past them sets `more` and
// stops, and the caller parses again over the whole packet. When every byte
// is readable, each of those stops is implied by a size check before it.
// Inlined into its callers: returned through the stack, the offsets were
// stored as two words and loaded back as one, a store-forwarding stall on
// every parse.
[[gnu::always_inline]] inline L3L4 ParseFrom(const uint8_t* d, size_t size, size_t ofs,
                                             FlowKey& key, uint16_t* l2_5, size_t readable,
                                             bool& more) {
  L3L4 r;
  auto beyond = [&](size_t end) {
    more = end > readable;
    return more;
  };
  if (size - ofs < hdr::kEthLen) {
    key.error = "ethernet: frame shorter than 14 bytes";
    return r;
  }
  if (beyond(ofs + hdr::kEthLen)) return r;
  std::memcpy(key.dl_dst.data(), d + ofs, 6);
  std::memcpy(key.dl_src.data(), d + ofs + 6, 6);
  size_t p = ofs + 12;
  uint16_t type = GetBe16(d + p);
  p += 2;
  // Up to two VLAN tags (802.1ad outer, 802.1Q inner).
  for (int tags = 0; (type == hdr::kEthTypeVlan || type == hdr::kEthTypeQinQ) && tags < 2; tags++) {
    if (size - p < hdr::kVlanLen) {
      key.error = "vlan: truncated tag";
      key.dl_type = type;
      return r;
    }
    if (beyond(p + hdr::kVlanLen)) return r;
    if (tags == 0) {
      key.has_vlan = true;
      key.vlan_tci = GetBe16(d + p);
      if (l2_5) *l2_5 = static_cast<uint16_t>(p - 2);
    }
    type = GetBe16(d + p + 2);
    p += hdr::kVlanLen;
  }
  // An 802.3 length: an LLC/SNAP header (AA AA 03) with OUI 0 carries the
  // Ethertype (parse_ethertype, OVS d6a632a9b lib/flow.c:373-404).
  if (type < 0x600 && size - p >= 8) {
    if (beyond(p + 8)) return r;
    const uint8_t* llc = d + p;
    if (llc[0] == 0xaa && llc[1] == 0xaa && llc[2] == 0x03 && llc[3] == 0 && llc[4] == 0 &&
        llc[5] == 0) {
      type = GetBe16(llc + 6);
      p += 8;
    }
  }
  key.dl_type = type < 0x600 ? 0x05ff : type;  // 802.3 length field: no L3 (OVS FLOW_DL_TYPE_NONE)
  const size_t l3 = p;
  size_t l4 = 0, l4_size = 0;
  uint8_t proto = 0;

  if (type == hdr::kEthTypeIpv4) {
    size_t avail = size - l3;
    if (avail < hdr::kIpv4MinLen) {
      key.error = "ipv4: header truncated";
      return r;
    }
    if (beyond(l3 + hdr::kIpv4MinLen)) return r;
    const uint8_t* ip = d + l3;
    size_t ihl = (ip[0] & 0x0f) * 4u;
    size_t tot = GetBe16(ip + hdr::kIpv4TotLenOfs);
    if ((ip[0] >> 4) != 4) {
      key.error = "ipv4: bad version";
      return r;
    }
    // The length checks of ipv4_sanity_check (OVS d6a632a9b lib/flow.c:683-710).
    if (ihl < hdr::kIpv4MinLen) {
      key.error = "ipv4: IHL below 20 bytes";
      return r;
    }
    if (ihl > avail) {
      key.error = "ipv4: IHL exceeds frame";
      return r;
    }
    if (tot < ihl || tot > avail) {
      key.error = "ipv4: total length inconsistent with frame";
      return r;
    }
    if (avail - tot > 0xffff) {  // dp_packet's l2_pad_size is 16 bits
      key.error = "ipv4: more than 65535 bytes after the total length";
      return r;
    }
    key.has_l3 = true;
    r.l3 = static_cast<uint16_t>(l3);
    std::memcpy(key.nw_src.data(), ip + hdr::kIpv4SrcOfs, 4);
    std::memcpy(key.nw_dst.data(), ip + hdr::kIpv4DstOfs, 4);
    key.nw_tos = ip[hdr::kIpv4TosOfs];
    key.nw_ttl = ip[hdr::kIpv4TtlOfs];
    proto = key.nw_proto = ip[hdr::kIpv4ProtoOfs];
    uint16_t fo = GetBe16(ip + hdr::kIpv4FragOfs);
    if (fo & (hdr::kIpv4MoreFragments | hdr::kIpv4FragOffsetMask)) {
      key.nw_frag = frag::kAny;
      if (fo & hdr::kIpv4FragOffsetMask) key.nw_frag |= frag::kLater;
    }
    l4 = l3 + ihl;
    l4_size = tot - ihl;
  } else if (type == hdr::kEthTypeIpv6) {
    size_t avail = size - l3;
    if (avail < hdr::kIpv6Len) {
      key.error = "ipv6: header truncated";
      return r;
    }
    if (beyond(l3 + hdr::kIpv6Len)) return r;
    const uint8_t* ip = d + l3;
    size_t plen = GetBe16(ip + hdr::kIpv6PlenOfs);
    if ((ip[0] >> 4) != 6) {
      key.error = "ipv6: bad version";
      return r;
    }
    // ipv6_sanity_check (OVS d6a632a9b lib/flow.c:729-749).
    if (plen > avail - hdr::kIpv6Len) {
      key.error = "ipv6: payload length exceeds frame";
      return r;
    }
    if (avail - hdr::kIpv6Len - plen > 0xffff) {
      key.error = "ipv6: more than 65535 bytes after the payload length";
      return r;
    }
    key.has_l3 = true;
    key.ipv6 = true;
    r.l3 = static_cast<uint16_t>(l3);
    std::memcpy(key.nw_src.data(), ip + hdr::kIpv6SrcOfs, 16);
    std::memcpy(key.nw_dst.data(), ip + hdr::kIpv6DstOfs, 16);
    key.nw_tos = static_cast<uint8_t>((GetBe16(ip) >> 4) & 0xff);
    key.nw_ttl = ip[hdr::kIpv6HlimOfs];
    uint8_t nh = ip[hdr::kIpv6NextOfs];
    size_t q = l3 + hdr::kIpv6Len, end = l3 + hdr::kIpv6Len + plen;
    // Walk the extension headers the datapath understands (parse_ipv6_ext_hdrs__,
    // OVS d6a632a9b lib/flow.c:487-578), AH (51) among them.
    constexpr uint8_t kProtoAh = 51;
    // A walk that fails leaves the flow with the addresses but no nw_frag,
    // nw_tos, nw_ttl or nw_proto: miniflow_extract jumps to `out` before
    // pushing them (openvswitch/ovs v3.1.0 lib/flow.c:949-953 and 1002-1003;
    // checked with ovs-vswitchd 3.1.0, ovs-diff case ip-header-incomplete).
    // (nw_proto is set only after the walk.)
    auto ext_fail = [&key, &r](const char* why) {
      key.error = why;
      key.nw_tos = key.nw_ttl = key.nw_frag = 0;
      return r;
    };
    while (nh == hdr::kProtoHopByHop || nh == hdr::kProtoRouting || nh == hdr::kProtoDestOpts ||
           nh == hdr::kProtoFragment || nh == kProtoAh) {
      if (end - q < 8) return ext_fail("ipv6: extension header truncated");
      if (beyond(q + 8)) return r;
      if (nh == hdr::kProtoFragment) {
        uint16_t off = GetBe16(d + q + 2);
        // An atomic fragment (ip6f_offlg zero) is no fragment; a later one
        // stops the walk with nw_proto IPPROTO_FRAGMENT (flow.c:568-575).
        if (off != 0) key.nw_frag = frag::kAny;
        if (off & 0xfff8) key.nw_frag |= frag::kLater;
        nh = d[q];
        q += hdr::kIpv6FragHdrLen;
        if (key.nw_frag & frag::kLater) {
          nh = hdr::kProtoFragment;
          break;
        }
        continue;
      }
      // AH's length is in 32-bit words minus 2 (RFC 4302 section 2.2).
      size_t len = nh == kProtoAh ? (d[q + 1] + 2u) * 4u : (d[q + 1] + 1u) * 8u;
      if (len > end - q) return ext_fail("ipv6: extension header exceeds payload");
      nh = d[q];
      q += len;
    }
    proto = key.nw_proto = nh;
    l4 = q;
    l4_size = end - q;
  } else {
    return r;
  }

  // The L4 offset is where the IP payload starts, whatever is there: a later
  // fragment's data, a header cut short (miniflow_extract sets l4_ofs before
  // looking at the L4 header, openvswitch/ovs v3.1.0 lib/flow.c:1001). Only a
  // complete header gives ports, flags and the L4 protocol.
  r.l4 = static_cast<uint16_t>(l4);
  if (key.nw_frag & frag::kLater) return r;  // no L4 header in later fragments
  const uint8_t* t = d + l4;
  switch (proto) {
    case hdr::kProtoTcp: {
      if (l4_size < hdr::kTcpMinLen) {
        key.error = "tcp: header truncated";
        return r;
      }
      if (beyond(l4 + hdr::kTcpMinLen)) return r;
      size_t off = (t[hdr::kTcpOffFlagsOfs] >> 4) * 4u;
      if (off < hdr::kTcpMinLen || off > l4_size) {
        key.error = "tcp: bad data offset";
        return r;
      }
      key.tp_src = GetBe16(t);
      key.tp_dst = GetBe16(t + 2);
      key.tcp_flags = GetBe16(t + hdr::kTcpOffFlagsOfs) & 0x0fff;
      r.set_proto(L4Proto::kTcp);
      break;
    }
    case hdr::kProtoUdp:
      if (l4_size < hdr::kUdpLen) {
        key.error = "udp: header truncated";
        return r;
      }
      if (beyond(l4 + hdr::kUdpLen)) return r;
      key.tp_src = GetBe16(t);
      key.tp_dst = GetBe16(t + 2);
      r.set_proto(L4Proto::kUdp);
      break;
    case hdr::kProtoSctp:
      if (l4_size < hdr::kSctpLen) {
        key.error = "sctp: header truncated";
        return r;
      }
      if (beyond(l4 + hdr::kSctpLen)) return r;
      key.tp_src = GetBe16(t);
      key.tp_dst = GetBe16(t + 2);
      r.set_proto(L4Proto::kSctp);
      break;
    case hdr::kProtoIcmp:
    case hdr::kProtoIcmpv6:
      // ICMP_HEADER_LEN and sizeof(struct icmp6_data_header), both 8 bytes
      // (OVS d6a632a9b lib/flow.c:1093, 1114; lib/packets.h).
      if (l4_size < 8) {
        key.error = "icmp: header truncated";
        return r;
      }
      if (beyond(l4 + 8)) return r;
      key.tp_src = t[0];
      key.tp_dst = t[1];
      break;
    default:
      return r;  // opaque payload: its start is the L4 offset
  }
  key.has_l4 = true;
  return r;
}

void ResetOuter(Packet& p) {
  p.l2_5_ofs = p.l3_ofs = p.l4_ofs = kNoOffset;
  // c77175824: a tunnelled packet keeps its inner offsets across re-parse.
  // The seeded bug is the earlier behaviour that dropped them.
  if (!p.offloads.tunnelled() || Faults::On(Fault::kRecircResetsInnerOffsets)) {
    p.inner_l2_ofs = p.inner_l3_ofs = p.inner_l4_ofs = kNoOffset;
  }
  if (p.offloads.tunnelled() && Faults::On(Fault::kRecircResetsInnerOffsets)) {
    // The seeded bug also let the outer proto/status stand for the inner ones.
    Offloads& o = p.offloads;
    o.set_ip(o.ip(Level::kOuter), Level::kInner);
    o.set_l4(o.l4(Level::kOuter), Level::kInner);
    o.set_l4_proto(o.l4_proto(Level::kOuter), Level::kInner);
  }
}

// The outer headers from byte 0; l2_5_ofs was reset by the caller.
[[gnu::always_inline]] inline L3L4 ParseOuter(Packet& p, FlowKey& key) {
  bool more = false;
  L3L4 r = ParseFrom(p.head(), p.size(), 0, key, &p.l2_5_ofs, p.head_size(), more);
  if (more) {
    // Headers run into the shared tail: parse the whole bytes.
    p.Linearize();
    key = FlowKey();
    p.l2_5_ofs = kNoOffset;
    r = ParseFrom(p.head(), p.size(), 0, key, &p.l2_5_ofs, p.head_size(), more);
  }
  return r;
}

}  // namespace

FlowKey Parse(Packet& p) {
  FlowKey key;
  ResetOuter(p);
  L3L4 r = ParseOuter(p, key);
  p.l3_ofs = static_cast<uint16_t>(r.l3);
  p.l4_ofs = static_cast<uint16_t>(r.l4);
  if (r.proto() != L4Proto::kNone) p.offloads.set_l4_proto(r.proto());
  return key;
}

FlowKey ParseSimple(Packet& p) {
  FlowKey key;
  ResetOuter(p);
  L3L4 r = ParseOuter(p, key);
  p.l3_ofs = static_cast<uint16_t>(r.l3);
  p.l4_ofs = static_cast<uint16_t>(r.l4);
  if (r.proto() != L4Proto::kNone && !Faults::On(Fault::kSimpleMatchNoL4Proto)) {
    p.offloads.set_l4_proto(r.proto());
  }
  // The fast path extracts only what the simple-match key holds.
  FlowKey simple;
  simple.dl_type = key.dl_type;
  simple.nw_proto = key.nw_proto;
  simple.tcp_flags = key.tcp_flags;
  simple.has_l3 = key.has_l3;
  simple.has_l4 = key.has_l4;
  simple.error = key.error;
  return simple;
}

bool ParseInner(Packet& p, uint16_t l2_ofs) {
  FlowKey key;
  if (l2_ofs == kNoOffset || l2_ofs > p.size()) return false;
  bool more = false;
  L3L4 r = ParseFrom(p.head(), p.size(), l2_ofs, key, nullptr, p.head_size(), more);
  if (more) {
    // Headers run into the shared tail: parse the whole bytes.
    p.Linearize();
    key = FlowKey();
    r = ParseFrom(p.head(), p.size(), l2_ofs, key, nullptr, p.head_size(), more);
  }
  p.inner_l2_ofs = l2_ofs;
  p.inner_l3_ofs = static_cast<uint16_t>(r.l3);
  // A receiving NIC or GRO locates an inner L4 header only when there is one:
  // not a later fragment's data or a header cut short, which the outer parse
  // gives an L4 offset as miniflow_extract does.
  const bool l4 = key.has_l4 || (key.error.empty() && !(key.nw_frag & frag::kLater));
  p.inner_l4_ofs = l4 ? static_cast<uint16_t>(r.l4) : kNoOffset;
  if (r.proto() != L4Proto::kNone) p.offloads.set_l4_proto(r.proto(), Level::kInner);
  return r.l3 != kNoOffset;
}

std::string FlowKey::ToString() const {
  char buf[256];
  if (!has_l3) {
    std::snprintf(buf, sizeof buf, "dl_type=0x%04x", dl_type);
    return buf;
  }
  auto ip = [&](const IpAddr& a) {
    char s[64];
    if (!ipv6) {
      std::snprintf(s, sizeof s, "%u.%u.%u.%u", a[0], a[1], a[2], a[3]);
    } else {
      std::snprintf(s, sizeof s, "%x:%x:%x:%x:%x:%x:%x:%x", GetBe16(&a[0]), GetBe16(&a[2]),
                    GetBe16(&a[4]), GetBe16(&a[6]), GetBe16(&a[8]), GetBe16(&a[10]),
                    GetBe16(&a[12]), GetBe16(&a[14]));
    }
    return std::string(s);
  };
  std::snprintf(buf, sizeof buf, "%s %s>%s proto=%u tp=%u>%u", ipv6 ? "ipv6" : "ipv4",
                ip(nw_src).c_str(), ip(nw_dst).c_str(), nw_proto, tp_src, tp_dst);
  return buf;
}

}  // namespace offlab
