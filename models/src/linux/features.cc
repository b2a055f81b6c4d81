#include "offlab/linux/features.h"

#include <array>
#include <utility>

#include "offlab/net/error.h"

namespace offlab::kernel {

namespace {
// net/ethtool/common.c netdev_features_strings (torvalds/linux v6.18).
constexpr std::array<std::pair<uint64_t, const char*>, 26> kNames{{
    {netif::kSg, "tx-scatter-gather"},
    {netif::kIpCsum, "tx-checksum-ipv4"},
    {netif::kHwCsum, "tx-checksum-ip-generic"},
    {netif::kIpv6Csum, "tx-checksum-ipv6"},
    {netif::kFraglist, "tx-scatter-gather-fraglist"},
    {netif::kTso, "tx-tcp-segmentation"},
    {netif::kTsoEcn, "tx-tcp-ecn-segmentation"},
    {netif::kTsoMangleid, "tx-tcp-mangleid-segmentation"},
    {netif::kTso6, "tx-tcp6-segmentation"},
    {netif::kGsoGre, "tx-gre-segmentation"},
    {netif::kGsoGreCsum, "tx-gre-csum-segmentation"},
    {netif::kGsoUdpTunnel, "tx-udp_tnl-segmentation"},
    {netif::kGsoUdpTunnelCsum, "tx-udp_tnl-csum-segmentation"},
    {netif::kGsoPartial, "tx-gso-partial"},
    {netif::kGsoTunnelRemcsum, "tx-tunnel-remcsum-segmentation"},
    {netif::kGsoUdpL4, "tx-udp-segmentation"},
    {netif::kGsoFraglist, "tx-gso-list"},
    {netif::kSctpCrc, "tx-checksum-sctp"},
    {netif::kRxCsum, "rx-checksum"},
    {netif::kGro, "rx-gro"},
    {netif::kGroHw, "rx-gro-hw"},
    {netif::kLro, "rx-lro"},
    {netif::kGroFraglist, "rx-gro-list"},
    {netif::kGroUdpFwd, "rx-udp-gro-forwarding"},
    {netif::kGsoSoftware, "tx-generic-segmentation"},
    {netif::kLlTx, "tx-lockless"},
}};
}  // namespace

const char* FeatureName(uint64_t bit) {
  for (const auto& [b, name] : kNames)
    if (b == bit) return name;
  return "?";
}

uint64_t FeatureFromName(const std::string& name) {
  for (const auto& [b, n] : kNames)
    if (name == n) return b;
  throw Error("unknown net device feature '" + name + "'");
}

std::vector<std::string> FeatureNames(uint64_t features) {
  std::vector<std::string> out;
  for (const auto& [b, n] : kNames)
    if (features & b) out.emplace_back(n);
  return out;
}

}  // namespace offlab::kernel
