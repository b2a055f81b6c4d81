// The IP layer's receive checks (ip_rcv_core, ip6_rcv_core) and
// eth_type_trans's packet type.
//
// torvalds/linux v6.18 net/ipv4/ip_input.c ip_rcv_core(): PACKET_OTHERHOST
// dropped first; IPSTATS_MIB_IN (InReceives + InOctets) counted; header
// shorter than 20 bytes, ihl < 5 or version != 4 -> inhdr_error; the ECN
// class counted (NOECT + (tos & 3)); ip_fast_csum failure -> csum_error
// (IpExt:InCsumErrors, then Ip:InHdrErrors); tot_len beyond the frame ->
// IpExt:InTruncatedPkts; tot_len < ihl*4 -> Ip:InHdrErrors; then
// pskb_trim_rcsum to tot_len.
// net/ipv6/ip6_input.c ip6_rcv_core(): the same order with Ip6InReceives,
// Ip6InOctets, version != 6 / multicast source -> Ip6InHdrErrors,
// payload_len + 40 beyond the frame -> Ip6InTruncatedPkts, then the trim.
// The lab kernel confirmed the IPv4 counters (a frame with a bad header
// checksum bumps Ip:InHdrErrors and IpExt:InCsumErrors).
#include <algorithm>

#include "count_internal.h"
#include "offlab/linux/stack_rx.h"
#include "offlab/linux/stack_rx_csum.h"
#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/net/headers.h"

