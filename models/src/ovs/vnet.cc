#include "offlab/ovs/vnet.h"

#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/net/headers.h"
#include "offlab/ovs/complete.h"
#include "offlab/ovs/faults.h"

namespace offlab {

namespace {

size_t CsumFieldOffset(int proto) {
  switch (proto) {
    case hdr::kProtoTcp:
      return hdr::kTcpCsumOfs;
    case hdr::kProtoUdp:
      return hdr::kUdpCsumOfs;
    case hdr::kProtoSctp:
      return hdr::kSctpCsumOfs;
    default:
      return SIZE_MAX;
  }
}

}  // namespace

bool VnetReceive(Packet& p, const VnetHdr& h, Counters* counters) {
  if (h.flags & VnetHdr::kNeedsCsum) {
    const int proto = UpperProtocol(p, p.l3_ofs, p.l4_ofs);
    if (p.l4_ofs != kNoOffset && h.csum_start == p.l4_ofs &&
        h.csum_offset == CsumFieldOffset(proto)) {
      p.offloads.set_l4(CsumStatus::kPartial);
    } else if (size_t{h.csum_start} + h.csum_offset + 2 > p.size()) {
      Count(counters, "netdev_linux_invalid_l4_csum");
      return false;
    } else {
      Count(counters, "netdev_linux_unknown_l4_csum");
      // csum() of the bytes from csum_start, stored as it comes: OVS does
      // not turn a 0 into 0xffff here (d6a632a9b lib/netdev-linux.c
      // netdev_linux_parse_vnet_hdr, "*csum_l4 = csum(l4, ...)").
      uint8_t* start = p.data() + h.csum_start;
      PutBe16(start + h.csum_offset, csum::Finish(csum::Partial(start, p.size() - h.csum_start)));
      if (proto == hdr::kProtoTcp || proto == hdr::kProtoUdp || proto == hdr::kProtoSctp) {
        p.offloads.set_l4(CsumStatus::kGood);
      }
    }
  }
  // netdev_linux_parse_vnet_hdr: only TCP GSO is supported; UFO and unknown
  // types are ENOTSUP and the receive loop drops the packet. The ECN bit
  // (VIRTIO_NET_HDR_GSO_ECN) qualifies the type.
  const uint8_t gso = h.gso_type & static_cast<uint8_t>(~VnetHdr::kGsoEcn);
  if (gso == VnetHdr::kGsoTcpv4 || gso == VnetHdr::kGsoTcpv6) {
    p.tso_segsz = h.gso_size;
  } else if (gso != VnetHdr::kGsoNone) {
    return false;
  }
  return true;
}

VnetHdr VnetTransmit(Packet& p) {
  VnetHdr h;
  const Offloads& o = p.offloads;
  const bool tunnelled = o.tunnelled();
  const Level level = tunnelled ? Level::kInner : Level::kOuter;
  const uint16_t l3 = tunnelled ? p.inner_l3_ofs : p.l3_ofs;
  const uint16_t l4 = tunnelled ? p.inner_l4_ofs : p.l4_ofs;
  if (p.tso_segsz && l3 != kNoOffset) {
    h.gso_type = (p.data()[l3] >> 4) == 6 ? VnetHdr::kGsoTcpv6 : VnetHdr::kGsoTcpv4;
    h.gso_size = p.tso_segsz;
  }
  const bool good =
      o.l4() == CsumStatus::kGood && (!tunnelled || o.l4(Level::kInner) == CsumStatus::kGood);
  if (good) {
    h.flags = VnetHdr::kDataValid;
    return h;
  }
  const L4Proto proto = o.l4_proto(level);
  if (o.l4(level) != CsumStatus::kPartial || l3 == kNoOffset || l4 == kNoOffset ||
      (proto != L4Proto::kTcp && proto != L4Proto::kUdp)) {
    return h;
  }
  const uint8_t nw = proto == L4Proto::kTcp ? hdr::kProtoTcp : hdr::kProtoUdp;
  const size_t len = L4Length(p, l3, l4);
  uint64_t seed;
  const bool v6 = (p.data()[l3] >> 4) == 6;
  if (v6 && proto == L4Proto::kUdp && Faults::On(Fault::kVnetIpv6UdpWrongPseudoBase) &&
      p.SizeFrom(l4) >= hdr::kIpv6DstOfs + 16) {
    // The seeded bug: the pseudo-header addresses read from the L4 pointer.
    const uint8_t* base = p.data() + l4;
    seed = csum::PseudoIpv6(base + hdr::kIpv6SrcOfs, base + hdr::kIpv6DstOfs, nw,
                            static_cast<uint32_t>(len));
  } else {
    seed = PseudoHeaderSum(p, l3, nw, static_cast<uint32_t>(len));
  }
  h.flags = VnetHdr::kNeedsCsum;
  h.csum_start = l4;
  h.csum_offset = static_cast<uint16_t>(CsumFieldOffset(nw));
  PutBe16(p.data() + l4 + h.csum_offset, csum::Fold(seed));
  return h;
}

void VnetCompleteCsum(Packet& p, const VnetHdr& h) {
  if (!(h.flags & VnetHdr::kNeedsCsum) || size_t{h.csum_start} + h.csum_offset + 2 > p.size()) {
    return;
  }
  uint8_t* start = p.data() + h.csum_start;
  uint16_t c = csum::Finish(csum::Partial(start, p.size() - h.csum_start));
  // skb_checksum_help (net/core/dev.c): "csum_fold(csum) ?: CSUM_MANGLED_0",
  // whatever the protocol (UDP needs it: 0 would mean "no checksum").
  if (c == 0) c = 0xffff;
  PutBe16(start + h.csum_offset, c);
}

}  // namespace offlab
