#include "offlab/ovs/conntrack.h"

#include <cstring>
#include <map>
#include <utility>

#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/net/error.h"
#include "offlab/net/headers.h"
#include "offlab/ovs/complete.h"
#include "offlab/ovs/faults.h"
#include "offlab/ovs/ftp_alg.h"
#include "offlab/ovs/rewrite.h"

namespace offlab {

namespace {

// ICMP message types conntrack understands (RFC 792, RFC 4443).
namespace icmp4 {
constexpr uint8_t kEchoReply = 0, kDestUnreach = 3, kSourceQuench = 4, kRedirect = 5,
                  kEchoRequest = 8, kTimeExceeded = 11, kParamProblem = 12, kTimestamp = 13,
                  kTimestampReply = 14, kInfoRequest = 15, kInfoReply = 16;
}  // namespace icmp4
namespace icmp6 {
constexpr uint8_t kDestUnreach = 1, kPacketTooBig = 2, kTimeExceeded = 3, kParamProblem = 4,
                  kEchoRequest = 128, kEchoReply = 129;
}  // namespace icmp6

// OVS ICMP_ERROR_DATA_L4_LEN: an ICMPv4 error need only quote 8 L4 bytes.
constexpr size_t kIcmpErrorL4Len = 8;

enum class NatAction : uint8_t { kNone, kSrc, kDst };

NatAction ReverseNat(NatAction a) {
  return a == NatAction::kSrc   ? NatAction::kDst
         : a == NatAction::kDst ? NatAction::kSrc
                                : NatAction::kNone;
}

struct Key {
  uint16_t zone = 0;
  bool ipv6 = false;
  uint8_t proto = 0;
  IpAddr src{}, dst{};            // IPv4 in the first 4 bytes, the rest zero
  uint16_t sport = 0, dport = 0;  // ICMP queries: the id on both sides
  uint8_t stype = 0, dtype = 0;   // ICMP queries: the type and its answer's type
  auto operator<=>(const Key&) const = default;
};

Key Reverse(Key k) {
  std::swap(k.src, k.dst);
  std::swap(k.sport, k.dport);
  std::swap(k.stype, k.dtype);
  return k;
}

bool HasPorts(uint8_t proto) {
  return proto == hdr::kProtoTcp || proto == hdr::kProtoUdp || proto == hdr::kProtoSctp;
}

enum class UpdateResult : uint8_t { kValid, kInvalid, kNew, kValidNew };

// Ordered so that "at least FIN sent" is a comparison.
enum class TcpPeer : uint8_t { kNone, kSynSent, kEstablished, kFinSent, kClosed };
enum class OtherState : uint8_t { kFirst, kMultiple, kBidir };

struct Conn {
  Key fwd, rev;
  NatAction nat = NatAction::kNone;
  TcpPeer tcp[2] = {TcpPeer::kNone, TcpPeer::kNone};  // original side, reply side
  OtherState other = OtherState::kFirst;
  bool icmp_replied = false;
  bool ftp = false;  // FTP control connection under alg=ftp
  int32_t skew = 0;  // bytes the ALG added to the original direction's stream
};

// What conn_key_extract found, plus where an ICMP error's quoted headers are.
struct Ctx {
  Key key;
  bool related = false;
  bool reply = false;
  uint16_t inner_l3 = kNoOffset, inner_l4 = kNoOffset;
  uint8_t inner_proto = 0;
};

bool InvalidTcpFlags(uint16_t f) {
  if (f & hdr::kTcpSyn) {
    if (f & (hdr::kTcpRst | hdr::kTcpFin)) return true;
  } else if (!(f & (hdr::kTcpAck | hdr::kTcpRst))) {
    return true;
  }
  return !(f & hdr::kTcpAck) && (f & (hdr::kTcpFin | hdr::kTcpPsh | hdr::kTcpUrg));
}

// Walks the IPv6 extension headers the parser understands over `size` bytes;
// false if one is truncated.
bool WalkIpv6(const uint8_t* ip, size_t size, uint8_t* proto, size_t* l4_off, bool* frag) {
  if (size < hdr::kIpv6Len) return false;
  uint8_t nh = ip[hdr::kIpv6NextOfs];
  size_t q = hdr::kIpv6Len;
  *frag = false;
  // parse_ipv6_ext_hdrs (openvswitch/ovs v3.1.0 lib/flow.c:480-541): AH is
  // walked by its own length, and a fragment header whose offset/flags word
  // is zero (an atomic fragment) is no fragment (checked with ovs-vswitchd
  // 3.1.0: such a datagram is tracked +new).
  constexpr uint8_t kProtoAh = 51;
  while (nh == hdr::kProtoHopByHop || nh == hdr::kProtoRouting || nh == hdr::kProtoDestOpts ||
         nh == hdr::kProtoFragment || nh == kProtoAh) {
    if (size - q < 8) return false;
    if (nh == hdr::kProtoFragment) {
      const bool atomic = GetBe16(ip + q + 2) == 0;
      nh = ip[q];
      q += hdr::kIpv6FragHdrLen;
      if (atomic) continue;
      *frag = true;
      break;
    }
    size_t len = nh == kProtoAh ? (ip[q + 1] + 2u) * 4u : (ip[q + 1] + 1u) * 8u;
    if (len > size - q) return false;
    nh = ip[q];
    q += len;
  }
  *proto = nh;
  *l4_off = q;
  return true;
}

uint64_t Pseudo(const uint8_t* l3, bool ipv6, uint8_t proto, size_t len) {
  if (ipv6) {
    return csum::PseudoIpv6(l3 + hdr::kIpv6SrcOfs, l3 + hdr::kIpv6DstOfs, proto,
                            static_cast<uint32_t>(len));
  }
  return csum::PseudoIpv4(l3 + hdr::kIpv4SrcOfs, l3 + hdr::kIpv4DstOfs, proto,
                          static_cast<uint16_t>(len));
}

// checksum_valid: every software L4 check is counted, and so is a failure.
bool L4ChecksumValid(const uint8_t* l3, bool ipv6, uint8_t proto, const uint8_t* l4, size_t len,
                     Counters* c) {
  bool ok = csum::Verify(l4, len, Pseudo(l3, ipv6, proto, len));
  Count(c, "conntrack_l4csum_checked");
  if (!ok) Count(c, "conntrack_l4csum_err");
  return ok;
}

bool SctpLengthValid(const uint8_t* sh, size_t size) {
  if (size < hdr::kSctpLen) return false;
  size_t next = hdr::kSctpLen;
  while (next < size) {
    if (size - next < 4) return false;
    size_t len = GetBe16(sh + next + 2);
    if (len < 4) return false;
    next += (len + 3) & ~size_t{3};
  }
  return next == size;
}

bool SctpChecksumValid(const uint8_t* sh, size_t size, Counters* c) {
  uint32_t field = GetBe32(sh + hdr::kSctpCsumOfs);
  // The CRC covers the header with a zero checksum field.
  uint32_t crc = csum::Crc32c(sh, hdr::kSctpCsumOfs);
  const uint8_t zero[4] = {0, 0, 0, 0};
  crc = csum::Crc32c(zero, 4, crc);
  crc = csum::Crc32c(sh + hdr::kSctpLen, size - hdr::kSctpLen, crc);
  // On the wire the CRC is least significant byte first (RFC 9260 appendix B).
  bool ok = __builtin_bswap32(field) == crc;
  Count(c, "conntrack_l4csum_checked");
  if (!ok) Count(c, "conntrack_l4csum_err");
  return ok;
}

class Tracker {
 public:
  // conn_key_extract on a parsed packet: validation, then the key. False
  // means invalid.
  bool ExtractKey(Packet& p, uint16_t zone, Ctx* ctx, Counters* c) const;

