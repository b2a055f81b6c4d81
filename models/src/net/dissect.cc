#include "offlab/net/dissect.h"

#include <cstdarg>
#include <cstdio>
#include <string>
#include <utility>

#include "offlab/net/checksum.h"
#include "offlab/net/headers.h"

namespace offlab {

const char* ToString(Verdict v) {
  switch (v) {
    case Verdict::kCorrect:
      return "ok";
    case Verdict::kIncorrect:
      return "bad";
    case Verdict::kAbsent:
      return "absent";
    case Verdict::kNotChecked:
      return "unchecked";
  }
  return "?";
}

namespace {

// Tunnels nest only as deep as the bytes allow; the cap keeps a crafted
// frame of nested VXLAN headers from recursing thousands of levels.
constexpr int kMaxDepth = 8;

constexpr uint16_t kEthTypeQinQLegacy = 0x9100;
constexpr uint16_t kEthTypeMin = 0x0600;  // below: an 802.3 length field
constexpr size_t kArpFixedLen = 8;
constexpr size_t kIpv6ExtMinLen = 8;
constexpr uint8_t kIpv6OptHomeAddress = 0xc9;
constexpr size_t kGeneveOptHdrLen = 4;
constexpr size_t kSctpChunkHdrLen = 4;

// Off while a caller only wants the layers and checksum verdicts (a NIC's
// receive model, per frame): the summaries' text is most of the time spent.
thread_local bool t_summaries = true;

std::string FormatAlways(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string Format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

std::string FormatV(const char* fmt, va_list ap0) {
  char buf[256];
  va_list ap;
  va_copy(ap, ap0);
  int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0) return {};
  if (static_cast<size_t>(n) < sizeof buf) return std::string(buf, static_cast<size_t>(n));
  std::string big(static_cast<size_t>(n) + 1, '\0');
  va_copy(ap, ap0);
  std::vsnprintf(big.data(), big.size(), fmt, ap);
  va_end(ap);
  big.resize(static_cast<size_t>(n));
  return big;
}

// Error messages are always written.
std::string FormatAlways(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::string s = FormatV(fmt, ap);
  va_end(ap);
  return s;
}

// Summary text, empty when summaries are off.
std::string Format(const char* fmt, ...) {
  if (!t_summaries) return {};
  va_list ap;
  va_start(ap, fmt);
  std::string s = FormatV(fmt, ap);
  va_end(ap);
  return s;
}

std::string MacString(const uint8_t* p) {
  return Format("%02x:%02x:%02x:%02x:%02x:%02x", p[0], p[1], p[2], p[3], p[4], p[5]);
}

std::string Ipv4String(const uint8_t* p) { return Format("%u.%u.%u.%u", p[0], p[1], p[2], p[3]); }

// RFC 5952 text form: the longest run (first on a tie) of two or more zero
// groups becomes "::".
std::string Ipv6String(const uint8_t* p) {
  if (!t_summaries) return {};
  uint16_t g[8];
  for (int i = 0; i < 8; ++i) g[i] = GetBe16(p + 2 * i);
  int best = -1, best_len = 0;
  for (int i = 0; i < 8;) {
    if (g[i] != 0) {
      ++i;
      continue;
    }
    int j = i;
    while (j < 8 && g[j] == 0) ++j;
    if (j - i > best_len && j - i >= 2) {
      best = i;
      best_len = j - i;
    }
    i = j;
  }
  std::string s;
  for (int i = 0; i < 8; ++i) {
    if (i == best) {
      s += "::";
      i += best_len - 1;
      continue;
    }
    if (!s.empty() && s.back() != ':') s += ':';
    s += Format("%x", g[i]);
  }
  return s;
}

std::string TcpFlags(uint16_t flags) {
  static constexpr char kLetters[] = "FSRPAUEC";
  std::string s;
  for (int i = 0; i < 8; ++i) {
    if (flags & (1u << i)) s += kLetters[i];
  }
  if (flags & 0x100) s += 'N';  // the old ECN nonce bit, still shown so no set bit is hidden
  return s.empty() ? "none" : s;
}

const char* IcmpName(uint8_t type) {
  switch (type) {
    case 0:
      return "echo reply";
    case 3:
      return "unreachable";
    case 5:
      return "redirect";
    case 8:
      return "echo request";
    case 11:
      return "time exceeded";
    case 12:
      return "parameter problem";
    default:
      return nullptr;
  }
}

const char* Icmpv6Name(uint8_t type) {
  switch (type) {
    case 1:
      return "unreachable";
    case 2:
      return "packet too big";
    case 3:
      return "time exceeded";
    case 4:
      return "parameter problem";
    case 128:
      return "echo request";
    case 129:
      return "echo reply";
    case 133:
      return "router solicitation";
    case 134:
      return "router advertisement";
    case 135:
      return "neighbor solicitation";
    case 136:
      return "neighbor advertisement";
    default:
      return nullptr;
  }
}

const char* SctpChunkName(uint8_t type) {
  switch (type) {
    case 0:
      return "DATA";
    case 1:
      return "INIT";
    case 2:
      return "INIT_ACK";
    case 3:
      return "SACK";
    case 4:
      return "HEARTBEAT";
    case 5:
      return "HEARTBEAT_ACK";
    case 6:
      return "ABORT";
    case 7:
      return "SHUTDOWN";
    case 8:
      return "SHUTDOWN_ACK";
    case 9:
      return "ERROR";
    case 10:
      return "COOKIE_ECHO";
    case 11:
      return "COOKIE_ACK";
    case 14:
      return "SHUTDOWN_COMPLETE";
    default:
      return nullptr;
  }
}

const char* Ipv6ExtName(uint8_t proto) {
  switch (proto) {
    case hdr::kProtoHopByHop:
      return "ipv6-hopopts";
    case hdr::kProtoRouting:
      return "ipv6-routing";
    case hdr::kProtoFragment:
      return "ipv6-frag";
    case hdr::kProtoDestOpts:
      return "ipv6-dstopts";
    default:
      return nullptr;
  }
}

// What a transport checksum needs from the network layer below it.
struct IpContext {
  bool v6 = false;
  const uint8_t* src = nullptr;
  // For IPv6 with a routing header, the final destination (RFC 8200 §8.1).
  const uint8_t* dst = nullptr;
  // False when a routing header hides the final destination from us.
  bool pseudo_known = true;
  // The first fragment of a fragmented datagram: the L4 header is present
  // but its checksum covers bytes not in this frame, and anything it
  // encapsulates is incomplete.
  bool fragment = false;
};

class Dissector {
 public:
  Dissector(const uint8_t* data, size_t len) : data_(data), len_(data ? len : 0) {}

