// Net device features (include/linux/netdev_features.h, torvalds/linux
// v6.18): what a device lets the stack hand it. Each bit carries the name
// ethtool -k prints for it (net/ethtool/common.c netdev_features_strings), so
// a model device can be compared with a real one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace offlab::kernel {

namespace netif {
constexpr uint64_t kSg = 1ull << 0;                 // NETIF_F_SG  tx-scatter-gather
constexpr uint64_t kIpCsum = 1ull << 1;             // NETIF_F_IP_CSUM  tx-checksum-ipv4
constexpr uint64_t kHwCsum = 1ull << 2;             // NETIF_F_HW_CSUM  tx-checksum-ip-generic
constexpr uint64_t kIpv6Csum = 1ull << 3;           // NETIF_F_IPV6_CSUM  tx-checksum-ipv6
constexpr uint64_t kFraglist = 1ull << 4;           // NETIF_F_FRAGLIST  tx-scatter-gather-fraglist
constexpr uint64_t kTso = 1ull << 5;                // NETIF_F_TSO  tx-tcp-segmentation
constexpr uint64_t kTsoEcn = 1ull << 6;             // NETIF_F_TSO_ECN  tx-tcp-ecn-segmentation
constexpr uint64_t kTsoMangleid = 1ull << 7;        // NETIF_F_TSO_MANGLEID
constexpr uint64_t kTso6 = 1ull << 8;               // NETIF_F_TSO6  tx-tcp6-segmentation
constexpr uint64_t kGsoGre = 1ull << 9;             // NETIF_F_GSO_GRE
constexpr uint64_t kGsoGreCsum = 1ull << 10;        // NETIF_F_GSO_GRE_CSUM
constexpr uint64_t kGsoUdpTunnel = 1ull << 11;      // NETIF_F_GSO_UDP_TUNNEL
constexpr uint64_t kGsoUdpTunnelCsum = 1ull << 12;  // NETIF_F_GSO_UDP_TUNNEL_CSUM
constexpr uint64_t kGsoPartial = 1ull << 13;        // NETIF_F_GSO_PARTIAL
constexpr uint64_t kGsoTunnelRemcsum = 1ull << 14;  // NETIF_F_GSO_TUNNEL_REMCSUM
constexpr uint64_t kGsoUdpL4 = 1ull << 15;          // NETIF_F_GSO_UDP_L4
constexpr uint64_t kGsoFraglist = 1ull << 16;       // NETIF_F_GSO_FRAGLIST
constexpr uint64_t kSctpCrc = 1ull << 17;           // NETIF_F_SCTP_CRC
constexpr uint64_t kRxCsum = 1ull << 18;            // NETIF_F_RXCSUM  rx-checksum
constexpr uint64_t kGro = 1ull << 19;               // NETIF_F_GRO  rx-gro
constexpr uint64_t kGroHw = 1ull << 20;             // NETIF_F_GRO_HW  rx-gro-hw
constexpr uint64_t kLro = 1ull << 21;               // NETIF_F_LRO  rx-lro
constexpr uint64_t kGroFraglist = 1ull << 22;       // NETIF_F_GRO_FRAGLIST  rx-gro-list
constexpr uint64_t kGroUdpFwd = 1ull << 23;         // NETIF_F_GRO_UDP_FWD  rx-udp-gro-forwarding
constexpr uint64_t kGsoSoftware = 1ull << 24;       // NETIF_F_GSO  tx-generic-segmentation
constexpr uint64_t kLlTx = 1ull << 25;              // NETIF_F_LLTX (no ethtool change)
constexpr uint64_t kCsumMask = kIpCsum | kHwCsum | kIpv6Csum;
}  // namespace netif

// The ethtool name of one feature bit ("tx-checksum-ipv4").
const char* FeatureName(uint64_t bit);
// Parses one ethtool feature name; throws offlab::Error naming an unknown one.
uint64_t FeatureFromName(const std::string& name);
// All bits set in `features`, by their ethtool names.
std::vector<std::string> FeatureNames(uint64_t features);

struct DeviceFeatures {
  uint64_t features = 0;         // dev->features (what is on)
  uint64_t hw_enc_features = 0;  // dev->hw_enc_features (for skb->encapsulation)
  uint32_t gso_max_size = 65536;
  uint16_t gso_max_segs = 65535;
  uint32_t mtu = 1500;
};

}  // namespace offlab::kernel
