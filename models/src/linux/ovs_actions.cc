#include "offlab/linux/ovs_actions.h"

#include <cstring>

#include "offlab/linux/ovs_actions_csum.h"
#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/net/headers.h"
#include "offlab/net/work.h"

// Line numbers: torvalds/linux 008f05a72d32 net/openvswitch/actions.c.

namespace offlab::kernel {

namespace {

template <typename T>
T Masked(T old, T key, T mask) {
  return static_cast<T>(key | (old & ~mask));
}

// skb_ensure_writable(skb, len): the first `len` bytes must be in the skb.
bool Writable(const SkBuff& skb, size_t len) { return len <= skb.len(); }

// skb->len - skb_transport_offset(skb), or -1 without a transport header.
long TransportLen(const SkBuff& skb) {
  if (skb.pkt.l4_ofs == kNoOffset) return -1;
  return static_cast<long>(skb.len()) - skb.pkt.l4_ofs;
}

void ClearHashAndCt(OvsSkb& s) {
  s.hash_valid = false;  // skb_clear_hash
  OvsCtClearSkb(s);
}

// update_ip_l4_checksum (actions.c:344).
void UpdateIpL4Checksum(OvsSkb& s, const uint8_t* nh, uint32_t addr, uint32_t new_addr) {
  SkBuff& skb = s.skb;
  const long tlen = TransportLen(skb);
  if (tlen < 0) return;
  if (GetBe16(nh + hdr::kIpv4FragOfs) & hdr::kIpv4FragOffsetMask) return;  // :349
  const size_t l4 = skb.pkt.l4_ofs;
  const uint8_t proto = nh[hdr::kIpv4ProtoOfs];
  if (proto == hdr::kProtoTcp) {
    if (tlen >= static_cast<long>(hdr::kTcpMinLen))  // :353
      InetProtoCsumReplace4(skb, l4 + hdr::kTcpCsumOfs, addr, new_addr, true);
  } else if (proto == hdr::kProtoUdp && tlen >= static_cast<long>(hdr::kUdpLen)) {
    uint8_t* check = skb.pkt.data() + l4 + hdr::kUdpCsumOfs;
    if (GetBe16(check) || skb.ip_summed == IpSummed::kPartial) {  // :360
      InetProtoCsumReplace4(skb, l4 + hdr::kUdpCsumOfs, addr, new_addr, true);
      if (!GetBe16(check)) PutBe16(check, 0xffff);  // CSUM_MANGLED_0 :364
    }
  }
}

// set_ip_addr (actions.c:370): L4 first, then the header checksum.
void SetIpAddr(OvsSkb& s, size_t addr_ofs, const std::array<uint8_t, 4>& new_bytes) {
  uint8_t* nh = s.skb.pkt.l3();
  uint8_t* addr = s.skb.pkt.data() + addr_ofs;
  const uint32_t from = GetBe32(addr), to = GetBe32(new_bytes.data());
  UpdateIpL4Checksum(s, nh, from, to);
  CsumReplace4(nh + hdr::kIpv4CsumOfs, from, to);  // :374
  ClearHashAndCt(s);
  PutBe32(addr, to);
}

// ipv6_find_hdr(skb, &offset, NEXTHDR_ROUTING, NULL, IP6_FH_F_SKIP_RH) ==
// NEXTHDR_ROUTING (net/ipv6/exthdrs_core.c): a routing header with segments
// left (one with none is skipped) before the upper layer, a non-first
// fragment or the end of the headers.
bool ActiveRoutingHeader(const uint8_t* d, size_t len, size_t l3) {
  uint8_t nh = d[l3 + hdr::kIpv6NextOfs];
  size_t ofs = l3 + hdr::kIpv6Len;
  for (;;) {
    const bool ext = nh == 0 || nh == 43 || nh == 44 || nh == 51 || nh == 60;
    if (!ext || ofs + 2 > len) return false;  // -ENOENT / -EBADMSG
    size_t hlen;
    if (nh == hdr::kProtoRouting) {
      if (ofs + 4 > len) return false;
      if (d[ofs + 3] != 0) return true;
      hlen = (size_t{d[ofs + 1]} + 1) * 8;
    } else if (nh == hdr::kProtoFragment) {
      if (ofs + 4 > len || (GetBe16(d + ofs + 2) & 0xfff8)) return false;
      hlen = 8;
    } else if (nh == 51) {
      hlen = (size_t{d[ofs + 1]} + 2) * 4;
    } else {
      hlen = (size_t{d[ofs + 1]} + 1) * 8;
    }
    nh = d[ofs];
    ofs += hlen;
  }
}

// update_ipv6_checksum (actions.c:380).
void UpdateIpv6Checksum(OvsSkb& s, const uint8_t* addr, const uint8_t* new_addr,
                        const KernelVersion& kv) {
  SkBuff& skb = s.skb;
  const long tlen = TransportLen(skb);
  if (tlen < 0) return;
  const size_t l4 = skb.pkt.l4_ofs;
  switch (s.key.ip_proto) {
    case hdr::kProtoTcp:
      if (tlen >= static_cast<long>(hdr::kTcpMinLen))  // :387
        InetProtoCsumReplace16(skb, l4 + hdr::kTcpCsumOfs, addr, new_addr, true, kv);
      break;
    case hdr::kProtoUdp:
      if (tlen >= static_cast<long>(hdr::kUdpLen)) {
        uint8_t* check = skb.pkt.data() + l4 + hdr::kUdpCsumOfs;
        if (GetBe16(check) || skb.ip_summed == IpSummed::kPartial) {  // :394
          InetProtoCsumReplace16(skb, l4 + hdr::kUdpCsumOfs, addr, new_addr, true, kv);
          if (!GetBe16(check)) PutBe16(check, 0xffff);  // :397
        }
      }
      break;
    case hdr::kProtoIcmpv6:
      if (tlen >= static_cast<long>(hdr::kIcmpLen))  // :402
        InetProtoCsumReplace16(skb, l4 + hdr::kIcmpCsumOfs, addr, new_addr, true, kv);
      break;
    default:
      break;
  }
}

// set_ipv6_addr (actions.c:416).
void SetIpv6Addr(OvsSkb& s, uint8_t* addr, const std::array<uint8_t, 16>& masked, bool recalc,
                 const KernelVersion& kv) {
  if (recalc) UpdateIpv6Checksum(s, addr, masked.data(), kv);
  ClearHashAndCt(s);
  std::memcpy(addr, masked.data(), 16);
}

// The masked IPv6 address and whether it differs (actions.c mask_ipv6_addr).
bool MaskIpv6(const uint8_t* old, const std::array<uint8_t, 16>& key,
              const std::array<uint8_t, 16>& mask, std::array<uint8_t, 16>& out) {
  bool any_mask = false;
  for (size_t i = 0; i < 16; i++) {
    out[i] = Masked(old[i], key[i], mask[i]);
    any_mask |= mask[i] != 0;
  }
  return any_mask && std::memcmp(old, out.data(), 16) != 0;
}

// The ports of set_tcp / set_udp: set_tp_port (actions.c:662).
void SetTpPort(OvsSkb& s, size_t port_ofs, uint16_t new_port, size_t check_ofs) {
  OvsCtClearSkb(s);
  uint8_t* port = s.skb.pkt.data() + port_ofs;
  InetProtoCsumReplace2(s.skb, check_ofs, GetBe16(port), new_port, false);
  PutBe16(port, new_port);
}

}  // namespace

void OvsCtClearSkb(OvsSkb& s) { s.nfct_attached = false; }

int OvsSetEthAddr(OvsSkb& s, const OvsKeyEthernet& key, const OvsKeyEthernet& mask) {
  SkBuff& skb = s.skb;
  if (!Writable(skb, hdr::kEthLen)) return ovs_err::kNoMem;
  uint8_t* eth = skb.pkt.data();
  RcsumPull(skb, 0, 12);  // :265
  for (size_t i = 0; i < 6; i++) {
    eth[6 + i] = Masked(eth[6 + i], key.src[i], mask.src[i]);
    eth[i] = Masked(eth[i], key.dst[i], mask.dst[i]);
  }
  RcsumPush(skb, 0, 12);  // :272
  return 0;
}

int OvsSetIpv4(OvsSkb& s, const OvsKeyIpv4& key, const OvsKeyIpv4& mask) {
  SkBuff& skb = s.skb;
  if (skb.pkt.l3_ofs == kNoOffset) return ovs_err::kInval;
  if (!Writable(skb, size_t{skb.pkt.l3_ofs} + hdr::kIpv4MinLen)) return ovs_err::kNoMem;
  uint8_t* nh = skb.pkt.l3();
  const size_t l3 = skb.pkt.l3_ofs;
  struct Addr {
    size_t ofs;
    const std::array<uint8_t, 4>& key;
    const std::array<uint8_t, 4>& mask;
  };
  const Addr addrs[] = {{l3 + hdr::kIpv4SrcOfs, key.src, mask.src},
                        {l3 + hdr::kIpv4DstOfs, key.dst, mask.dst}};
  for (const Addr& a : addrs) {
    const uint32_t m = GetBe32(a.mask.data());
    if (!m) continue;
    const uint32_t old = GetBe32(skb.pkt.data() + a.ofs);
    const uint32_t nv = Masked(old, GetBe32(a.key.data()), m);
    if (nv == old) continue;  // only a changed address is rewritten (:498, :506)
    std::array<uint8_t, 4> b;
    PutBe32(b.data(), nv);
    SetIpAddr(s, a.ofs, b);
  }
  if (mask.tos) Ipv4ChangeDsfield(nh, static_cast<uint8_t>(~mask.tos), key.tos);  // :512
  if (mask.ttl) {
    // set_ip_ttl (:467): csum_replace2 on the TTL's 16-bit word (TTL high).
    const uint8_t old = nh[hdr::kIpv4TtlOfs];
    const uint8_t nt = Masked(old, key.ttl, mask.ttl);
    CsumReplace2(nh + hdr::kIpv4CsumOfs, static_cast<uint16_t>(old << 8),
                 static_cast<uint16_t>(nt << 8));
    nh[hdr::kIpv4TtlOfs] = nt;
  }
  return 0;
}

int OvsSetIpv6(OvsSkb& s, const OvsKeyIpv6& key, const OvsKeyIpv6& mask, const KernelVersion& kv) {
  SkBuff& skb = s.skb;
  if (skb.pkt.l3_ofs == kNoOffset) return ovs_err::kInval;
  const size_t l3 = skb.pkt.l3_ofs;
  if (!Writable(skb, l3 + hdr::kIpv6Len)) return ovs_err::kNoMem;
  uint8_t* nh = skb.pkt.l3();
  std::array<uint8_t, 16> masked;
  if (MaskIpv6(nh + hdr::kIpv6SrcOfs, key.src, mask.src, masked))
    SetIpv6Addr(s, nh + hdr::kIpv6SrcOfs, masked, true, kv);
  if (MaskIpv6(nh + hdr::kIpv6DstOfs, key.dst, mask.dst, masked)) {
    const uint8_t next = nh[hdr::kIpv6NextOfs];
    const bool ext = next == 0 || next == 43 || next == 44 || next == 51 || next == 59 ||
                     next == 60;  // ipv6_ext_hdr
    const bool recalc = !ext || !ActiveRoutingHeader(skb.pkt.data(), skb.len(), l3);
    SetIpv6Addr(s, nh + hdr::kIpv6DstOfs, masked, recalc, kv);
  }
  if (mask.tclass) {
    // set_ipv6_dsfield (:428): skb->csum follows the first 16-bit word.
    const uint8_t old_tc = static_cast<uint8_t>(GetBe16(nh) >> 4);
    const uint8_t tc = Masked(old_tc, key.tclass, mask.tclass);
    uint8_t before[2] = {nh[0], nh[1]};
    Ipv6ChangeDsfield(nh, static_cast<uint8_t>(~mask.tclass), tc);
    RcsumReplace(skb, before, nh, 2);  // :435
  }
  if (mask.label) {
    // set_ipv6_fl (:441): 24 bits (the traffic class's low nibble kept, as
    // the mask never covers it) and skb->csum over the first 32-bit word.
    uint8_t before[4] = {nh[0], nh[1], nh[2], nh[3]};
    const uint32_t ofl = (uint32_t{nh[1]} << 16) | (uint32_t{nh[2]} << 8) | nh[3];
    const uint32_t fl = Masked(ofl, key.label & 0xfffff, mask.label & 0xfffff);
    nh[1] = static_cast<uint8_t>(fl >> 16);
    nh[2] = static_cast<uint8_t>(fl >> 8);
    nh[3] = static_cast<uint8_t>(fl);
    RcsumReplace(skb, before, nh, 4);  // :454
  }
  if (mask.hlimit) {
    // set_ipv6_ttl (:457): the hop limit is the low byte of bytes 6..7.
    uint8_t before[2] = {nh[6], nh[7]};
    nh[hdr::kIpv6HlimOfs] = Masked(nh[hdr::kIpv6HlimOfs], key.hlimit, mask.hlimit);
    RcsumReplace(skb, before, nh + 6, 2);  // :462
  }
  return 0;
}

int OvsSetTcp(OvsSkb& s, const OvsKeyPorts& key, const OvsKeyPorts& mask) {
  SkBuff& skb = s.skb;
  if (skb.pkt.l4_ofs == kNoOffset) return ovs_err::kInval;
  const size_t l4 = skb.pkt.l4_ofs;
  if (!Writable(skb, l4 + hdr::kTcpMinLen)) return ovs_err::kNoMem;
  const uint8_t* th = skb.pkt.data() + l4;
  const uint16_t src = Masked(GetBe16(th + hdr::kTcpSrcOfs), key.src, mask.src);
  if (src != GetBe16(th + hdr::kTcpSrcOfs))
    SetTpPort(s, l4 + hdr::kTcpSrcOfs, src, l4 + hdr::kTcpCsumOfs);
  const uint16_t dst = Masked(GetBe16(th + hdr::kTcpDstOfs), key.dst, mask.dst);
  if (dst != GetBe16(th + hdr::kTcpDstOfs))
    SetTpPort(s, l4 + hdr::kTcpDstOfs, dst, l4 + hdr::kTcpCsumOfs);
  s.hash_valid = false;
  return 0;
}

int OvsSetUdp(OvsSkb& s, const OvsKeyPorts& key, const OvsKeyPorts& mask) {
  SkBuff& skb = s.skb;
  if (skb.pkt.l4_ofs == kNoOffset) return ovs_err::kInval;
  const size_t l4 = skb.pkt.l4_ofs;
  if (!Writable(skb, l4 + hdr::kUdpLen)) return ovs_err::kNoMem;
  uint8_t* uh = skb.pkt.data() + l4;
  const uint16_t src = Masked(GetBe16(uh), key.src, mask.src);
  const uint16_t dst = Masked(GetBe16(uh + 2), key.dst, mask.dst);
  uint8_t* check = uh + hdr::kUdpCsumOfs;
  if (GetBe16(check) && skb.ip_summed != IpSummed::kPartial) {  // :688
    if (src != GetBe16(uh)) SetTpPort(s, l4, src, l4 + hdr::kUdpCsumOfs);
    if (dst != GetBe16(uh + 2)) SetTpPort(s, l4 + 2, dst, l4 + hdr::kUdpCsumOfs);
    if (!GetBe16(check)) PutBe16(check, 0xffff);  // :699
  } else {
    PutBe16(uh, src);
    PutBe16(uh + 2, dst);
    OvsCtClearSkb(s);
  }
  s.hash_valid = false;
  return 0;
}

int OvsSetSctp(OvsSkb& s, const OvsKeyPorts& key, const OvsKeyPorts& mask) {
  SkBuff& skb = s.skb;
  if (skb.pkt.l4_ofs == kNoOffset) return ovs_err::kInval;
  const size_t l4 = skb.pkt.l4_ofs;
  if (!Writable(skb, l4 + hdr::kSctpLen)) return ovs_err::kNoMem;
  uint8_t* sh = skb.pkt.data() + l4;
  const size_t n = skb.len() - l4;
  // sctp_compute_cksum: CRC32c over the segment with the field taken as 0,
  // stored little-endian; the XOR below works bytewise, so the byte order
  // only has to be the same for the three values.
  auto crc_bytes = [&](uint8_t out[4]) {
    uint8_t saved[4];
    std::memcpy(saved, sh + hdr::kSctpCsumOfs, 4);
    std::memset(sh + hdr::kSctpCsumOfs, 0, 4);
    work::Csum(n);
    const uint32_t crc = csum::Crc32c(sh, n);
    std::memcpy(sh + hdr::kSctpCsumOfs, saved, 4);
    for (int i = 0; i < 4; i++) out[i] = static_cast<uint8_t>(crc >> (8 * i));
  };
  uint8_t old_correct[4], new_correct[4];
  crc_bytes(old_correct);
  PutBe16(sh, Masked(GetBe16(sh), key.src, mask.src));
  PutBe16(sh + 2, Masked(GetBe16(sh + 2), key.dst, mask.dst));
  crc_bytes(new_correct);
  for (int i = 0; i < 4; i++) sh[hdr::kSctpCsumOfs + i] ^= old_correct[i] ^ new_correct[i];
  ClearHashAndCt(s);
  return 0;
}

int OvsDecTtl(OvsSkb& s) {
  SkBuff& skb = s.skb;
  if (skb.len() < hdr::kEthLen || skb.pkt.l3_ofs == kNoOffset) return 0;
  const uint16_t protocol = GetBe16(skb.pkt.data() + 12);
  const size_t l3 = skb.pkt.l3_ofs;
  if (protocol == hdr::kEthTypeIpv6) {
    if (!Writable(skb, l3 + hdr::kIpv6Len)) return ovs_err::kNoMem;
    uint8_t& hl = skb.pkt.data()[l3 + hdr::kIpv6HlimOfs];
    if (hl <= 1) return ovs_err::kHostUnreach;
    --hl;
  } else if (protocol == hdr::kEthTypeIpv4) {
    if (!Writable(skb, l3 + hdr::kIpv4MinLen)) return ovs_err::kNoMem;
    uint8_t* nh = skb.pkt.data() + l3;
    const uint8_t old = nh[hdr::kIpv4TtlOfs];
    if (old <= 1) return ovs_err::kHostUnreach;
    nh[hdr::kIpv4TtlOfs] = static_cast<uint8_t>(old - 1);
    CsumReplace2(nh + hdr::kIpv4CsumOfs, static_cast<uint16_t>(old << 8),
                 static_cast<uint16_t>((old - 1) << 8));  // :1269
  }
  return 0;
}

}  // namespace offlab::kernel