  Dissection Run() {
    // Room for a tunnelled frame's layers (eth, ip, udp, vxlan, eth, ip,
    // tcp) and checksums, so the common frame grows neither vector.
    out_.layers.reserve(8);
    out_.checksums.reserve(4);
    Ethernet(0, len_, 0);
    return std::move(out_);
  }

 private:
  // Every step decodes the region [off, end) of the frame, where
  // off <= end <= len_, and returns false once decoding must stop.
  bool Ethernet(size_t off, size_t end, int depth);
  bool EtherPayload(uint16_t type, size_t off, size_t end, int depth);
  bool Arp(size_t off, size_t end, int depth);
  bool Ipv4(size_t off, size_t end, int depth);
  bool Ipv4Options(size_t off, size_t len);
  bool Ipv6(size_t off, size_t end, int depth);
  bool Ipv6Options(const char* name, size_t off, size_t len, IpContext* dst_opts_ip);
  bool Ipv6Routing(size_t off, size_t len, IpContext& ip);
  bool Transport(uint8_t proto, size_t off, size_t end, int depth, const IpContext& ip);
  bool Tcp(size_t off, size_t end, int depth, const IpContext& ip);
  bool Udp(size_t off, size_t end, int depth, const IpContext& ip);
  bool Sctp(size_t off, size_t end, int depth, const IpContext& ip);
  bool Icmp(bool v6, size_t off, size_t end, int depth, const IpContext& ip);
  bool Gre(size_t off, size_t end, int depth, const IpContext& ip);
  bool Vxlan(size_t off, size_t end, int depth);
  bool Geneve(size_t off, size_t end, int depth);
  bool Encapsulated(const char* who, uint16_t proto, size_t off, size_t end, int depth);

  bool Fail(std::string msg) {
    if (!out_.error) out_.error = std::move(msg);
    return false;
  }

  bool Need(const char* layer, size_t off, size_t end, size_t n) {
    if (end - off >= n) return true;
    return Fail(FormatAlways("%s: truncated, need %zu bytes at offset %zu, have %zu", layer, n, off,
                             end - off));
  }

  void AddLayer(const char* name, int depth, size_t off, size_t len, std::string summary) {
    // Literal pieces of a summary (ARP's, SCTP's, GRE's) survive an empty
    // Format; without summaries none is kept.
    if (!t_summaries) summary.clear();
    out_.layers.push_back(Layer{name, depth, off, len, std::move(summary)});
  }

  void AddChecksum(const char* layer, int depth, size_t field, uint32_t value, uint32_t expected,
                   Verdict v) {
    out_.checksums.push_back(ChecksumField{layer, depth, field, value, expected, v});
  }

