// The Linux Geneve driver (drivers/net/geneve.c) on SkBuff's real bytes:
// transmit (geneve_xmit_skb / geneve6_xmit_skb, geneve_build_skb and the UDP
// tunnel transmit shared with VXLAN) and receive (the UDP socket checks and
// conversion shared with VXLAN, then geneve_udp_encap_recv and geneve_rx).
// Rules from torvalds/linux 002bba562dd3 drivers/net/geneve.c (the stored
// version; the lab kernel is 6.18), variants by KernelVersion.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "offlab/linux/skb.h"
#include "offlab/linux/stack_rx.h"
#include "offlab/linux/version.h"
#include "offlab/linux/vxlan.h"
#include "offlab/net/counters.h"

namespace offlab::kernel {

// include/net/geneve.h wire layout: byte 0 = ver(2) | opt_len(6, in 4-byte
// words), byte 1 = O(0x80) | C(0x40), protocol type, VNI, reserved.
constexpr size_t kGeneveHdrLen = 8;
constexpr uint8_t kGeneveOamBit = 0x80;
constexpr uint8_t kGeneveCriticalBit = 0x40;
constexpr uint16_t kGeneveDefaultPort = 6081;  // GENEVE_UDP_PORT (IANA)
constexpr uint16_t kEthPTeb = 0x6558;          // ETH_P_TEB
constexpr size_t kGeneveMaxOptLen = 63 * 4;    // the 6-bit opt_len field

// `ip link add ... type geneve` df unset|set|inherit (GENEVE_DF_*).
enum class GeneveDf : uint8_t { kUnset, kSet, kInherit };

// The `ip link add ... type geneve` options that decide bytes and checksums.
struct GeneveConfig {
  std::string name = "geneve0";  // prefix of the device counters
  std::array<uint8_t, 6> mac{};  // the geneve device's address
  uint32_t vni = 0;
  uint16_t dstport = kGeneveDefaultPort;
  // Source port range for udp_flow_src_port: 1..65535 (USHRT_MAX) by
  // default; newer kernels take `srcport MIN MAX` (cfg.port_min/port_max
  // in the newest stored geneve.c, geneve_xmit_skb).
  uint16_t port_min = 1, port_max = 65535;
  bool ipv6 = false;                          // remote is IPv6 (IP_TUNNEL_INFO_IPV6)
  std::array<uint8_t, 16> local{}, remote{};  // IPv4 in the first 4 bytes
  uint8_t ttl = 0;                            // 0 = the route's hop limit
  bool ttl_inherit = false;
  uint8_t tos = 0;  // 1 = inherit the inner DS field
  GeneveDf df = GeneveDf::kUnset;
  uint32_t label = 0;  // IPv6 flow label
  // [no]udpcsum, IPv4 only. geneve_nl2info sets TUNNEL_CSUM only when the
  // attribute is given and non-zero, so the IPv4 default is OFF (VXLAN's is
  // on since v4.6). An IPv6 remote always starts with TUNNEL_CSUM, which
  // only udp6zerocsumtx clears.
  std::optional<bool> udp_csum;
  bool udp6_zero_csum_tx = false;
  bool udp6_zero_csum_rx = false;
  // Options sent after the base header (collect_md / TUNNEL_GENEVE_OPT
  // transmit): a multiple of 4 bytes, at most 252; and the O and C bits.
  std::vector<uint8_t> options;
  bool oam = false;
  bool critical = false;
  // ip_tunnel_collect_metadata() || collect_md: metadata is collected on
  // receive, so critical options are handed on instead of dropped.
  bool collect_metadata = false;
  // inner_proto_inherit: receive also accepts IPv4/IPv6 payloads.
  bool inner_proto_inherit = false;
  bool up = true;  // IFF_UP (gro_cells_receive drops when down)

  bool UdpCsumTx() const { return ipv6 ? !udp6_zero_csum_tx : udp_csum.value_or(false); }
  // udp_sock_create6 sets UDP_NO_CHECK6_RX from !use_udp6_rx_checksums,
  // which an IPv6 remote turns on and udp6zerocsumrx turns off.
  bool NoCheck6Rx() const { return udp6_zero_csum_rx; }
};

struct GeneveXmitResult {
  bool sent = false;
  std::string reason;
  SkBuff skb;  // as handed to the underlay device (outer MAC header at 0)
};

// geneve_xmit for a configured (non-metadata) device: `inner` is the
// Ethernet frame with the sender's checksum and GSO state. Counts
// "<name>:tx_packets"/"tx_bytes" (iptunnel_xmit_stats) or "tx_errors".
GeneveXmitResult GeneveXmit(SkBuff inner, const GeneveConfig& cfg, const UnderlayRoute& rt,
                            KernelVersion kv = kLabKernel, Counters* c = nullptr);

struct GeneveRcvResult {
  bool delivered = false;
  std::string reason;
  SkBuff skb;  // from the inner MAC header (TEB) or network header
  PktType pkt_type = PktType::kHost;
};

// An outer frame (from its MAC header) for this host: IP receive, the UDP
// encap socket on cfg.dstport (verification, conversion, Udp:InDatagrams),
// then geneve_udp_encap_recv + geneve_rx. Device counters:
// "<name>:rx_packets", rx_bytes, rx_errors, rx_frame_errors,
// rx_length_errors, rx_dropped.
GeneveRcvResult GeneveRcv(SkBuff outer, const GeneveConfig& cfg, KernelVersion kv = kLabKernel,
                          Counters* c = nullptr);

}  // namespace offlab::kernel
