#include "offlab/linux/stack_rx_csum.h"
#include "offlab/linux/udp_tunnel.h"
#include "offlab/net/bytes.h"
#include "offlab/net/headers.h"

namespace offlab::kernel {

std::string UdpTunnelSockRcv(SkBuff& skb, bool ipv6, uint16_t dstport, bool no_check6_rx,
                             KernelVersion kv, Counters* c, IpRcvInfo* ip) {
  if (skb.len() < hdr::kEthLen) return "PKT_TOO_SMALL";
  if (skb.ip_summed == IpSummed::kComplete && skb.csum_from < hdr::kEthLen)
    PullRcsum(skb, skb.csum_from, hdr::kEthLen - skb.csum_from, kv);
  RxVerdict v = IpRcvCore(skb, hdr::kEthLen, kv, c, ip);
  if (!v.delivered) return v.reason;
  if (ip->fragment) return "FRAG_REASM (not modelled)";
  if (c) c->Inc(ip->ipv6 ? "Ip6InDelivers" : "Ip:InDelivers");
  if (ip->proto != hdr::kProtoUdp) return "NOT_UDP";
  const size_t l4 = ip->l4_ofs;
  const bool ours =
      l4 + 4 <= skb.len() && ip->ipv6 == ipv6 && GetBe16(skb.pkt.data() + l4 + 2) == dstport;
  UdpSocketOpts sock;
  sock.encap = true;
  sock.convert_csum = true;  // setup_udp_tunnel_sock: inet_inc_convert_csum
  sock.no_check6_rx = no_check6_rx;
  v = UdpRcv(skb, *ip, ours ? &sock : nullptr, kv, c);
  return v.delivered ? "" : v.reason;
}

}  // namespace offlab::kernel