  // An Internet checksum over data_[off, off + len) whose field sits at
  // off + field_ofs, seeded with a pseudo-header sum.
  void InetChecksum(const char* layer, int depth, size_t off, size_t len, size_t field_ofs,
                    uint64_t pseudo, bool zero_is_absent) {
    const uint8_t* p = data_ + off;
    uint16_t value = GetBe16(p + field_ofs);
    // The sum with the field taken as zero; field_ofs is even, so both
    // pieces before the last have even length as Partial requires.
    uint64_t sum = csum::Partial(p, field_ofs, pseudo);
    sum = csum::Partial(p + field_ofs + 2, len - field_ofs - 2, sum);
    uint16_t expected = csum::Finish(sum);
    // UDP sends a computed zero as 0xffff, as zero on the wire means "none".
    if (zero_is_absent && expected == 0) expected = 0xffff;
    Verdict v;
    if (zero_is_absent && value == 0) {
      v = Verdict::kAbsent;
    } else {
      // Summing with the field in place accepts both encodings of zero,
      // as a receiver does; that sum is the one above plus the field's word
      // (one's complement addition), so the bytes are read once.
      v = csum::Fold(sum + value) == 0xffff ? Verdict::kCorrect : Verdict::kIncorrect;
    }
    AddChecksum(layer, depth, off + field_ofs, value, expected, v);
  }

  uint64_t Pseudo(const IpContext& ip, uint8_t proto, size_t l4_len) const {
    if (ip.v6) return csum::PseudoIpv6(ip.src, ip.dst, proto, static_cast<uint32_t>(l4_len));
    return csum::PseudoIpv4(ip.src, ip.dst, proto, static_cast<uint16_t>(l4_len));
  }

