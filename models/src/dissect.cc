// An independent decoder: it re-derives every layer boundary from the bytes
// (it does not use the datapath parser) and recomputes every checksum.
#include "offlab/dissect.h"

#include <cstdio>
#include <sstream>

#include "offlab/checksum.h"
#include "offlab/headers.h"

namespace offlab {

namespace {

struct Cursor {
  const uint8_t* d;
  size_t len;
  Dissection* out;
  bool Fail(const std::string& why) {
    if (!out->error) out->error = why;
    return false;
  }
};

std::string Ip4(const uint8_t* a) {
  char s[20];
  std::snprintf(s, sizeof s, "%u.%u.%u.%u", a[0], a[1], a[2], a[3]);
  return s;
}

std::string Ip6(const uint8_t* a) {
  char s[48];
  std::snprintf(s, sizeof s, "%x:%x:%x:%x:%x:%x:%x:%x", GetBe16(a), GetBe16(a + 2), GetBe16(a + 4),
                GetBe16(a + 6), GetBe16(a + 8), GetBe16(a + 10), GetBe16(a + 12), GetBe16(a + 14));
  return s;
}

std::string Hex16(uint32_t v) {
  char s[12];
  std::snprintf(s, sizeof s, "0x%04x", v);
  return s;
}

void AddCsum(Dissection& out, const char* layer, int depth, size_t ofs, uint32_t value,
             uint32_t expected, Verdict v) {
  out.checksums.push_back({layer, depth, ofs, value, expected, v});
}

bool Ethernet(Cursor& c, size_t ofs, int depth);

// L4 and tunnels inside an IP payload [ofs, ofs+len). `pseudo` is the
// pseudo-header sum without protocol and length.
bool Transport(Cursor& c, size_t ofs, size_t len, uint8_t proto, int depth, bool v6,
               const uint8_t* src, const uint8_t* dst) {
  const uint8_t* t = c.d + ofs;
  auto pseudo = [&](uint8_t p) {
    return v6 ? csum::PseudoIpv6(src, dst, p, static_cast<uint32_t>(len))
              : csum::PseudoIpv4(src, dst, p, static_cast<uint16_t>(len));
  };
  // Expected value of a 16-bit checksum field at `field` given the rest.
  auto expected16 = [&](size_t field, uint64_t ps) {
    uint64_t s = csum::Partial(t, field, ps);
    s = csum::Partial(t + field + 2, len - field - 2, s + 0);
    // The data after the field starts at an even offset: fine to continue.
    return static_cast<uint16_t>(csum::Finish(s));
  };
  switch (proto) {
    case hdr::kProtoTcp: {
      if (len < hdr::kTcpMinLen) return c.Fail("tcp: header truncated");
      size_t off = (t[12] >> 4) * 4u;
      if (off < hdr::kTcpMinLen || off > len) return c.Fail("tcp: bad data offset");
      uint16_t f = GetBe16(t + 12) & 0x1ff;
      std::string flags;
      const char* names = "FSRPAUECN";
      for (int i = 0; i < 9; i++) {
        if (f & (1 << i)) flags.push_back(names[i]);
      }
      c.out->layers.push_back({"tcp", depth, ofs, off,
                               std::to_string(GetBe16(t)) + " > " + std::to_string(GetBe16(t + 2)) +
                                   " [" + flags + "] seq " + std::to_string(GetBe32(t + 4)) +
                                   " len " + std::to_string(len - off)});
      uint16_t v = GetBe16(t + hdr::kTcpCsumOfs), e = expected16(hdr::kTcpCsumOfs, pseudo(proto));
      AddCsum(*c.out, "tcp", depth, ofs + hdr::kTcpCsumOfs, v, e,
              v == e ? Verdict::kCorrect : Verdict::kIncorrect);
      return true;
    }
    case hdr::kProtoUdp: {
      if (len < hdr::kUdpLen) return c.Fail("udp: header truncated");
      uint16_t sport = GetBe16(t), dport = GetBe16(t + 2), ulen = GetBe16(t + 4);
      c.out->layers.push_back(
          {"udp", depth, ofs, hdr::kUdpLen,
           std::to_string(sport) + " > " + std::to_string(dport) + " len " + std::to_string(ulen)});
      if (ulen != len)
        c.Fail("udp: length " + std::to_string(ulen) + " != IP payload " + std::to_string(len));
      uint16_t v = GetBe16(t + hdr::kUdpCsumOfs);
      uint16_t e = expected16(hdr::kUdpCsumOfs, pseudo(proto));
      if (e == 0) e = 0xffff;
      AddCsum(*c.out, "udp", depth, ofs + hdr::kUdpCsumOfs, v, e,
              v == 0   ? Verdict::kAbsent
              : v == e ? Verdict::kCorrect
                       : Verdict::kIncorrect);
      const size_t in = ofs + hdr::kUdpLen, in_len = len - hdr::kUdpLen;
      if (dport == hdr::kVxlanPort) {
        if (in_len < hdr::kVxlanLen) return c.Fail("vxlan: header truncated");
        c.out->layers.push_back({"vxlan", depth, in, hdr::kVxlanLen,
                                 "vni " + std::to_string(GetBe32(c.d + in + 4) >> 8)});
        return Ethernet(c, in + hdr::kVxlanLen, depth + 1);
      }
      if (dport == hdr::kGenevePort) {
        if (in_len < hdr::kGeneveBaseLen) return c.Fail("geneve: header truncated");
        size_t opt = (c.d[in] & 0x3f) * 4u;
        if (in_len < hdr::kGeneveBaseLen + opt) return c.Fail("geneve: options truncated");
        uint16_t type = GetBe16(c.d + in + 2);
        c.out->layers.push_back({"geneve", depth, in, hdr::kGeneveBaseLen + opt,
                                 "vni " + std::to_string(GetBe32(c.d + in + 4) >> 8) + " options " +
                                     std::to_string(opt) + " B"});
        if (type != hdr::kEthTypeTeb) return true;
        return Ethernet(c, in + hdr::kGeneveBaseLen + opt, depth + 1);
      }
      return true;
    }
    case hdr::kProtoSctp: {
      if (len < hdr::kSctpLen) return c.Fail("sctp: header truncated");
      c.out->layers.push_back(
          {"sctp", depth, ofs, hdr::kSctpLen,
           std::to_string(GetBe16(t)) + " > " + std::to_string(GetBe16(t + 2))});
      Bytes copy(t, t + len);
      uint32_t v = GetBe32(t + hdr::kSctpCsumOfs);
      PutBe32(copy.data() + hdr::kSctpCsumOfs, 0);
      uint32_t e = __builtin_bswap32(csum::Crc32c(copy.data(), len));
      AddCsum(*c.out, "sctp", depth, ofs + hdr::kSctpCsumOfs, v, e,
              v == e ? Verdict::kCorrect : Verdict::kIncorrect);
      return true;
    }
    case hdr::kProtoIcmp:
    case hdr::kProtoIcmpv6: {
      if (len < 4) return c.Fail("icmp: header truncated");
      const bool is6 = proto == hdr::kProtoIcmpv6;
      c.out->layers.push_back({is6 ? "icmpv6" : "icmp", depth, ofs, len < 8 ? len : 8,
                               "type " + std::to_string(t[0]) + " code " + std::to_string(t[1])});
      uint16_t v = GetBe16(t + 2), e = expected16(2, is6 ? pseudo(proto) : 0);
      AddCsum(*c.out, is6 ? "icmpv6" : "icmp", depth, ofs + 2, v, e,
              v == e ? Verdict::kCorrect : Verdict::kIncorrect);
      return true;
    }
    case hdr::kProtoGre: {
      if (len < hdr::kGreBaseLen) return c.Fail("gre: header truncated");
      uint16_t flags = GetBe16(t), type = GetBe16(t + 2);
      size_t hl = 4 + ((flags & hdr::kGreFlagC) ? 4 : 0) + ((flags & hdr::kGreFlagK) ? 4 : 0) +
                  ((flags & hdr::kGreFlagS) ? 4 : 0);
      if (len < hl) return c.Fail("gre: header truncated");
      std::string sum = "proto " + Hex16(type);
      size_t q = 4;
      if (flags & hdr::kGreFlagC) {
        uint16_t v = GetBe16(t + 4), e = expected16(4, 0);
        AddCsum(*c.out, "gre", depth, ofs + 4, v, e,
                v == e ? Verdict::kCorrect : Verdict::kIncorrect);
        q += 4;
      }
      if (flags & hdr::kGreFlagK) {
        sum += " key " + std::to_string(GetBe32(t + q));
        q += 4;
      }
      c.out->layers.push_back({"gre", depth, ofs, hl, sum});
      if (type == hdr::kEthTypeTeb) return Ethernet(c, ofs + hl, depth + 1);
      return true;
    }
    default:
      return true;
  }
}

bool Ip(Cursor& c, size_t ofs, uint16_t type, int depth) {
  const size_t avail = c.len - ofs;
  const uint8_t* ip = c.d + ofs;
  if (type == hdr::kEthTypeIpv4) {
    if (avail < hdr::kIpv4MinLen) return c.Fail("ipv4: header truncated");
    size_t ihl = (ip[0] & 0x0f) * 4u;
    if ((ip[0] >> 4) != 4) return c.Fail("ipv4: version is not 4");
    if (ihl < hdr::kIpv4MinLen) return c.Fail("ipv4: IHL below 5");
    if (ihl > avail) {
      return c.Fail("ipv4: IHL " + std::to_string(ihl / 4) + " exceeds frame (" +
                    std::to_string(c.len) + " bytes)");
    }
    size_t tot = GetBe16(ip + 2);
    uint16_t fo = GetBe16(ip + 6);
    c.out->layers.push_back({"ipv4", depth, ofs, ihl,
                             Ip4(ip + 12) + " > " + Ip4(ip + 16) + " proto " +
                                 std::to_string(ip[9]) + " ttl " + std::to_string(ip[8]) + " len " +
                                 std::to_string(tot) + ((fo & 0x3fff) ? " fragment" : "")});
    Bytes h(ip, ip + ihl);
    uint16_t v = GetBe16(ip + 10);
    PutBe16(h.data() + 10, 0);
    uint16_t e = csum::Compute(h.data(), ihl);
    AddCsum(*c.out, "ipv4", depth, ofs + 10, v, e,
            v == e ? Verdict::kCorrect : Verdict::kIncorrect);
    if (tot < ihl || tot > avail) {
      return c.Fail("ipv4: total length " + std::to_string(tot) + " inconsistent with frame");
    }
    if (fo & hdr::kIpv4FragOffsetMask) return true;  // later fragment: no L4 header
    if (fo & hdr::kIpv4MoreFragments) return true;   // first fragment: L4 checksum spans fragments
    return Transport(c, ofs + ihl, tot - ihl, ip[9], depth, false, ip + 12, ip + 16);
  }
  if (avail < hdr::kIpv6Len) return c.Fail("ipv6: header truncated");
  if ((ip[0] >> 4) != 6) return c.Fail("ipv6: version is not 6");
  size_t plen = GetBe16(ip + 4);
  c.out->layers.push_back({"ipv6", depth, ofs, hdr::kIpv6Len,
                           Ip6(ip + 8) + " > " + Ip6(ip + 24) + " next " + std::to_string(ip[6]) +
                               " hlim " + std::to_string(ip[7]) + " plen " + std::to_string(plen)});
  if (plen > avail - hdr::kIpv6Len) return c.Fail("ipv6: payload length exceeds frame");
  uint8_t nh = ip[6];
  size_t q = ofs + hdr::kIpv6Len, end = q + plen;
  const uint8_t* final_dst = ip + 24;
  while (nh == hdr::kProtoHopByHop || nh == hdr::kProtoRouting || nh == hdr::kProtoDestOpts ||
         nh == hdr::kProtoFragment) {
    if (end - q < 8) return c.Fail("ipv6: extension header truncated");
    size_t hl = nh == hdr::kProtoFragment ? 8 : (c.d[q + 1] + 1u) * 8u;
    if (hl > end - q) return c.Fail("ipv6: extension header exceeds payload");
    const char* name = nh == hdr::kProtoFragment   ? "ipv6-frag"
                       : nh == hdr::kProtoRouting  ? "ipv6-route"
                       : nh == hdr::kProtoHopByHop ? "ipv6-hopopts"
                                                   : "ipv6-dstopts";
    c.out->layers.push_back({name, depth, q, hl, "next " + std::to_string(c.d[q])});
    if (nh == hdr::kProtoFragment && (GetBe16(c.d + q + 2) & 0xfff9)) return true;
    // RFC 8200 §8.1: with segments left, the pseudo-header uses the final address.
    if (nh == hdr::kProtoRouting && c.d[q + 3] != 0 && c.d[q + 2] == 0 && hl >= 8 + 16) {
      final_dst = c.d + q + hl - 16;
    }
    nh = c.d[q];
    q += hl;
  }
  return Transport(c, q, end - q, nh, depth, true, ip + 8, final_dst);
}

bool Ethernet(Cursor& c, size_t ofs, int depth) {
  if (ofs > c.len || c.len - ofs < hdr::kEthLen)
    return c.Fail("ethernet: frame shorter than 14 bytes");
  const uint8_t* e = c.d + ofs;
  char mac[64];
  std::snprintf(mac, sizeof mac, "%02x:%02x:%02x:%02x:%02x:%02x > %02x:%02x:%02x:%02x:%02x:%02x",
                e[6], e[7], e[8], e[9], e[10], e[11], e[0], e[1], e[2], e[3], e[4], e[5]);
  uint16_t type = GetBe16(e + 12);
  size_t p = ofs + hdr::kEthLen;
  c.out->layers.push_back(
      {"eth", depth, ofs, hdr::kEthLen, std::string(mac) + " type " + Hex16(type)});
  while (type == hdr::kEthTypeVlan || type == hdr::kEthTypeQinQ) {
    if (c.len - p < hdr::kVlanLen) return c.Fail("vlan: tag truncated");
    c.out->layers.push_back(
        {"vlan", depth, p - 2, hdr::kVlanLen, "vid " + std::to_string(GetBe16(c.d + p) & 0xfff)});
    type = GetBe16(c.d + p + 2);
    p += hdr::kVlanLen;
  }
  if (type == hdr::kEthTypeIpv4 || type == hdr::kEthTypeIpv6) return Ip(c, p, type, depth);
  return true;
}

}  // namespace

const char* ToString(Verdict v) {
  switch (v) {
    case Verdict::kCorrect:
      return "ok";
    case Verdict::kIncorrect:
      return "BAD";
    case Verdict::kAbsent:
      return "none";
    case Verdict::kNotChecked:
      return "unchecked";
  }
  return "?";
}

Dissection Dissect(const uint8_t* data, size_t len) {
  Dissection out;
  Cursor c{data, len, &out};
  Ethernet(c, 0, 0);
  return out;
}

std::string Dissection::ToString() const {
  std::ostringstream s;
  for (const Layer& l : layers) {
    s << std::string(2 * l.depth, ' ') << l.name << " " << l.summary;
    for (const ChecksumField& c : checksums) {
      if (c.offset >= l.offset && c.offset < l.offset + l.length && c.depth == l.depth &&
          c.layer == (l.name == "ipv4" ? "ipv4" : l.name)) {
        s << " csum " << Hex16(c.value) << " " << offlab::ToString(c.verdict);
        if (c.verdict == Verdict::kIncorrect) s << " (expected " << Hex16(c.expected) << ")";
      }
    }
    s << "\n";
  }
  if (error) s << "error: " << *error << "\n";
  return s.str();
}

}  // namespace offlab
