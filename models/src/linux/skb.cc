#include "offlab/linux/skb.h"

#include <array>
#include <utility>

namespace offlab::kernel {

const char* IpSummedName(IpSummed s) {
  switch (s) {
    case IpSummed::kNone:
      return "NONE";
    case IpSummed::kUnnecessary:
      return "UNNECESSARY";
    case IpSummed::kComplete:
      return "COMPLETE";
    case IpSummed::kPartial:
      return "PARTIAL";
  }
  return "?";
}

std::string GsoTypeToString(uint32_t gso_type) {
  static constexpr std::array<std::pair<uint32_t, const char*>, 19> kNames{{
      {gso::kTcpv4, "tcpv4"},
      {gso::kDodgy, "dodgy"},
      {gso::kTcpEcn, "tcp_ecn"},
      {gso::kTcpFixedid, "tcp_fixedid"},
      {gso::kTcpv6, "tcpv6"},
      {gso::kFcoe, "fcoe"},
      {gso::kGre, "gre"},
      {gso::kGreCsum, "gre_csum"},
      {gso::kIpxip4, "ipxip4"},
      {gso::kIpxip6, "ipxip6"},
      {gso::kUdpTunnel, "udp_tunnel"},
      {gso::kUdpTunnelCsum, "udp_tunnel_csum"},
      {gso::kPartial, "partial"},
      {gso::kTunnelRemcsum, "tunnel_remcsum"},
      {gso::kSctp, "sctp"},
      {gso::kEsp, "esp"},
      {gso::kUdp, "udp"},
      {gso::kUdpL4, "udp_l4"},
      {gso::kFraglist, "fraglist"},
  }};
  std::string out;
  for (const auto& [bit, name] : kNames) {
    if (!(gso_type & bit)) continue;
    if (!out.empty()) out += '|';
    out += name;
  }
  return out.empty() ? "none" : out;
}

std::string Describe(const SkBuff& skb) {
  std::string s = IpSummedName(skb.ip_summed);
  switch (skb.ip_summed) {
    case IpSummed::kUnnecessary:
      s += " level=" + std::to_string(skb.csum_level);
      break;
    case IpSummed::kComplete:
      s += " from=" + std::to_string(skb.csum_from);
      break;
    case IpSummed::kPartial:
      s += " start=" + std::to_string(skb.csum_start) + " off=" + std::to_string(skb.csum_offset);
      break;
    case IpSummed::kNone:
      break;
  }
  if (skb.csum_valid) s += " csum_valid";
  if (skb.is_gso())
    s += " gso=" + GsoTypeToString(skb.gso_type) + "/" + std::to_string(skb.gso_size) + "x" +
         std::to_string(skb.gso_segs);
  if (skb.encapsulation) s += " encap";
  if (skb.remcsum_offload) s += " remcsum";
  if (skb.has_frag_list()) s += " frag_list=" + std::to_string(skb.frag_list_lens.size());
  if (skb.nr_frags) s += " frags=" + std::to_string(skb.nr_frags);
  s += " len=" + std::to_string(skb.len());
  return s;
}

}  // namespace offlab::kernel