  const uint8_t* data_;
  size_t len_;
  Dissection out_;
};

bool Dissector::Ethernet(size_t off, size_t end, int depth) {
  if (!Need("eth", off, end, hdr::kEthLen)) return false;
  const uint8_t* p = data_ + off;
  uint16_t type = GetBe16(p + 12);
  // Without summaries the concatenations below would still cost a string each.
  std::string summary;
  if (t_summaries) {
    summary =
        MacString(p + 6) + " > " + MacString(p) +
        (type < kEthTypeMin ? Format(" 802.3 length %u", type) : Format(" type 0x%04x", type));
  }
  AddLayer("eth", depth, off, hdr::kEthLen, std::move(summary));
  if (type < kEthTypeMin) return true;
  off += hdr::kEthLen;
  while (type == hdr::kEthTypeVlan || type == hdr::kEthTypeQinQ || type == kEthTypeQinQLegacy) {
    if (!Need("vlan", off, end, hdr::kVlanLen)) return false;
    uint16_t tci = GetBe16(data_ + off);
    uint16_t next = GetBe16(data_ + off + 2);
    const char* kind =
        type == hdr::kEthTypeVlan ? "802.1Q" : (type == hdr::kEthTypeQinQ ? "802.1ad" : "0x9100");
    AddLayer("vlan", depth, off, hdr::kVlanLen,
             Format("%s vid %u pcp %u%s type 0x%04x", kind, tci & 0x0fffu, tci >> 13,
                    (tci & 0x1000u) ? " dei" : "", next));
    type = next;
    off += hdr::kVlanLen;
  }
  return EtherPayload(type, off, end, depth);
}

bool Dissector::EtherPayload(uint16_t type, size_t off, size_t end, int depth) {
  switch (type) {
    case hdr::kEthTypeIpv4:
      return Ipv4(off, end, depth);
    case hdr::kEthTypeIpv6:
      return Ipv6(off, end, depth);
    case hdr::kEthTypeArp:
      return Arp(off, end, depth);
    default:
      return true;  // a payload this decoder does not know is not a malformation
  }
}

bool Dissector::Arp(size_t off, size_t end, int depth) {
  if (!Need("arp", off, end, kArpFixedLen)) return false;
  const uint8_t* p = data_ + off;
  uint16_t htype = GetBe16(p), ptype = GetBe16(p + 2), op = GetBe16(p + 6);
  size_t hlen = p[4], plen = p[5];
  size_t total = kArpFixedLen + 2 * (hlen + plen);
  if (!Need("arp", off, end, total)) return false;
  std::string summary;
  if (htype == 1 && ptype == hdr::kEthTypeIpv4 && hlen == 6 && plen == 4) {
    const uint8_t* sha = p + 8;
    const uint8_t* spa = sha + 6;
    const uint8_t* tpa = spa + 4 + 6;
    if (op == 1) {
      summary = "request who-has " + Ipv4String(tpa) + " tell " + Ipv4String(spa);
    } else if (op == 2) {
      summary = "reply " + Ipv4String(spa) + " is-at " + MacString(sha);
    } else {
      summary = Format("op %u", op);
    }
  } else {
    summary = Format("htype %u ptype 0x%04x op %u", htype, ptype, op);
  }
  AddLayer("arp", depth, off, total, std::move(summary));
  return true;
}

bool Dissector::Ipv4Options(size_t off, size_t len) {
  size_t i = 0;
  while (i < len) {
    uint8_t type = data_[off + i];
    if (type == 0) break;  // end of option list; the rest is padding
    if (type == 1) {
      ++i;
      continue;
    }
    if (len - i < 2) return Fail(FormatAlways("ipv4: option 0x%02x truncated", type));
    size_t olen = data_[off + i + 1];
    if (olen < 2 || olen > len - i) {
      return Fail(FormatAlways("ipv4: option 0x%02x length %zu invalid (%zu option bytes left)",
                               type, olen, len - i));
    }
    i += olen;
  }
  return true;
}

bool Dissector::Ipv4(size_t off, size_t end, int depth) {
  if (!Need("ipv4", off, end, hdr::kIpv4MinLen)) return false;
  const uint8_t* p = data_ + off;
  unsigned version = p[0] >> 4;
  size_t ihl = p[0] & 0x0fu;
  if (version != 4) return Fail(FormatAlways("ipv4: version %u in an IPv4 header", version));
  if (ihl < 5) return Fail(FormatAlways("ipv4: IHL %zu below minimum 5", ihl));
  size_t hlen = ihl * 4;
  if (hlen > end - off)
    return Fail(FormatAlways("ipv4: IHL %zu exceeds frame (%zu bytes)", ihl, end));
  size_t tot = GetBe16(p + hdr::kIpv4TotLenOfs);
  if (tot < hlen) {
    return Fail(FormatAlways("ipv4: total length %zu below header length %zu", tot, hlen));
  }
  uint16_t frag = GetBe16(p + hdr::kIpv4FragOfs);
  size_t frag_off = static_cast<size_t>(frag & hdr::kIpv4FragOffsetMask) * 8;
  bool mf = frag & hdr::kIpv4MoreFragments;
  uint8_t proto = p[hdr::kIpv4ProtoOfs];

  std::string summary;
  if (t_summaries) {
    summary = Ipv4String(p + hdr::kIpv4SrcOfs) + " > " + Ipv4String(p + hdr::kIpv4DstOfs) +
              Format(" proto %u ttl %u", proto, p[hdr::kIpv4TtlOfs]);
    if (frag & hdr::kIpv4DontFragment) summary += " df";
    if (frag & 0x8000u) summary += " rf";  // the reserved flag, which must be zero
    if (mf) summary += " mf";
    if (frag_off != 0) summary += Format(" frag off %zu", frag_off);
    if (hlen > hdr::kIpv4MinLen) summary += Format(" opts %zu", hlen - hdr::kIpv4MinLen);
    if (tot < end - off) summary += Format(" pad %zu", end - off - tot);
  }
  AddLayer("ipv4", depth, off, hlen, std::move(summary));
  InetChecksum("ipv4", depth, off, hlen, hdr::kIpv4CsumOfs, 0, false);

  if (tot > end - off) {
    return Fail(FormatAlways("ipv4: total length %zu exceeds frame (%zu bytes)", tot, end));
  }
  if (!Ipv4Options(off + hdr::kIpv4MinLen, hlen - hdr::kIpv4MinLen)) return false;
  // Only the first fragment carries the transport header.
  if (frag_off != 0) return true;

  IpContext ip;
  ip.src = p + hdr::kIpv4SrcOfs;
  ip.dst = p + hdr::kIpv4DstOfs;
  ip.fragment = mf;
  // Ethernet pads short frames; the IP length says where the datagram ends.
  return Transport(proto, off + hlen, off + tot, depth, ip);
}

bool Dissector::Ipv6Options(const char* name, size_t off, size_t len, IpContext* dst_opts_ip) {
  size_t i = 0;
  while (i < len) {
    uint8_t type = data_[off + i];
    if (type == 0) {  // Pad1
      ++i;
      continue;
    }
    if (len - i < 2) return Fail(FormatAlways("%s: option 0x%02x truncated", name, type));
    size_t olen = size_t{data_[off + i + 1]} + 2;
    if (olen > len - i) {
      return Fail(FormatAlways("%s: option 0x%02x length %zu exceeds header (%zu bytes left)", name,
                               type, olen - 2, len - i - 2));
    }
    // A Mobile IPv6 Home Address option (RFC 6275 §6.3), only valid in
    // destination options, makes the home address the source the transport
    // checksum is computed with.
    if (dst_opts_ip && type == kIpv6OptHomeAddress && olen == 2 + 16) {
      dst_opts_ip->src = data_ + off + i + 2;
    }
    i += olen;
  }
  return true;
}

bool Dissector::Ipv6Routing(size_t off, size_t len, IpContext& ip) {
  const uint8_t* p = data_ + off;
  uint8_t type = p[2];
  uint8_t segleft = p[3];
  // With nothing left to visit, the IPv6 destination is already final.
  if (segleft == 0) return true;
  size_t addrs = (len - kIpv6ExtMinLen) / 16;
  switch (type) {
    case 0:  // RFC 2460 source route (deprecated): final hop is the last address
      if ((len - kIpv6ExtMinLen) % 16 != 0 || addrs == 0 || segleft > addrs) {
        return Fail(FormatAlways("ipv6-routing: type 0 with %zu addresses, %u segments left", addrs,
                                 segleft));
      }
      ip.dst = p + kIpv6ExtMinLen + 16 * (addrs - 1);
      return true;
    case 2:  // RFC 6275 home address
      if (len != 24 || segleft != 1) {
        return Fail(
            FormatAlways("ipv6-routing: type 2 length %zu, %u segments left", len, segleft));
      }
      ip.dst = p + kIpv6ExtMinLen;
      return true;
    case 4:  // RFC 8754 segment routing: Segment List[0] is the last segment
      if (addrs == 0) return Fail("ipv6-routing: segment routing header without segments");
      ip.dst = p + kIpv6ExtMinLen;
      return true;
    default:
      ip.pseudo_known = false;
      return true;
  }
}

bool Dissector::Ipv6(size_t off, size_t end, int depth) {
  if (!Need("ipv6", off, end, hdr::kIpv6Len)) return false;
  const uint8_t* p = data_ + off;
  unsigned version = p[0] >> 4;
  if (version != 6) return Fail(FormatAlways("ipv6: version %u in an IPv6 header", version));
  size_t plen = GetBe16(p + hdr::kIpv6PlenOfs);
  uint8_t next = p[hdr::kIpv6NextOfs];
  size_t avail = end - off - hdr::kIpv6Len;
  std::string summary;
  if (t_summaries) {
    summary = Ipv6String(p + hdr::kIpv6SrcOfs) + " > " + Ipv6String(p + hdr::kIpv6DstOfs) +
              Format(" next %u hlim %u", next, p[hdr::kIpv6HlimOfs]);
    if (plen < avail) summary += Format(" pad %zu", avail - plen);
  }
  AddLayer("ipv6", depth, off, hdr::kIpv6Len, std::move(summary));
  if (plen > avail) {
    return Fail(FormatAlways("ipv6: payload length %zu exceeds frame (%zu bytes)", plen, end));
  }
  if (plen == 0 && next != hdr::kProtoNoNext) {
    return Fail(
        FormatAlways("ipv6: payload length 0 with next header %u (jumbograms unsupported)", next));
  }

  IpContext ip;
  ip.v6 = true;
  ip.src = p + hdr::kIpv6SrcOfs;
  ip.dst = p + hdr::kIpv6DstOfs;
  end = off + hdr::kIpv6Len + plen;
  off += hdr::kIpv6Len;
  bool first = true;
  for (const char* name; (name = Ipv6ExtName(next)) != nullptr; first = false) {
    if (next == hdr::kProtoHopByHop && !first) {
      return Fail("ipv6: hop-by-hop options header not directly after the IPv6 header");
    }
    if (!Need(name, off, end, kIpv6ExtMinLen)) return false;
    const uint8_t* e = data_ + off;
    uint8_t this_type = next;
    next = e[0];
    if (this_type == hdr::kProtoFragment) {
      uint16_t fo = GetBe16(e + 2);
      size_t frag_off = static_cast<size_t>(fo >> 3) * 8;
      bool mf = fo & 1u;
      AddLayer(
          name, depth, off, hdr::kIpv6FragHdrLen,
          Format("next %u off %zu%s id 0x%08x", next, frag_off, mf ? " mf" : "", GetBe32(e + 4)));
      if (frag_off != 0) return true;
      // An atomic fragment (offset 0, no M) is a whole datagram (RFC 6946).
      ip.fragment = mf;
      off += hdr::kIpv6FragHdrLen;
      continue;
    }
    size_t len = (size_t{e[1]} + 1) * 8;
    if (len > end - off) {
      return Fail(
          FormatAlways("%s: length %zu exceeds payload (%zu bytes left)", name, len, end - off));
    }
    if (this_type == hdr::kProtoRouting) {
      AddLayer(name, depth, off, len, Format("next %u type %u segleft %u", next, e[2], e[3]));
      if (!Ipv6Routing(off, len, ip)) return false;
    } else {
      AddLayer(name, depth, off, len, Format("next %u len %zu", next, len));
      IpContext* dst_opts_ip = this_type == hdr::kProtoDestOpts ? &ip : nullptr;
      if (!Ipv6Options(name, off + 2, len - 2, dst_opts_ip)) return false;
    }
    off += len;
  }
  return Transport(next, off, end, depth, ip);
}

bool Dissector::Transport(uint8_t proto, size_t off, size_t end, int depth, const IpContext& ip) {
  switch (proto) {
    case hdr::kProtoTcp:
      return Tcp(off, end, depth, ip);
    case hdr::kProtoUdp:
      return Udp(off, end, depth, ip);
    case hdr::kProtoSctp:
      return Sctp(off, end, depth, ip);
    case hdr::kProtoIcmp:
      return Icmp(false, off, end, depth, ip);
    case hdr::kProtoIcmpv6:
      return Icmp(true, off, end, depth, ip);
    case hdr::kProtoGre:
      return Gre(off, end, depth, ip);
    default:
      return true;
  }
}

bool Dissector::Tcp(size_t off, size_t end, int depth, const IpContext& ip) {
  if (!Need("tcp", off, end, hdr::kTcpMinLen)) return false;
  const uint8_t* p = data_ + off;
  uint16_t off_flags = GetBe16(p + hdr::kTcpOffFlagsOfs);
  size_t doff = off_flags >> 12;
  size_t seg = end - off;
  if (doff < 5) return Fail(FormatAlways("tcp: data offset %zu below minimum 5", doff));
  size_t hlen = doff * 4;
  if (hlen > seg) {
    return Fail(FormatAlways("tcp: data offset %zu (%zu bytes) exceeds segment (%zu bytes)", doff,
                             hlen, seg));
  }
  std::string summary;
  if (t_summaries) {
    summary = Format("%u > %u [%s] seq %u ack %u win %u len %zu", GetBe16(p + hdr::kTcpSrcOfs),
                     GetBe16(p + hdr::kTcpDstOfs), TcpFlags(off_flags & 0x01ffu).c_str(),
                     GetBe32(p + hdr::kTcpSeqOfs), GetBe32(p + hdr::kTcpAckOfs), GetBe16(p + 14),
                     seg - hlen);
    if (hlen > hdr::kTcpMinLen) summary += Format(" opts %zu", hlen - hdr::kTcpMinLen);
  }
  AddLayer("tcp", depth, off, hlen, std::move(summary));
  if (ip.fragment || !ip.pseudo_known) {
    AddChecksum("tcp", depth, off + hdr::kTcpCsumOfs, GetBe16(p + hdr::kTcpCsumOfs), 0,
                Verdict::kNotChecked);
  } else {
    InetChecksum("tcp", depth, off, seg, hdr::kTcpCsumOfs, Pseudo(ip, hdr::kProtoTcp, seg), false);
  }
  return true;
}

bool Dissector::Udp(size_t off, size_t end, int depth, const IpContext& ip) {
  if (!Need("udp", off, end, hdr::kUdpLen)) return false;
  const uint8_t* p = data_ + off;
  uint16_t sport = GetBe16(p), dport = GetBe16(p + 2);
  size_t ulen = GetBe16(p + hdr::kUdpLenOfs);
  uint16_t value = GetBe16(p + hdr::kUdpCsumOfs);
  size_t seg = end - off;
  if (ulen < hdr::kUdpLen) return Fail(FormatAlways("udp: length %zu below minimum 8", ulen));
  // In a first fragment the UDP length covers the whole datagram.
  if (!ip.fragment && ulen > seg) {
    return Fail(FormatAlways("udp: length %zu exceeds IP payload (%zu bytes)", ulen, seg));
  }
  std::string summary = Format("%u > %u len %zu", sport, dport, ulen);
  // Bytes past the UDP length are not part of the datagram (and may be
  // UDP options); receivers trim them, so the checksum covers ulen bytes.
  if (!ip.fragment && ulen < seg) summary += Format(" surplus %zu", seg - ulen);
  if (t_summaries && ip.v6 && value == 0) summary += " zero-csum (RFC 6935)";
  AddLayer("udp", depth, off, hdr::kUdpLen, std::move(summary));
  if (ip.fragment || !ip.pseudo_known) {
    AddChecksum("udp", depth, off + hdr::kUdpCsumOfs, value, 0,
                value == 0 ? Verdict::kAbsent : Verdict::kNotChecked);
    return true;
  }
  end = off + ulen;
  InetChecksum("udp", depth, off, ulen, hdr::kUdpCsumOfs, Pseudo(ip, hdr::kProtoUdp, ulen), true);
  if (dport == hdr::kVxlanPort) return Vxlan(off + hdr::kUdpLen, end, depth);
  if (dport == hdr::kGenevePort) return Geneve(off + hdr::kUdpLen, end, depth);
  return true;
}

bool Dissector::Sctp(size_t off, size_t end, int depth, const IpContext& ip) {
  if (!Need("sctp", off, end, hdr::kSctpLen)) return false;
  const uint8_t* p = data_ + off;
  size_t seg = end - off;
  std::string chunks;
  size_t nchunks = 0;
  std::string chunk_error;
  for (size_t i = hdr::kSctpLen; i < seg; ++nchunks) {
    if (seg - i < kSctpChunkHdrLen) {
      chunk_error = FormatAlways("sctp: chunk %zu header truncated (%zu bytes)", nchunks, seg - i);
      break;
    }
    uint8_t type = p[i];
    size_t clen = GetBe16(p + i + 2);
    if (clen < kSctpChunkHdrLen || clen > seg - i) {
      chunk_error = FormatAlways("sctp: chunk %zu (type %u) length %zu invalid (%zu bytes left)",
                                 nchunks, type, clen, seg - i);
      break;
    }
    const char* name = SctpChunkName(type);
    chunks += nchunks ? "," : " chunks ";
    chunks += name ? std::string(name) : Format("0x%02x", type);
    // Chunks are padded to 4 bytes; the last one's padding may be cut.
    size_t padded = (clen + 3) & ~size_t{3};
    i += padded < seg - i ? padded : seg - i;
  }
  AddLayer("sctp", depth, off, hdr::kSctpLen,
           Format("%u > %u vtag 0x%08x", GetBe16(p), GetBe16(p + 2), GetBe32(p + 4)) + chunks);
  // The CRC32c goes on the wire least significant byte first (RFC 9260
  // appendix A); values here are the field read big-endian, like every
  // other checksum, so PutBe32(field, expected) writes a correct field.
  uint32_t value = GetBe32(p + hdr::kSctpCsumOfs);
  if (ip.fragment) {
    AddChecksum("sctp", depth, off + hdr::kSctpCsumOfs, value, 0, Verdict::kNotChecked);
  } else {
    static constexpr uint8_t kZero[4] = {0, 0, 0, 0};
    uint32_t crc = csum::Crc32c(p, hdr::kSctpCsumOfs);
    crc = csum::Crc32c(kZero, sizeof kZero, crc);
    crc = csum::Crc32c(p + hdr::kSctpLen, seg - hdr::kSctpLen, crc);
    uint32_t expected = __builtin_bswap32(crc);
    AddChecksum("sctp", depth, off + hdr::kSctpCsumOfs, value, expected,
                value == expected ? Verdict::kCorrect : Verdict::kIncorrect);
  }
  if (!chunk_error.empty()) return Fail(std::move(chunk_error));
  return true;
}

bool Dissector::Icmp(bool v6, size_t off, size_t end, int depth, const IpContext& ip) {
  const char* name = v6 ? "icmpv6" : "icmp";
  if (!Need(name, off, end, hdr::kIcmpLen)) return false;
  const uint8_t* p = data_ + off;
  uint8_t type = p[0], code = p[1];
  const char* tname = v6 ? Icmpv6Name(type) : IcmpName(type);
  std::string summary = Format("type %u code %u", type, code);
  if (tname) summary += Format(" %s", tname);
  bool echo = v6 ? (type == 128 || type == 129) : (type == 0 || type == 8);
  if (echo) summary += Format(" id %u seq %u", GetBe16(p + 4), GetBe16(p + 6));
  AddLayer(name, depth, off, hdr::kIcmpLen, std::move(summary));
  size_t seg = end - off;
  if (ip.fragment || (v6 && !ip.pseudo_known)) {
    AddChecksum(name, depth, off + hdr::kIcmpCsumOfs, GetBe16(p + hdr::kIcmpCsumOfs), 0,
                Verdict::kNotChecked);
    return true;
  }
  // ICMPv6 includes a pseudo-header (RFC 4443 §2.3); ICMP for IPv4 does not.
  uint64_t pseudo = v6 ? Pseudo(ip, hdr::kProtoIcmpv6, seg) : 0;
  InetChecksum(name, depth, off, seg, hdr::kIcmpCsumOfs, pseudo, false);
  return true;
}

bool Dissector::Gre(size_t off, size_t end, int depth, const IpContext& ip) {
  if (!Need("gre", off, end, hdr::kGreBaseLen)) return false;
  const uint8_t* p = data_ + off;
  uint16_t flags = GetBe16(p);
  uint16_t proto = GetBe16(p + 2);
  unsigned version = flags & 0x7u;
  if (version != 0) {
    // Version 1 is PPTP's enhanced GRE (RFC 2637), a different header.
    AddLayer("gre", depth, off, hdr::kGreBaseLen,
             Format("version %u proto 0x%04x (not decoded)", version, proto));
    return true;
  }
  if (flags & 0x4000u) return Fail("gre: routing present (R bit, RFC 1701) unsupported");
  bool c = flags & hdr::kGreFlagC, k = flags & hdr::kGreFlagK, s = flags & hdr::kGreFlagS;
  size_t hlen = hdr::kGreBaseLen + 4 * (size_t{c} + size_t{k} + size_t{s});
  if (!Need("gre", off, end, hlen)) return false;
  std::string summary = Format("proto 0x%04x", proto);
  size_t field = hdr::kGreBaseLen;
  if (c) {
    summary += " C";
    field += 4;
  }
  if (k) {
    summary += Format(" key 0x%08x", GetBe32(p + field));
    field += 4;
  }
  if (s) summary += Format(" seq %u", GetBe32(p + field));
  AddLayer("gre", depth, off, hlen, std::move(summary));
  if (c) {
    if (ip.fragment) {
      AddChecksum("gre", depth, off + hdr::kGreBaseLen, GetBe16(p + hdr::kGreBaseLen), 0,
                  Verdict::kNotChecked);
    } else {
      // RFC 2784: over the GRE header and payload, no pseudo-header.
      InetChecksum("gre", depth, off, end - off, hdr::kGreBaseLen, 0, false);
    }
  }
  if (ip.fragment) return true;
  return Encapsulated("gre", proto, off + hlen, end, depth);
}

bool Dissector::Vxlan(size_t off, size_t end, int depth) {
  if (!Need("vxlan", off, end, hdr::kVxlanLen)) return false;
  const uint8_t* p = data_ + off;
  std::string summary = Format("vni %u", GetBe32(p + 4) >> 8);
  // RFC 7348 requires the I flag; it is shown rather than enforced, as some
  // stacks and extensions (GBP) set other bits too.
  if (p[0] != hdr::kVxlanFlagVni) summary += Format(" flags 0x%02x", p[0]);
  AddLayer("vxlan", depth, off, hdr::kVxlanLen, std::move(summary));
  return Encapsulated("vxlan", hdr::kEthTypeTeb, off + hdr::kVxlanLen, end, depth);
}

bool Dissector::Geneve(size_t off, size_t end, int depth) {
  if (!Need("geneve", off, end, hdr::kGeneveBaseLen)) return false;
  const uint8_t* p = data_ + off;
  unsigned version = p[0] >> 6;
  if (version != 0) return Fail(FormatAlways("geneve: version %u unsupported", version));
  size_t opt_len = size_t{p[0] & 0x3fu} * 4;
  size_t hlen = hdr::kGeneveBaseLen + opt_len;
  if (!Need("geneve", off, end, hlen)) return false;
  uint16_t proto = GetBe16(p + 2);
  std::string summary = Format("vni %u proto 0x%04x", GetBe32(p + 4) >> 8, proto);
  if (p[1] & 0x80u) summary += " O";
  if (p[1] & 0x40u) summary += " C";
  std::string opt_error;
  for (size_t i = 0; i < opt_len;) {
    if (opt_len - i < kGeneveOptHdrLen) {
      opt_error = FormatAlways("geneve: option header truncated (%zu bytes left)", opt_len - i);
      break;
    }
    const uint8_t* o = p + hdr::kGeneveBaseLen + i;
    size_t olen = kGeneveOptHdrLen + size_t{o[3] & 0x1fu} * 4;
    if (olen > opt_len - i) {
      opt_error =
          FormatAlways("geneve: option 0x%04x/0x%02x length %zu exceeds options (%zu bytes left)",
                       GetBe16(o), o[2], olen, opt_len - i);
      break;
    }
    summary += Format(" opt 0x%04x/0x%02x/%zu", GetBe16(o), o[2], olen - kGeneveOptHdrLen);
    i += olen;
  }
  AddLayer("geneve", depth, off, hlen, std::move(summary));
  if (!opt_error.empty()) return Fail(std::move(opt_error));
  return Encapsulated("geneve", proto, off + hlen, end, depth);
}

bool Dissector::Encapsulated(const char* who, uint16_t proto, size_t off, size_t end, int depth) {
  if (proto != hdr::kEthTypeTeb && proto != hdr::kEthTypeIpv4 && proto != hdr::kEthTypeIpv6) {
    return true;
  }
  if (depth + 1 > kMaxDepth) {
    return Fail(FormatAlways("%s: encapsulation deeper than %d levels", who, kMaxDepth));
  }
  if (proto == hdr::kEthTypeTeb) return Ethernet(off, end, depth + 1);
  return EtherPayload(proto, off, end, depth + 1);
}

}  // namespace

std::string Dissection::ToString() const {
  std::string s;
  for (const Layer& l : layers) {
    s.append(2 * static_cast<size_t>(l.depth < 0 ? 0 : l.depth), ' ');
    s += l.name;
    if (!l.summary.empty()) s += ' ' + l.summary;
    for (const ChecksumField& c : checksums) {
      if (c.layer != l.name || c.depth != l.depth || c.offset < l.offset ||
          c.offset >= l.offset + l.length) {
        continue;
      }
      bool wide = c.layer == "sctp";
      s += wide ? Format(" crc32c 0x%08x %s", c.value, offlab::ToString(c.verdict))
                : Format(" csum 0x%04x %s", c.value, offlab::ToString(c.verdict));
      if (c.verdict == Verdict::kIncorrect) {
        s += wide ? Format(" (expected 0x%08x)", c.expected)
                  : Format(" (expected 0x%04x)", c.expected);
      }
    }
    s += '\n';
  }
  if (error) s += "error: " + *error + '\n';
  return s;
}

Dissection Dissect(const uint8_t* data, size_t len) { return Dissector(data, len).Run(); }

Dissection DissectQuiet(const uint8_t* data, size_t len) {
  struct Restore {
    bool was = t_summaries;
    ~Restore() { t_summaries = was; }
  } restore;
  t_summaries = false;
  return Dissector(data, len).Run();
}

}  // namespace offlab