  void Process(Packet& p, const CtSpec& spec, Counters* c);

  size_t connections() const { return conns_.size(); }
  void Clear() {
    conns_.clear();
    table_.clear();
  }

 private:
  struct Entry {
    uint64_t conn = 0;
    bool reply = false;
  };

  // extract_l4; `pkt` is null for headers quoted in an ICMP error, which are
  // neither checked nor allowed to nest another error.
  bool ExtractL4(Packet* pkt, Key* key, const uint8_t* l3, const uint8_t* l4, size_t size,
                 size_t min_len, Ctx* ctx, Counters* c) const;
  bool ExtractIcmpError(Packet* pkt, Key* key, const uint8_t* inner_l3, size_t size,
                        Ctx* ctx) const;

  bool ValidNew(const Packet& p, const Key& key) const;
  UpdateResult Update(Conn& conn, const Packet& p, bool reply);
  bool UpdateState(Packet& p, Ctx& ctx, Conn& conn, uint32_t* state);
  Conn* NotFound(Packet& p, Ctx& ctx, const CtSpec& spec, uint32_t* state);
  bool ChooseNatTuple(Conn& conn, const NatSpec& nat) const;
  void Erase(uint64_t id);

  void NatPacket(Packet& p, const Conn& conn, bool reply, const Ctx& ctx, uint32_t* state);
  void NatInner(Packet& p, const Key& key, NatAction action, const Ctx& ctx);

