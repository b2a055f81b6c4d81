#include "offlab/ovs/send_prepare.h"

#include <algorithm>

#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/net/error.h"
#include "offlab/net/headers.h"
#include "offlab/nic/caps.h"
#include "offlab/ovs/complete.h"

namespace offlab {

namespace {

// dp_packet_ip_set_header_csum writes the checksum only when IHL*4 is less
// than the L3 size (which excludes L2 padding, so it is bounded by the IPv4
// total length): a bare header keeps its field. The status is set good
// either way. Hardware completion (NicTransmit) has no such limit.
void SetIpHeaderCsum(Packet& p, Level level) {
  const uint16_t l3 = level == Level::kOuter ? p.l3_ofs : p.inner_l3_ofs;
  if (l3 != kNoOffset && p.SizeFrom(l3) >= hdr::kIpv4MinLen && (p.Linear(l3 + 1u)[l3] >> 4) == 4) {
    const uint8_t* ip = p.Linear(l3 + hdr::kIpv4MinLen) + l3;
    const size_t l3_size = std::min<size_t>(p.SizeFrom(l3), GetBe16(ip + hdr::kIpv4TotLenOfs));
    if ((ip[0] & 0x0f) * 4u < l3_size) {
      CompleteIpCsum(p, level);
      return;
    }
  }
  p.offloads.set_ip(CsumStatus::kGood, level);
}

void PrepareL4(Packet& p, Level level, uint32_t caps) {
  L4Proto proto = p.offloads.l4_proto(level);
  if (proto == L4Proto::kNone) {
    throw Error("send_prepare: L4 checksum partial but the L4 protocol is unknown");
  }
  if (!(caps & CapForProto(proto))) CompleteL4Csum(p, level, proto);
}

}  // namespace

bool UdpTunnelCsum(Packet& p) {
  Offloads& o = p.offloads;
  TunnelType t = o.tunnel();
  if (t != TunnelType::kVxlan && t != TunnelType::kGeneve) return false;
  if (!IsValid(o.l4(Level::kInner))) return false;
  if (p.l3_ofs == kNoOffset || p.l4_ofs == kNoOffset || p.inner_l3_ofs == kNoOffset ||
      p.inner_l4_ofs == kNoOffset || p.inner_l3_ofs <= p.l4_ofs ||
      p.inner_l4_ofs <= p.inner_l3_ofs || ((p.inner_l3_ofs - p.l4_ofs) & 1) ||
      ((p.inner_l4_ofs - p.inner_l3_ofs) & 1)) {
    return false;
  }
  // Headers only, up to the inner L4 header (its data offset or UDP checksum).
  const uint8_t* d = p.Linear(p.inner_l4_ofs + hdr::kTcpMinLen);
  const uint8_t* in_ip = d + p.inner_l3_ofs;
  const uint8_t* in_l4 = d + p.inner_l4_ofs;
  const size_t in_len = L4Length(p, p.inner_l3_ofs, p.inner_l4_ofs);
  const L4Proto in_proto = o.l4_proto(Level::kInner);
  size_t in_hdr;
  if (in_proto == L4Proto::kTcp) {
    if (in_len < hdr::kTcpMinLen) return false;
    in_hdr = (in_l4[hdr::kTcpOffFlagsOfs] >> 4) * 4u;
    if (in_hdr < hdr::kTcpMinLen || in_hdr >= in_len) return false;  // needs a payload
  } else if (in_proto == L4Proto::kUdp) {
    if (in_len < hdr::kUdpLen || GetBe16(in_l4 + hdr::kUdpCsumOfs) == 0) return false;
    in_hdr = hdr::kUdpLen;
  } else {
    return false;
  }
  const size_t payload = in_len - in_hdr;
  size_t delta = 0;  // bytes by which every length shrinks for one TSO segment
  if (p.tso_segsz) {
    if (payload % p.tso_segsz) {
      throw Error("udp tunnel checksum: TSO payload is not a multiple of tso_segsz");
    }
    delta = payload - p.tso_segsz;
  }

  const size_t udp_len = L4Length(p, p.l3_ofs, p.l4_ofs) - delta;
  uint64_t s = PseudoHeaderSum(p, p.l3_ofs, hdr::kProtoUdp, static_cast<uint32_t>(udp_len));
  // Outer UDP header with the length rebased and the checksum field as zero.
  const uint8_t* udp = d + p.l4_ofs;
  s += GetBe16(udp) + GetBe16(udp + 2) + udp_len;
  s = csum::Partial(udp + hdr::kUdpLen, p.inner_l3_ofs - p.l4_ofs - hdr::kUdpLen, s);

  const size_t in_ip_len = p.inner_l4_ofs - p.inner_l3_ofs;
  if ((in_ip[0] >> 4) == 6) {
    // The IPv6 header is summed with its payload length rebased.
    s += GetBe16(in_ip + hdr::kIpv6PlenOfs) - delta;
    s = csum::Partial(in_ip + hdr::kIpv6PlenOfs + 2, in_ip_len - hdr::kIpv6PlenOfs - 2,
                      csum::Partial(in_ip, hdr::kIpv6PlenOfs, s));
  } else if (!IsValid(o.ip(Level::kInner))) {
    s += GetBe16(in_ip + hdr::kIpv4TotLenOfs) - delta;
    s = csum::Partial(in_ip + hdr::kIpv4TotLenOfs + 2, in_ip_len - hdr::kIpv4TotLenOfs - 2,
                      csum::Partial(in_ip, hdr::kIpv4TotLenOfs, s));
  }
  // else: a valid IPv4 header (with its final checksum) sums to -0.
  const uint8_t nw = in_proto == L4Proto::kTcp ? hdr::kProtoTcp : hdr::kProtoUdp;
  uint64_t in_pseudo =
      PseudoHeaderSum(p, p.inner_l3_ofs, nw, static_cast<uint32_t>(in_len - delta));
  s += static_cast<uint16_t>(~csum::Fold(in_pseudo));

  uint16_t c = csum::Finish(s);
  PutBe16(p.head() + p.l4_ofs + hdr::kUdpCsumOfs, c ? c : 0xffff);
  o.set_l4(CsumStatus::kGood, Level::kOuter);
  return true;
}

void SendPrepare(Packet& p, uint32_t caps, bool udp_tunnel_csum) {
  Offloads& o = p.offloads;
  const bool inner_partial =
      o.ip(Level::kInner) == CsumStatus::kPartial || o.l4(Level::kInner) == CsumStatus::kPartial;
  if (!inner_partial) {
    const bool outer_partial = o.ip() == CsumStatus::kPartial || o.l4() == CsumStatus::kPartial;
    if (!outer_partial) return;
    // Only outer work left: the packet is finished as a plain one (9d9f17af8).
    if (o.tunnelled() && !p.tso_segsz) o.set_tunnel(TunnelType::kNone);
  }

  if (!o.tunnelled()) {
    if (o.ip() == CsumStatus::kPartial && !(caps & cap::kIpv4Cksum)) {
      SetIpHeaderCsum(p, Level::kOuter);
    }
    if (o.l4() == CsumStatus::kPartial) PrepareL4(p, Level::kOuter, caps);
    return;
  }

  const TunnelType t = o.tunnel();
  if ((t == TunnelType::kVxlan || t == TunnelType::kGeneve) && !(caps & cap::kOuterUdpCksum) &&
      o.l4() == CsumStatus::kPartial) {
    caps &= ~cap::kSctpCksum;
    // Without the payload-independent form the NIC cannot be left to finish
    // the inner checksums: the outer sum needs their final bytes.
    if (!udp_tunnel_csum || !UdpTunnelCsum(p))
      caps &= ~(cap::kTcpCksum | cap::kUdpCksum | cap::kIpv4Cksum);
  }
  if (o.ip(Level::kInner) == CsumStatus::kPartial && !(caps & cap::kIpv4Cksum)) {
    SetIpHeaderCsum(p, Level::kInner);
  }
  if (o.l4(Level::kInner) == CsumStatus::kPartial) PrepareL4(p, Level::kInner, caps);
  if (o.ip() == CsumStatus::kPartial && !(caps & cap::kOuterIpCksum)) {
    SetIpHeaderCsum(p, Level::kOuter);
  }
  if (o.l4() == CsumStatus::kPartial && !(caps & cap::kOuterUdpCksum)) {
    CompleteL4Csum(p, Level::kOuter, L4Proto::kUdp);
  }
}

}  // namespace offlab
