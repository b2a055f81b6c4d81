// UDP and TCP receive checks and the whole local receive (StackRcv).
//
// UDP, torvalds/linux v6.18 net/ipv4/udp.c __udp4_lib_rcv(): no room for
// the header -> drop (Udp:InErrors); uh->len beyond the packet or below 8 ->
// short_packet (Udp:InErrors); pskb_trim_rcsum to uh->len; udp4_csum_init
// (skb_checksum_init_zero_check: a zero checksum is accepted) failing ->
// csum_error (Udp:InCsumErrors then Udp:InErrors); no socket ->
// udp_lib_checksum_complete, then Udp:NoPorts. udp_unicast_rcv_skb runs
// skb_checksum_try_convert for convert_csum sockets with a non-zero check;
// udp_queue_rcv_one_skb verifies the checksum before an encap socket's
// encap_rcv and counts Udp:InDatagrams there; a plain socket verifies it at
// recvmsg (skb_copy_and_csum_datagram_msg -> csum_copy_err).
// net/ipv6/udp.c __udp6_lib_rcv(): the same with Udp6* counters, except a
// zero checksum, accepted by udp6_csum_init, is refused once the socket is
// known unless it allows it (udp_get_no_check6_rx), and always without a
// socket: report_csum_error -> Udp6InCsumErrors + Udp6InErrors.
// The lab kernel showed these counts for VXLAN (bad checksum, IPv6 zero
// checksum without udp6zerocsumrx).
//
// TCP, net/ipv4/tcp_ipv4.c tcp_v4_rcv() (tcp_v6_rcv alike): Tcp:InSegs
// counted even for bad segments; doff < 5 -> bad_packet (Tcp:InErrs);
// skb_checksum_init (no zero allowance) -> csum_error (Tcp:InCsumErrors then
// Tcp:InErrs); every path that keeps the segment runs tcp_checksum_complete.
#include "count_internal.h"
#include "offlab/linux/skb_csum.h"
#include "offlab/linux/stack_rx.h"
#include "offlab/linux/stack_rx_csum.h"
#include "offlab/net/bytes.h"
#include "offlab/net/headers.h"