namespace offlab::kernel {

namespace {

// IPSTATS_MIB_NOECTPKTS + (tos & INET_ECN_MASK): NOECT, ECT(1), ECT(0), CE.
const char* EcnField(uint8_t tos) {
  static constexpr const char* kNames[4] = {"InNoECTPkts", "InECT1Pkts", "InECT0Pkts", "InCEPkts"};
  return kNames[tos & 3];
}

void CountIp(Counters* c, bool v6, const char* field, uint64_t n = 1) {
  CountJoined(c, v6 ? "Ip6" : "Ip:", field, n);
}

// Fields of the IPv4 MIB that /proc/net/netstat shows under IpExt.
void CountIpExt(Counters* c, bool v6, const char* field, uint64_t n = 1) {
  CountJoined(c, v6 ? "Ip6" : "IpExt:", field, n);
}

RxVerdict Ipv4Rcv(SkBuff& skb, size_t l3, KernelVersion kv, Counters* c, IpRcvInfo* info) {
  const size_t room = skb.len() - l3;
  CountIp(c, false, "InReceives");
  CountIpExt(c, false, "InOctets", room);
  const uint8_t* ip = skb.pkt.data() + l3;
  auto hdr_error = [&](const char* why) {
    CountIp(c, false, "InHdrErrors");
    return RxVerdict::Drop(why);
  };
  if (room < hdr::kIpv4MinLen) return hdr_error("IP_INHDR");
  const size_t ihl = size_t{ip[0] & 0x0fu} * 4;
  if (ihl < hdr::kIpv4MinLen || (ip[0] >> 4) != 4) return hdr_error("IP_INHDR");
  CountIpExt(c, false, EcnField(ip[hdr::kIpv4TosOfs]));
  if (room < ihl) return hdr_error("IP_INHDR");
  if (csum::Fold(csum::Partial(ip, ihl)) != 0xffff) {
    CountIpExt(c, false, "InCsumErrors");
    CountIp(c, false, "InHdrErrors");
    return RxVerdict::Drop("IP_CSUM");
  }
  const size_t tot_len = GetBe16(ip + hdr::kIpv4TotLenOfs);
  if (tot_len > room) {
    CountIpExt(c, false, "InTruncatedPkts");
    return RxVerdict::Drop("PKT_TOO_SMALL");
  }
  if (tot_len < ihl) return hdr_error("IP_INHDR");
  info->ipv6 = false;
  info->proto = ip[hdr::kIpv4ProtoOfs];
  info->tos = ip[hdr::kIpv4TosOfs];
  const uint16_t frag = GetBe16(ip + hdr::kIpv4FragOfs);
  info->fragment = (frag & (hdr::kIpv4MoreFragments | hdr::kIpv4FragOffsetMask)) != 0;
  TrimRcsum(skb, l3, tot_len, kv);
  info->l4_ofs = static_cast<uint16_t>(l3 + ihl);
  info->l4_len = static_cast<uint32_t>(tot_len - ihl);
  return RxVerdict::Deliver();
}

RxVerdict Ipv6Rcv(SkBuff& skb, size_t l3, KernelVersion kv, Counters* c, IpRcvInfo* info) {
  const size_t room = skb.len() - l3;
  CountIp(c, true, "InReceives");
  CountIp(c, true, "InOctets", room);
  auto hdr_error = [&](const char* why) {
    CountIp(c, true, "InHdrErrors");
    return RxVerdict::Drop(why);
  };
  if (room < hdr::kIpv6Len) return hdr_error("NOT_SPECIFIED");
  const uint8_t* ip = skb.pkt.data() + l3;
  if ((ip[0] >> 4) != 6) return hdr_error("UNHANDLED_PROTO");
  const uint8_t tclass = static_cast<uint8_t>(((ip[0] & 0x0f) << 4) | (ip[1] >> 4));
  CountIp(c, true, EcnField(tclass));
  // A multicast source address is never valid (RFC 4291 2.7).
  if (ip[hdr::kIpv6SrcOfs] == 0xff) return hdr_error("NOT_SPECIFIED");
  const size_t plen = GetBe16(ip + hdr::kIpv6PlenOfs);
  const uint8_t next = ip[hdr::kIpv6NextOfs];
  // A zero payload length with a hop-by-hop header is a jumbogram, whose
  // length the hop-by-hop option carries: not modelled, left untrimmed.
  if (plen != 0 || next != hdr::kProtoHopByHop) {
    if (plen + hdr::kIpv6Len > room) {
      CountIp(c, true, "InTruncatedPkts");
      return RxVerdict::Drop("PKT_TOO_SMALL");
    }
    TrimRcsum(skb, l3, plen + hdr::kIpv6Len, kv);
  }
  info->ipv6 = true;
  info->proto = next;
  info->tos = tclass;
  info->fragment = next == hdr::kProtoFragment;
  info->l4_ofs = static_cast<uint16_t>(l3 + hdr::kIpv6Len);
  info->l4_len = static_cast<uint32_t>(skb.len() - info->l4_ofs);
  return RxVerdict::Deliver();
}

}  // namespace

const char* PktTypeName(PktType t) {
  switch (t) {
    case PktType::kHost:
      return "host";
    case PktType::kBroadcast:
      return "broadcast";
    case PktType::kMulticast:
      return "multicast";
    case PktType::kOtherHost:
      return "otherhost";
  }
  return "?";
}

PktType EthPktType(const SkBuff& skb, const std::array<uint8_t, 6>& dev_mac) {
  if (skb.len() < hdr::kEthLen) return PktType::kOtherHost;
  const uint8_t* d = skb.pkt.data();
  if (d[0] & 1) {
    const bool bcast = std::all_of(d, d + 6, [](uint8_t b) { return b == 0xff; });
    return bcast ? PktType::kBroadcast : PktType::kMulticast;
  }
  return std::equal(d, d + 6, dev_mac.begin()) ? PktType::kHost : PktType::kOtherHost;
}

RxVerdict IpRcvCore(SkBuff& skb, uint16_t l3_ofs, KernelVersion kv, Counters* c, IpRcvInfo* info) {
  IpRcvInfo local;
  if (!info) info = &local;
  *info = IpRcvInfo{};
  info->l3_ofs = l3_ofs;
  if (l3_ofs >= skb.len()) {
    CountIp(c, false, "InReceives");
    CountIp(c, false, "InHdrErrors");
    return RxVerdict::Drop("IP_INHDR");
  }
  const bool v6 = (skb.pkt.data()[l3_ofs] >> 4) == 6;
  RxVerdict v = v6 ? Ipv6Rcv(skb, l3_ofs, kv, c, info) : Ipv4Rcv(skb, l3_ofs, kv, c, info);
  if (v.delivered) {
    skb.pkt.l3_ofs = l3_ofs;
    skb.pkt.l4_ofs = info->l4_ofs;
  }
  return v;
}

}  // namespace offlab::kernel