  std::map<uint64_t, Conn> conns_;
  std::map<Key, Entry> table_;
  uint64_t next_id_ = 1;
};

bool Tracker::ExtractKey(Packet& p, uint16_t zone, Ctx* ctx, Counters* c) const {
  *ctx = Ctx{};
  ctx->key.zone = zone;
  uint8_t* l3 = p.l3();
  const uint8_t* l4 = p.l4();
  if (p.size() < hdr::kEthLen || !l3 || !l4 || p.l4_ofs <= p.l3_ofs) return false;
  const size_t avail = p.SizeFrom(p.l3_ofs);
  Key& key = ctx->key;
  size_t l4_size;
  if ((l3[0] >> 4) == 4) {
    if (p.offloads.ip() == CsumStatus::kBad) {
      Count(c, "conntrack_l3csum_err");
      return false;
    }
    if (avail < hdr::kIpv4MinLen) return false;
    const size_t ihl = (l3[0] & 0x0f) * 4u;
    const size_t tot = GetBe16(l3 + hdr::kIpv4TotLenOfs);
    if (ihl < hdr::kIpv4MinLen || ihl > avail || tot < ihl || tot > avail) return false;
    // IP_IS_FRAGMENT: MF or an offset (openvswitch/ovs v3.1.0 lib/conntrack.c
    // extract_l3_ipv4). A first fragment ipf did not hold is no datagram either.
    if (GetBe16(l3 + hdr::kIpv4FragOfs) & (hdr::kIpv4MoreFragments | hdr::kIpv4FragOffsetMask)) {
      return false;
    }
    // 4b00509ea: the check was skipped for packets of unknown status.
    if (p.offloads.ip() == CsumStatus::kUnknown && !Faults::On(Fault::kCtSkipsUnknownIpCheck)) {
      Count(c, "conntrack_l3csum_checked");
      if (!csum::Verify(l3, ihl)) {
        Count(c, "conntrack_l3csum_err");
        p.offloads.set_ip(CsumStatus::kBad);
        return false;
      }
      p.offloads.set_ip(CsumStatus::kGood);
    }
    // The rewrite helpers act at l4_ofs: it must be where this header ends.
    if (p.l4_ofs != p.l3_ofs + ihl) return false;
    std::memcpy(key.src.data(), l3 + hdr::kIpv4SrcOfs, 4);
    std::memcpy(key.dst.data(), l3 + hdr::kIpv4DstOfs, 4);
    key.proto = l3[hdr::kIpv4ProtoOfs];
    l4_size = tot - ihl;
  } else if ((l3[0] >> 4) == 6) {
    if (avail < hdr::kIpv6Len) return false;
    const size_t len = hdr::kIpv6Len + GetBe16(l3 + hdr::kIpv6PlenOfs);
    if (len > avail) return false;
    uint8_t proto;
    size_t l4_off;
    bool frag;
    if (!WalkIpv6(l3, len, &proto, &l4_off, &frag) || frag) return false;
    if (p.l4_ofs != p.l3_ofs + l4_off) return false;
    key.ipv6 = true;
    std::memcpy(key.src.data(), l3 + hdr::kIpv6SrcOfs, 16);
    std::memcpy(key.dst.data(), l3 + hdr::kIpv6DstOfs, 16);
    key.proto = proto;
    l4_size = len - l4_off;
  } else {
    return false;
  }
  if (p.offloads.l4() == CsumStatus::kBad) {
    Count(c, "conntrack_l4csum_err");
    return false;
  }
  return ExtractL4(&p, &key, l3, l4, l4_size, 0, ctx, c);
}

bool Tracker::ExtractL4(Packet* pkt, Key* key, const uint8_t* l3, const uint8_t* l4, size_t size,
                        size_t min_len, Ctx* ctx, Counters* c) const {
  const bool check = pkt != nullptr;
  auto ports = [&](size_t header_len) {
    if (size < (min_len ? min_len : header_len)) return false;
    key->sport = GetBe16(l4);
    key->dport = GetBe16(l4 + 2);
    return key->sport != 0 && key->dport != 0;
  };
  switch (key->proto) {
    case hdr::kProtoTcp:
      if (check) {
        if (size < hdr::kTcpMinLen) return false;
        const size_t off = (l4[hdr::kTcpOffFlagsOfs] >> 4) * 4u;
        if (off < hdr::kTcpMinLen || off > size) return false;
        if (pkt->offloads.l4() == CsumStatus::kUnknown) {
          if (!L4ChecksumValid(l3, key->ipv6, key->proto, l4, size, c)) {
            pkt->offloads.set_l4(CsumStatus::kBad);
            return false;
          }
          pkt->offloads.set_l4(CsumStatus::kGood);
          pkt->offloads.set_l4_proto(L4Proto::kTcp);
        }
      }
      return ports(hdr::kTcpMinLen);
    case hdr::kProtoUdp:
      if (check) {
        if (size < hdr::kUdpLen) return false;
        const size_t udp_len = GetBe16(l4 + hdr::kUdpLenOfs);
        if (udp_len < hdr::kUdpLen || udp_len > size) return false;
        // An IPv4 UDP checksum of 0 means "none": there is nothing to check.
        const bool none = !key->ipv6 && GetBe16(l4 + hdr::kUdpCsumOfs) == 0;
        if (!none && pkt->offloads.l4() == CsumStatus::kUnknown) {
          if (!L4ChecksumValid(l3, key->ipv6, key->proto, l4, size, c)) {
            pkt->offloads.set_l4(CsumStatus::kBad);
            return false;
          }
          pkt->offloads.set_l4(CsumStatus::kGood);
          pkt->offloads.set_l4_proto(L4Proto::kUdp);
        }
      }
      return ports(hdr::kUdpLen);
    case hdr::kProtoSctp:
      if (check) {
        if (!SctpLengthValid(l4, size)) return false;
        if (pkt->offloads.l4() == CsumStatus::kUnknown) {
          if (!SctpChecksumValid(l4, size, c)) {
            pkt->offloads.set_l4(CsumStatus::kBad);
            return false;
          }
          pkt->offloads.set_l4(CsumStatus::kGood);
          pkt->offloads.set_l4_proto(L4Proto::kSctp);
        }
      }
      return ports(hdr::kSctpLen);
    case hdr::kProtoIcmp: {
      if (key->ipv6) return true;
      if (check) {
        // ICMP has no offload status: it is always checked in software.
        Count(c, "conntrack_l4csum_checked");
        if (!csum::Verify(l4, size)) {
          Count(c, "conntrack_l4csum_err");
          return false;
        }
      }
      if (size < (min_len ? min_len : hdr::kIcmpLen)) return false;
      const uint8_t type = l4[0], code = l4[1];
      switch (type) {
        case icmp4::kEchoRequest:
        case icmp4::kEchoReply:
        case icmp4::kTimestamp:
        case icmp4::kTimestampReply:
        case icmp4::kInfoRequest:
        case icmp4::kInfoReply: {
          if (code != 0) return false;
          static const std::map<uint8_t, uint8_t> kAnswer = {
              {icmp4::kEchoRequest, icmp4::kEchoReply},
              {icmp4::kEchoReply, icmp4::kEchoRequest},
              {icmp4::kTimestamp, icmp4::kTimestampReply},
              {icmp4::kTimestampReply, icmp4::kTimestamp},
              {icmp4::kInfoRequest, icmp4::kInfoReply},
              {icmp4::kInfoReply, icmp4::kInfoRequest}};
          key->sport = key->dport = GetBe16(l4 + 4);
          key->stype = type;
          key->dtype = kAnswer.at(type);
          return true;
        }
        case icmp4::kDestUnreach:
        case icmp4::kTimeExceeded:
        case icmp4::kParamProblem:
        case icmp4::kSourceQuench:
        case icmp4::kRedirect:
          if (!check) return false;
          return ExtractIcmpError(pkt, key, l4 + hdr::kIcmpLen, size - hdr::kIcmpLen, ctx);
        default:
          return false;
      }
    }
    case hdr::kProtoIcmpv6: {
      if (!key->ipv6) return true;
      if (check && !L4ChecksumValid(l3, true, key->proto, l4, size, c)) return false;
      if (size < hdr::kIcmpLen) return false;
      const uint8_t type = l4[0], code = l4[1];
      switch (type) {
        case icmp6::kEchoRequest:
        case icmp6::kEchoReply:
          if (code != 0) return false;
          key->sport = key->dport = GetBe16(l4 + 4);
          key->stype = type;
          key->dtype = type == icmp6::kEchoRequest ? icmp6::kEchoReply : icmp6::kEchoRequest;
          return true;
        case icmp6::kDestUnreach:
        case icmp6::kPacketTooBig:
        case icmp6::kTimeExceeded:
        case icmp6::kParamProblem:
          if (!check) return false;
          return ExtractIcmpError(pkt, key, l4 + hdr::kIcmpLen, size - hdr::kIcmpLen, ctx);
        default:
          return false;
      }
    }
    default:
      // Other protocols are tracked by addresses alone.
      return true;
  }
}

// An ICMP error belongs to the connection of the packet it quotes, which
// travelled the other way: the key is that packet's, reversed.
bool Tracker::ExtractIcmpError(Packet* pkt, Key* key, const uint8_t* inner_l3, size_t size,
                               Ctx* ctx) const {
  Key inner = *key;
  const uint8_t* inner_l4;
  size_t inner_size;
  if (!key->ipv6) {
    if (size < hdr::kIpv4MinLen) return false;
    const size_t ihl = (inner_l3[0] & 0x0f) * 4u;
    if ((inner_l3[0] >> 4) != 4 || ihl < hdr::kIpv4MinLen || ihl > size) return false;
    // extract_l3_ipv4 on the quote too: IP_IS_FRAGMENT, MF included.
    if (GetBe16(inner_l3 + hdr::kIpv4FragOfs) &
        (hdr::kIpv4MoreFragments | hdr::kIpv4FragOffsetMask)) {
      return false;
    }
    std::memcpy(inner.src.data(), inner_l3 + hdr::kIpv4SrcOfs, 4);
    std::memcpy(inner.dst.data(), inner_l3 + hdr::kIpv4DstOfs, 4);
    inner.proto = inner_l3[hdr::kIpv4ProtoOfs];
    inner_l4 = inner_l3 + ihl;
    inner_size = size - ihl;
  } else {
    uint8_t proto;
    size_t l4_off;
    bool frag;
    if ((inner_l3[0] >> 4) != 6 || !WalkIpv6(inner_l3, size, &proto, &l4_off, &frag) || frag) {
      return false;
    }
    std::memcpy(inner.src.data(), inner_l3 + hdr::kIpv6SrcOfs, 16);
    std::memcpy(inner.dst.data(), inner_l3 + hdr::kIpv6DstOfs, 16);
    inner.proto = proto;
    inner_l4 = inner_l3 + l4_off;
    inner_size = size - l4_off;
  }
  // The quoted packet was sent by whoever the error is addressed to.
  if (inner.src != key->dst) return false;
  inner.sport = inner.dport = 0;
  inner.stype = inner.dtype = 0;
  const size_t min_len = key->ipv6 ? 0 : kIcmpErrorL4Len;
  if (!ExtractL4(nullptr, &inner, inner_l3, inner_l4, inner_size, min_len, nullptr, nullptr)) {
    return false;
  }
  *key = Reverse(inner);
  ctx->related = true;
  ctx->inner_l3 = static_cast<uint16_t>(inner_l3 - pkt->data());
  ctx->inner_l4 = static_cast<uint16_t>(inner_l4 - pkt->data());
  ctx->inner_proto = inner.proto;
  return true;
}

bool Tracker::ValidNew(const Packet& p, const Key& key) const {
  const uint8_t* l4 = p.l4();
  switch (key.proto) {
    case hdr::kProtoTcp: {
      uint16_t f = GetBe16(l4 + hdr::kTcpOffFlagsOfs) & 0x0fff;
      // A SYN+ACK would open a half-seen connection.
      return !InvalidTcpFlags(f) && !((f & hdr::kTcpSyn) && (f & hdr::kTcpAck));
    }
    case hdr::kProtoIcmp:
      if (key.ipv6) return true;
      return l4[0] == icmp4::kEchoRequest || l4[0] == icmp4::kInfoRequest ||
             l4[0] == icmp4::kTimestamp;
    case hdr::kProtoIcmpv6:
      if (!key.ipv6) return true;
      return l4[0] == icmp6::kEchoRequest;
    default:
      return true;
  }
}

UpdateResult Tracker::Update(Conn& conn, const Packet& p, bool reply) {
  const uint8_t proto = conn.fwd.proto;
  if (proto == hdr::kProtoTcp) {
    const uint16_t f = GetBe16(p.l4() + hdr::kTcpOffFlagsOfs) & 0x0fff;
    if (InvalidTcpFlags(f)) return UpdateResult::kInvalid;
    TcpPeer& src = conn.tcp[reply ? 1 : 0];
    TcpPeer& dst = conn.tcp[reply ? 0 : 1];
    if ((f & (hdr::kTcpSyn | hdr::kTcpAck)) == hdr::kTcpSyn) {
      // A fresh SYN after both sides closed starts a new connection on the
      // same tuple; a repeated SYN of an opening one is still new.
      if (src >= TcpPeer::kFinSent && dst >= TcpPeer::kFinSent) {
        src = dst = TcpPeer::kClosed;
        return UpdateResult::kNew;
      }
      if (src <= TcpPeer::kSynSent) {
        src = TcpPeer::kSynSent;
        return UpdateResult::kValidNew;
      }
    }
    if (f & hdr::kTcpRst) {
      src = dst = TcpPeer::kClosed;
    } else if (f & hdr::kTcpFin) {
      if (src < TcpPeer::kFinSent) src = TcpPeer::kFinSent;
    } else if (src < TcpPeer::kEstablished) {
      src = TcpPeer::kEstablished;
    }
    return UpdateResult::kValid;
  }
  const bool icmp =
      (proto == hdr::kProtoIcmp && !conn.fwd.ipv6) || (proto == hdr::kProtoIcmpv6 && conn.fwd.ipv6);
  if (icmp) {
    if (reply && !conn.icmp_replied) {
      conn.icmp_replied = true;
    } else if (!conn.icmp_replied) {
      return UpdateResult::kValidNew;
    }
    return UpdateResult::kValid;
  }
  if (reply) {
    conn.other = OtherState::kBidir;
  } else if (conn.other == OtherState::kFirst) {
    conn.other = OtherState::kMultiple;
  }
  return conn.other == OtherState::kBidir ? UpdateResult::kValid : UpdateResult::kValidNew;
}

// conn_update_state: true if the packet starts a new connection on the tuple.
bool Tracker::UpdateState(Packet& p, Ctx& ctx, Conn& conn, uint32_t* state) {
  if (ctx.related) {
    *state |= ct::kRelated;
    if (ctx.reply) *state |= ct::kReplyDir;
    return false;
  }
  switch (Update(conn, p, ctx.reply)) {
    case UpdateResult::kValid:
      *state |= ct::kEstablished;
      *state &= ~ct::kNew;
      if (ctx.reply) *state |= ct::kReplyDir;
      return false;
    case UpdateResult::kInvalid:
      *state = ct::kInvalid;
      return false;
    case UpdateResult::kNew:
      return true;
    case UpdateResult::kValidNew:
      *state |= ct::kNew;
      return false;
  }
  return false;
}

// nat_get_unique_tuple, for a single address and an optional port: the reply
// tuple must not be one the table already holds. Without a fixed port a
// source NAT may move the source port to find a free tuple.
bool Tracker::ChooseNatTuple(Conn& conn, const NatSpec& nat) const {
  Key rev = Reverse(conn.fwd);
  IpAddr addr{};
  std::memcpy(addr.data(), nat.addr->data(), conn.fwd.ipv6 ? 16 : 4);
  const bool ports = HasPorts(conn.fwd.proto);
  uint16_t* port;
  if (nat.snat) {
    rev.dst = addr;
    port = &rev.dport;
  } else {
    rev.src = addr;
    port = &rev.sport;
  }
  if (nat.port && ports) *port = *nat.port;
  bool free = !table_.count(rev);
  if (!free && nat.snat && !nat.port && ports) {
    const uint16_t orig = *port;
    for (uint32_t i = 1; i < 65536 - 1024 && !free; i++) {
      *port = static_cast<uint16_t>(1024 + (orig - 1024 + i + 64512) % 64512);
      free = !table_.count(rev);
    }
  }
  if (!free) return false;
  conn.rev = rev;
  conn.nat = nat.snat ? NatAction::kSrc : NatAction::kDst;
  return true;
}

// conn_not_found: the packet is new; commit stores it and applies NAT.
Conn* Tracker::NotFound(Packet& p, Ctx& ctx, const CtSpec& spec, uint32_t* state) {
  if (!ValidNew(p, ctx.key)) {
    *state = ct::kInvalid;
    return nullptr;
  }
  *state = ct::kNew;
  if (!spec.commit) return nullptr;
  Conn conn;
  conn.fwd = ctx.key;
  conn.rev = Reverse(ctx.key);
  if (conn.fwd.proto == hdr::kProtoTcp) {
    const uint16_t f = GetBe16(p.l4() + hdr::kTcpOffFlagsOfs);
    conn.tcp[0] = (f & hdr::kTcpSyn) ? TcpPeer::kSynSent : TcpPeer::kEstablished;
  }
  const NatSpec& nat = spec.nat;
  if (nat.enabled && nat.addr && nat.ipv6 == ctx.key.ipv6) {
    // Tuple space exhausted: OVS leaves the packet new and stores nothing.
    if (!ChooseNatTuple(conn, nat)) return nullptr;
  }
  conn.ftp = spec.alg_ftp && conn.fwd.proto == hdr::kProtoTcp;
  const uint64_t id = next_id_++;
  Conn& stored = conns_.emplace(id, conn).first->second;
  table_[stored.fwd] = {id, false};
  table_[stored.rev] = {id, true};
  if (stored.nat != NatAction::kNone) NatPacket(p, stored, false, ctx, state);
  return &stored;
}

void Tracker::Erase(uint64_t id) {
  auto it = conns_.find(id);
  if (it == conns_.end()) return;
  table_.erase(it->second.fwd);
  table_.erase(it->second.rev);
  conns_.erase(it);
}

void NatAddresses(Packet& p, const Key& key, NatAction action) {
  if (action == NatAction::kNone) return;
  const IpAddr& a = action == NatAction::kSrc ? key.dst : key.src;
  if (key.ipv6) {
    Ipv6Set s;
    (action == NatAction::kSrc ? s.src : s.dst) = a;
    SetIpv6(p, s);
  } else {
    Ipv4Set s;
    (action == NatAction::kSrc ? s.src : s.dst) = std::array<uint8_t, 4>{a[0], a[1], a[2], a[3]};
    SetIpv4(p, s);
  }
}

// pat_packet: the ports become those of the tuple the packet must carry.
void NatPorts(Packet& p, const Key& key, uint8_t proto, bool quoted) {
  if (!HasPorts(proto)) return;
  if (SetL4Ports(p, key.dport, key.sport) || !quoted) return;
  // An ICMP error may quote fewer L4 bytes than a full header: the ports are
  // there but the checksum field is not, so there is nothing else to update.
  uint8_t* l4 = p.l4();
  if (l4 && p.SizeFrom(p.l4_ofs) >= 4) {
    PutBe16(l4, key.dport);
    PutBe16(l4 + 2, key.sport);
  }
}

// The FTP ALG on a source-NATed control connection: the client's PORT
// commands carry its address; the stream offsets they shift are kept in
// `skew` and applied to every later sequence (and reply acknowledgement).
void FtpAlg(Packet& p, Conn& conn, bool reply) {
  if (reply) {
    FtpAdjustSeq(p, 0, -conn.skew);
    return;
  }
  FtpAdjustSeq(p, conn.skew, 0);
  if (conn.nat == NatAction::kSrc && !conn.fwd.ipv6) {
    const IpAddr& a = conn.rev.dst;
    conn.skew += FtpRewritePort(p, {a[0], a[1], a[2], a[3]});
  }
}

void Tracker::NatPacket(Packet& p, const Conn& conn, bool reply, const Ctx& ctx, uint32_t* state) {
  const Key& key = reply ? conn.fwd : conn.rev;
  const NatAction action = reply ? ReverseNat(conn.nat) : conn.nat;
  if (action == NatAction::kSrc) *state |= ct::kSrcNat;
  if (action == NatAction::kDst) *state |= ct::kDstNat;
  NatAddresses(p, key, action);
  if (ctx.related) {
    NatInner(p, key, ReverseNat(action), ctx);
  } else {
    NatPorts(p, key, key.proto, false);
  }
}

// nat_inner_packet: the headers quoted in an ICMP error are translated the
// other way round, with their own checksums kept consistent.
void Tracker::NatInner(Packet& p, const Key& key, NatAction action, const Ctx& ctx) {
  const Offloads saved = p.offloads;
  const uint16_t l3_ofs = p.l3_ofs, l4_ofs = p.l4_ofs;
  const size_t l4_len = L4Length(p, l3_ofs, l4_ofs);
  const size_t end = l4_ofs + l4_len;
  // Work on the IP datagram alone so that nothing past it (link padding) can
  // be taken for quoted bytes.
  const Bytes tail(p.data() + end, p.data() + p.size());
  p.Resize(end);

  p.l3_ofs = ctx.inner_l3;
  p.l4_ofs = ctx.inner_l4;
  // The quoted checksums are nobody's offload: with the outer status left in
  // place a valid one would only be marked partial and never finished, so it
  // is forced unknown for the incremental updates (71f3dd3e9).
  if (!Faults::On(Fault::kCtIcmpErrorKeepsOuterStatus)) {
    p.offloads.set_ip(CsumStatus::kUnknown);
    p.offloads.set_l4(CsumStatus::kUnknown);
  }
  // SetL4Ports learns an IPv6 packet's protocol from the offloads word.
  const uint8_t ip = ctx.inner_proto;
  p.offloads.set_l4_proto(ip == hdr::kProtoTcp    ? L4Proto::kTcp
                          : ip == hdr::kProtoUdp  ? L4Proto::kUdp
                          : ip == hdr::kProtoSctp ? L4Proto::kSctp
                                                  : L4Proto::kNone);
  const Key inner = Reverse(key);
  NatPorts(p, inner, ctx.inner_proto, true);
  NatAddresses(p, inner, action);
  p.l3_ofs = l3_ofs;
  p.l4_ofs = l4_ofs;

  uint8_t* icmp = p.data() + l4_ofs;
  PutBe16(icmp + hdr::kIcmpCsumOfs, 0);
  uint64_t sum = 0;
  if (key.ipv6) sum = PseudoHeaderSum(p, l3_ofs, hdr::kProtoIcmpv6, static_cast<uint32_t>(l4_len));
  PutBe16(icmp + hdr::kIcmpCsumOfs, csum::Finish(csum::Partial(icmp, l4_len, sum)));

  p.Put(tail.data(), tail.size());
  p.offloads = saved;
}

void Tracker::Process(Packet& p, const CtSpec& spec, Counters* c) {
  const uint16_t zone = spec.zone;
  // A packet entering another zone starts afresh; within the zone the NAT
  // bits tell that it was already translated.
  uint32_t state = p.md.ct_state;
  if (state && p.md.ct_zone != zone) state = 0;

  Ctx ctx;
  Conn* conn = nullptr;
  if (!ExtractKey(p, zone, &ctx, c)) {
    state = ct::kInvalid;
  } else {
    const bool natted = state & (ct::kSrcNat | ct::kDstNat);
    // A translated packet carries the tuple of the other direction's key.
    auto it = table_.find(natted ? Reverse(ctx.key) : ctx.key);
    if (it != table_.end()) {
      conn = &conns_.at(it->second.conn);
      ctx.reply = it->second.reply;
      if (natted) {
        ctx.reply = !ctx.reply;
        ctx.key = ctx.reply ? conn->rev : conn->fwd;
      }
    }
    bool create = false;
    if (conn) {
      create = UpdateState(p, ctx, *conn, &state);
      if (create) {
        Erase(it->second.conn);
        conn = nullptr;
      } else if (spec.nat.enabled && conn->nat != NatAction::kNone &&
                 !(state & (ct::kSrcNat | ct::kDstNat))) {
        NatPacket(p, *conn, ctx.reply, ctx, &state);
      }
    } else if (ctx.related) {
      // An ICMP error never opens a connection of its own.
      state = ct::kInvalid;
    } else {
      create = true;
    }
    if (create && !table_.count(ctx.key)) conn = NotFound(p, ctx, spec, &state);
    if (conn && conn->ftp && spec.nat.enabled && !ctx.related) FtpAlg(p, *conn, ctx.reply);
  }
  p.md.ct_state = state | ct::kTracked;
  p.md.ct_zone = zone;
  p.md.ct_mark = 0;
}

// ipf looks at IPv4 and IPv6 packets (both enabled by default: lib/ipf.c
// ipf_init, ifp_v4_enabled and ifp_v6_enabled).
bool IsIp(const Packet& p) {
  const uint8_t* l3 = p.l3();
  return l3 && p.SizeFrom(p.l3_ofs) >= 1 && ((l3[0] >> 4) == 4 || (l3[0] >> 4) == 6);
}

}  // namespace

struct Conntrack::Impl {
  explicit Impl(IpfConfig cfg) : ipf(cfg) {}
  Tracker tracker;
  Ipf ipf;
};

Conntrack::Conntrack(IpfConfig ipf) : impl_(std::make_unique<Impl>(ipf)) {}
Conntrack::~Conntrack() = default;

PacketBatch Conntrack::Execute(PacketBatch batch, const CtSpec& spec, Counters* counters) {
  struct Work {
    Packet packet;
    bool invalid = false;
    uint64_t datagram = 0;
  };
  std::vector<Work> work;
  work.reserve(batch.size());
  for (Packet& p : batch) {
    if (IsIp(p)) {
      const Ipf::Verdict v = impl_->ipf.Validate(p, counters);
      if (v == Ipf::Verdict::kInvalid) {
        work.push_back({std::move(p), true, 0});
        continue;
      }
      if (v == Ipf::Verdict::kFragment) {
        Ipf::AddResult r = impl_->ipf.Add(std::move(p), spec.zone);
        switch (r.outcome) {
          case Ipf::Outcome::kHeld:
            break;
          case Ipf::Outcome::kNotHeld:
            work.push_back({std::move(r.packet), false, 0});
            break;
          case Ipf::Outcome::kInvalid:
            work.push_back({std::move(r.packet), true, 0});
            break;
          case Ipf::Outcome::kCompleted:
            work.push_back({std::move(r.packet), false, r.datagram});
            break;
        }
        continue;
      }
    }
    work.push_back({std::move(p), false, 0});
  }

  PacketBatch out;
  out.reserve(work.size());
  for (Work& w : work) {
    if (w.invalid) {
      w.packet.md.ct_state = ct::kInvalid | ct::kTracked;
      w.packet.md.ct_zone = spec.zone;
      w.packet.md.ct_mark = 0;
    } else {
      impl_->tracker.Process(w.packet, spec, counters);
    }
    if (!w.datagram) {
      out.push_back(std::move(w.packet));
      continue;
    }
    try {
      for (Packet& f : impl_->ipf.Release(w.datagram, w.packet)) out.push_back(std::move(f));
    } catch (const Error&) {
      // OVS asserts on a partial checksum it cannot finish; the datagram is dropped.
      Count(counters, "offlab_send_prepare_errors");
    }
  }
  return out;
}

bool Conntrack::Execute(Packet& p, const CtSpec& spec, Counters* counters) {
  PacketBatch out = Execute(OneBatch(std::move(p)), spec, counters);
  if (out.empty()) return false;
  if (out.size() > 1) {
    throw Error("ct: a fragment completed a datagram; use the batch form of Execute");
  }
  p = std::move(out.front());
  return true;
}

size_t Conntrack::connections() const { return impl_->tracker.connections(); }
size_t Conntrack::held_fragments() const { return impl_->ipf.held_fragments(); }

void Conntrack::Clear() {
  impl_->tracker.Clear();
  impl_->ipf.Clear();
}

}  // namespace offlab