namespace offlab::kernel {

namespace {

void CountUdp(Counters* c, bool v6, const char* field) {
  // UdpMibName's names, joined without a new string.
  CountJoined(c, v6 ? "Udp6" : "Udp:", field);
}

RxVerdict UdpCsumError(Counters* c, bool v6) {
  CountUdp(c, v6, "InCsumErrors");
  CountUdp(c, v6, "InErrors");
  return RxVerdict::Drop("UDP_CSUM");
}

void CountTcp(Counters* c, const char* field) { CountJoined(c, "Tcp:", field); }

}  // namespace

std::string UdpMibName(bool ipv6, const char* field) {
  return ipv6 ? std::string("Udp6") + field : std::string("Udp:") + field;
}

RxVerdict UdpRcv(SkBuff& skb, const IpRcvInfo& ip, const UdpSocketOpts* sock, KernelVersion kv,
                 Counters* c) {
  const bool v6 = ip.ipv6;
  const size_t l4 = ip.l4_ofs;
  if (l4 > skb.len() || skb.len() - l4 < hdr::kUdpLen) {
    // "goto drop; /* No space for header. */" with drop_reason still
    // SKB_DROP_REASON_NOT_SPECIFIED (v6.18 net/ipv4/udp.c __udp4_lib_rcv,
    // net/ipv6/udp.c __udp6_lib_rcv); PKT_TOO_SMALL is short_packet's.
    CountUdp(c, v6, "InErrors");
    return RxVerdict::Drop("NOT_SPECIFIED");
  }
  // The IP header was pulled without touching the sum (its own checksum
  // makes it sum to zero for IPv4; ip6 pulls with rcsum): keep COMPLETE's
  // start at the transport header.
  PullRcsum(skb, ip.l3_ofs, l4 - ip.l3_ofs, kv);
  size_t ulen = GetBe16(skb.pkt.data() + l4 + hdr::kUdpLenOfs);
  const size_t room = skb.len() - l4;
  // IPv6 jumbograms carry 0 here; the real length is the packet's.
  if (v6 && ulen == 0) ulen = room;
  if (ulen > room || ulen < hdr::kUdpLen) {
    CountUdp(c, v6, "InErrors");
    return RxVerdict::Drop("PKT_TOO_SMALL");
  }
  TrimRcsum(skb, l4, ulen, kv);
  const uint16_t check = GetBe16(skb.pkt.data() + l4 + hdr::kUdpCsumOfs);
  const uint64_t pseudo =
      PseudoHeaderSum(skb, ip.l3_ofs, hdr::kProtoUdp, static_cast<uint32_t>(ulen));
  // udp4_csum_init / udp6_csum_init: zero is fine at this point for both.
  const CsumValidation init = SkbChecksumValidate(skb, l4, pseudo, false, true, check, kv);
  if (init.error) return UdpCsumError(c, v6);

  if (!sock) {
    if (v6 && check == 0) return UdpCsumError(c, v6);
    if (SkbChecksumCompleteAt(skb, l4, pseudo)) return UdpCsumError(c, v6);
    CountUdp(c, v6, "NoPorts");
    return RxVerdict::Drop("NO_SOCKET");
  }
  if (v6 && check == 0 && !sock->no_check6_rx) return UdpCsumError(c, v6);
  // udp_unicast_rcv_skb / udp6_unicast_rcv_skb. The conversion arrived with
  // the UDP tunnel sockets' convert_csum (Tom Herbert, v3.18; RHEL 7 has it).
  if (sock->convert_csum && check != 0 && (kv.AtLeast(3, 18) || kv.rhel7))
    SkbChecksumTryConvert(skb, l4, pseudo);
  // Encap sockets verify before encap_rcv; plain ones when the datagram is
  // read. The counts are the same either way.
  if (SkbChecksumCompleteAt(skb, l4, pseudo)) return UdpCsumError(c, v6);
  CountUdp(c, v6, "InDatagrams");
  return RxVerdict::Deliver();
}

RxVerdict TcpRcv(SkBuff& skb, const IpRcvInfo& ip, KernelVersion kv, Counters* c) {
  CountTcp(c, "InSegs");
  const size_t l4 = ip.l4_ofs;
  if (l4 > skb.len() || skb.len() - l4 < hdr::kTcpMinLen) return RxVerdict::Drop("NOT_SPECIFIED");
  const uint8_t* th = skb.pkt.data() + l4;
  const size_t doff = size_t{static_cast<uint8_t>(th[hdr::kTcpOffFlagsOfs] >> 4)} * 4;
  if (doff < hdr::kTcpMinLen) {
    CountTcp(c, "InErrs");
    return RxVerdict::Drop("PKT_TOO_SMALL");
  }
  if (skb.len() - l4 < doff) return RxVerdict::Drop("NOT_SPECIFIED");
  PullRcsum(skb, ip.l3_ofs, l4 - ip.l3_ofs, kv);
  const uint64_t pseudo =
      PseudoHeaderSum(skb, ip.l3_ofs, hdr::kProtoTcp, static_cast<uint32_t>(skb.len() - l4));
  const CsumValidation init = SkbChecksumValidate(skb, l4, pseudo, false, false, 1, kv);
  if (init.error || SkbChecksumCompleteAt(skb, l4, pseudo)) {
    CountTcp(c, "InCsumErrors");
    CountTcp(c, "InErrs");
    return RxVerdict::Drop("TCP_CSUM");
  }
  return RxVerdict::Deliver();
}

StackRxResult StackRcv(SkBuff& skb, const StackRxConfig& cfg, KernelVersion kv, Counters* c) {
  StackRxResult r;
  if (skb.len() < hdr::kEthLen) {
    r.verdict = RxVerdict::Drop("PKT_TOO_SMALL");
    return r;
  }
  r.pkt_type = cfg.dev_mac ? EthPktType(skb, *cfg.dev_mac) : PktType::kHost;
  // ip_rcv_core / ipv6_rcv drop other hosts' frames before counting them.
  if (r.pkt_type == PktType::kOtherHost) {
    r.verdict = RxVerdict::Drop("OTHERHOST");
    return r;
  }
  const uint16_t et = GetBe16(skb.pkt.data() + 12);
  if (et != hdr::kEthTypeIpv4 && et != hdr::kEthTypeIpv6) {
    r.verdict = RxVerdict::Deliver();
    return r;
  }
  // eth_type_trans pulled the Ethernet header with skb_postpull_rcsum;
  // drivers start a COMPLETE sum at the network header already.
  size_t data = hdr::kEthLen;
  if (skb.ip_summed == IpSummed::kComplete && skb.csum_from < data)
    data = PullRcsum(skb, skb.csum_from, data - skb.csum_from, kv);
  r.verdict = IpRcvCore(skb, hdr::kEthLen, kv, c, &r.ip);
  if (!r.verdict.delivered) return r;
  if (r.ip.fragment) {
    r.verdict = RxVerdict::Drop("FRAG_REASM (not modelled)");
    return r;
  }
  if (c) c->Inc(r.ip.ipv6 ? "Ip6InDelivers" : "Ip:InDelivers");
  if (r.ip.proto == hdr::kProtoUdp) {
    const uint16_t dport = size_t{r.ip.l4_ofs} + 4 <= skb.len()
                               ? GetBe16(skb.pkt.data() + r.ip.l4_ofs + hdr::kTcpDstOfs)
                               : 0;
    UdpSocketOpts sock;
    sock.no_check6_rx = cfg.udp_no_check6_rx;
    bool bound = false;
    for (uint16_t p : cfg.udp_ports) bound = bound || p == dport;
    r.verdict = UdpRcv(skb, r.ip, bound ? &sock : nullptr, kv, c);
  } else if (r.ip.proto == hdr::kProtoTcp) {
    r.verdict = TcpRcv(skb, r.ip, kv, c);
  }
  return r;
}

}  // namespace offlab::kernel
