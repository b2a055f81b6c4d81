#include "offlab/ovs/complete.h"

#include <algorithm>

#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/net/error.h"
#include "offlab/net/headers.h"

namespace offlab {

int UpperProtocol(const Packet& p, uint16_t l3_ofs, uint16_t l4_ofs) {
  if (l3_ofs == kNoOffset || l4_ofs == kNoOffset || l4_ofs > p.size()) return -1;
  // Reads the IP header and extension headers before l4_ofs (8 bytes each at most).
  const uint8_t* d = p.Linear(std::max<size_t>(l3_ofs + hdr::kIpv6Len, l4_ofs + 8u));
  if (p.SizeFrom(l3_ofs) < 1) return -1;
  if ((d[l3_ofs] >> 4) == 4) {
    if (p.SizeFrom(l3_ofs) < hdr::kIpv4MinLen) return -1;
    return d[l3_ofs + hdr::kIpv4ProtoOfs];
  }
  if (p.SizeFrom(l3_ofs) < hdr::kIpv6Len) return -1;
  uint8_t nh = d[l3_ofs + hdr::kIpv6NextOfs];
  size_t q = l3_ofs + hdr::kIpv6Len;
  while (q < l4_ofs && q + 8 <= p.size()) {
    if (nh == hdr::kProtoFragment) {
      nh = d[q];
      q += 8;
    } else if (nh == hdr::kProtoHopByHop || nh == hdr::kProtoRouting || nh == hdr::kProtoDestOpts) {
      uint8_t next = d[q];
      q += (d[q + 1] + 1u) * 8u;
      nh = next;
    } else if (nh == 51) {  // AH, skipped by the parse too: 32-bit words minus 2 (RFC 4302)
      uint8_t next = d[q];
      q += (d[q + 1] + 2u) * 4u;
      nh = next;
    } else {
      break;
    }
  }
  return q == l4_ofs ? nh : -1;
}

size_t L4Length(const Packet& p, uint16_t l3_ofs, uint16_t l4_ofs) {
  if (l3_ofs == kNoOffset || l4_ofs == kNoOffset || l4_ofs < l3_ofs || l4_ofs > p.size()) return 0;
  const uint8_t* ip = p.Linear(l3_ofs + hdr::kIpv6PlenOfs + 2u) + l3_ofs;
  size_t avail = p.size() - l4_ofs;
  size_t len;
  if ((ip[0] >> 4) == 4) {
    size_t tot = GetBe16(ip + hdr::kIpv4TotLenOfs);
    size_t hl = l4_ofs - l3_ofs;
    len = tot > hl ? tot - hl : 0;
  } else {
    size_t end = l3_ofs + hdr::kIpv6Len + GetBe16(ip + hdr::kIpv6PlenOfs);
    len = end > l4_ofs ? end - l4_ofs : 0;
  }
  return len < avail ? len : avail;
}

uint64_t PseudoHeaderSum(const Packet& p, uint16_t l3_ofs, uint8_t proto, uint32_t l4_len) {
  const uint8_t* ip = p.Linear(l3_ofs + 1u) + l3_ofs;
  if ((ip[0] >> 4) == 4) {
    ip = p.Linear(l3_ofs + hdr::kIpv4MinLen) + l3_ofs;
  } else {
    ip = p.Linear(l3_ofs + hdr::kIpv6Len) + l3_ofs;
  }
  if ((ip[0] >> 4) == 4) {
    return csum::PseudoIpv4(ip + hdr::kIpv4SrcOfs, ip + hdr::kIpv4DstOfs, proto,
                            static_cast<uint16_t>(l4_len));
  }
  return csum::PseudoIpv6(ip + hdr::kIpv6SrcOfs, ip + hdr::kIpv6DstOfs, proto, l4_len);
}

void CompleteIpCsum(Packet& p, Level level) {
  uint16_t l3 = level == Level::kOuter ? p.l3_ofs : p.inner_l3_ofs;
  if (l3 != kNoOffset && p.SizeFrom(l3) >= hdr::kIpv4MinLen) {
    uint8_t* ip = p.Linear(l3 + 1u) + l3;
    size_t ihl = (ip[0] & 0x0f) * 4u;
    if ((ip[0] >> 4) == 4 && ihl >= hdr::kIpv4MinLen && ihl <= p.SizeFrom(l3)) {
      ip = p.Linear(l3 + ihl) + l3;
      PutBe16(ip + hdr::kIpv4CsumOfs, 0);
      PutBe16(ip + hdr::kIpv4CsumOfs, csum::Compute(ip, ihl));
    }
  }
  p.offloads.set_ip(CsumStatus::kGood, level);
}

void CompleteL4Csum(Packet& p, Level level, L4Proto proto) {
  uint16_t l3 = level == Level::kOuter ? p.l3_ofs : p.inner_l3_ofs;
  uint16_t l4 = level == Level::kOuter ? p.l4_ofs : p.inner_l4_ofs;
  if (l3 == kNoOffset || l4 == kNoOffset) {
    throw Error(std::string("checksum completion: ") +
                (level == Level::kOuter ? "outer" : "inner") + " L4 " + ToString(proto) +
                " partial but the packet has no such header");
  }
  size_t len = L4Length(p, l3, l4);
  // The header's checksum field is written in the head; a shared payload is
  // summed where it lies (PartialSum), not copied in.
  switch (proto) {
    case L4Proto::kTcp: {
      if (len < hdr::kTcpMinLen) throw Error("checksum completion: TCP header truncated");
      uint64_t s = PseudoHeaderSum(p, l3, hdr::kProtoTcp, static_cast<uint32_t>(len));
      uint8_t* t = p.Linear(l4 + hdr::kTcpMinLen) + l4;
      PutBe16(t + hdr::kTcpCsumOfs, 0);
      PutBe16(t + hdr::kTcpCsumOfs, csum::Finish(PartialSum(p, l4, len, s)));
      break;
    }
    case L4Proto::kUdp: {
      if (len < hdr::kUdpLen) throw Error("checksum completion: UDP header truncated");
      uint64_t s = PseudoHeaderSum(p, l3, hdr::kProtoUdp, static_cast<uint32_t>(len));
      uint8_t* t = p.Linear(l4 + hdr::kUdpLen) + l4;
      if (GetBe16(t + hdr::kUdpCsumOfs) == 0) break;
      PutBe16(t + hdr::kUdpCsumOfs, 0);
      uint16_t c = csum::Finish(PartialSum(p, l4, len, s));
      PutBe16(t + hdr::kUdpCsumOfs, c ? c : 0xffff);
      break;
    }
    case L4Proto::kSctp: {
      if (len < hdr::kSctpLen) throw Error("checksum completion: SCTP header truncated");
      uint8_t* t = p.data() + l4;
      PutBe32(t + hdr::kSctpCsumOfs, 0);
      // RFC 9260 appendix A: the CRC goes on the wire least significant byte first.
      PutBe32(t + hdr::kSctpCsumOfs, __builtin_bswap32(csum::Crc32c(t, len)));
      break;
    }
    case L4Proto::kNone:
      // OVS asserts here (the SCTP fallback); refuse rather than guess.
      throw Error("checksum completion: L4 partial with unknown protocol");
  }
  p.offloads.set_l4(CsumStatus::kGood, level);
}

}  // namespace offlab
