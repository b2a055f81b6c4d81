// The Linux VXLAN driver (drivers/net/vxlan/vxlan_core.c, include/net/vxlan.h)
// on SkBuff's real bytes: transmit (vxlan_xmit_one, vxlan_build_skb with
// remote checksum offload, the UDP tunnel transmit) and receive (the UDP
// socket path with its checksum checks and conversion, then vxlan_rcv with
// header validation, RCO receive, the pull and eth_type_trans). Rules from
// torvalds/linux (lab kernel 6.18), variants by KernelVersion.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "offlab/linux/skb.h"
#include "offlab/linux/stack_rx.h"
#include "offlab/linux/version.h"
#include "offlab/net/counters.h"

namespace offlab::kernel {

// include/net/vxlan.h wire constants.
constexpr uint32_t kVxlanHfVni = 1u << 27;  // VXLAN_HF_VNI ("I" flag, byte 0 = 0x08)
constexpr uint32_t kVxlanHfRco = 1u << 21;  // VXLAN_HF_RCO (byte 1 = 0x20)
constexpr uint32_t kVxlanRcoMask = 0x7f;    // VXLAN_RCO_MASK: start / 2 in the VNI word's low byte
constexpr uint32_t kVxlanRcoUdp = 0x80;     // VXLAN_RCO_UDP: the offset is UDP's, else TCP's
constexpr uint32_t kVxlanRcoShift = 1;      // VXLAN_RCO_SHIFT
constexpr uint32_t kVxlanMaxRemcsumStart = kVxlanRcoMask << kVxlanRcoShift;  // 254
constexpr uint16_t kVxlanDefaultPort = 8472;  // the driver's udp_port module default

// `ip link add ... type vxlan df unset|set|inherit` (VXLAN_DF_*).
enum class VxlanDf : uint8_t { kUnset, kSet, kInherit };

// The `ip link add ... type vxlan` options that decide bytes and checksums.
struct VxlanConfig {
  std::string name = "vxlan0";   // prefix of the device counters
  std::array<uint8_t, 6> mac{};  // the vxlan device's address
  uint32_t vni = 0;
  uint16_t dstport = kVxlanDefaultPort;
  // srcport MIN MAX (MAX exclusive); MIN >= MAX means the local port range.
  uint16_t port_min = 0, port_max = 0;
  bool ipv6 = false;
  std::array<uint8_t, 16> local{}, remote{};  // IPv4 in the first 4 bytes
  uint8_t ttl = 0;                            // 0 = auto (the route's hop limit)
  bool ttl_inherit = false;                   // ttl inherit
  uint8_t tos = 0;                            // 1 = inherit
  VxlanDf df = VxlanDf::kUnset;
  uint32_t flowlabel = 0;  // IPv6 fixed flow label
  // [no]udpcsum (IPv4 only). Unset = the kernel's default: on since v4.6
  // (torvalds/linux 6ceb31c, VXLAN_F_UDP_ZERO_CSUM_TX), off before
  // (VXLAN_F_UDP_CSUM was opt-in). `ip -d link` on 6.18 prints "udpcsum".
  std::optional<bool> udp_csum;
  bool udp6_zero_csum_tx = false;  // udp6zerocsumtx
  bool udp6_zero_csum_rx = false;  // udp6zerocsumrx
  bool remcsum_tx = false;         // remcsumtx
  bool remcsum_rx = false;         // remcsumrx
  // IFLA_VXLAN_REMCSUM_NOPARTIAL: resolve RCO at once instead of leaving
  // the inner skb CHECKSUM_PARTIAL.
  bool remcsum_nopartial = false;
  bool up = true;  // IFF_UP of the vxlan device
  // Whether the outer IPv4 UDP checksum is sent for this kernel.
  bool UdpCsumTx(KernelVersion kv) const { return udp_csum.value_or(kv.AtLeast(4, 6)); }
};

// What the route to the remote gives the transmit path.
struct UnderlayRoute {
  std::array<uint8_t, 6> src_mac{}, dst_mac{};   // underlay device, next hop
  uint16_t ip_id = 0;                            // the ID __ip_select_ident picks (not predictable)
  uint32_t flow_hash = 0;                        // skb_get_hash of the inner packet (source port)
  uint8_t hop_limit = 64;                        // ip4_dst_hoplimit / ip6_dst_hoplimit (ttl auto)
  uint16_t port_low = 32768, port_high = 60999;  // net.ipv4.ip_local_port_range
  uint64_t dev_features = 0;                     // underlay NETIF_F_* (the pre-4.6 checksum choice)
};

// udp_flow_src_port (include/net/udp.h): hash ^= hash << 16, then
// min + ((hash * (max - min)) >> 32); min >= max uses the local port range.
uint16_t VxlanSourcePort(uint32_t hash, uint16_t min, uint16_t max, const UnderlayRoute& rt);

// vxlan_compute_rco: the VNI word's low byte for an inner checksum starting
// `start` bytes after the VXLAN header at offset `offset` from there.
uint8_t VxlanComputeRco(uint32_t start, uint16_t csum_offset);
// vxlan_rco_start / vxlan_rco_offset from that byte.
uint32_t VxlanRcoStart(uint8_t low);
uint16_t VxlanRcoOffset(uint8_t low);

struct VxlanXmitResult {
  bool sent = false;
  std::string reason;  // drop reason when not sent
  SkBuff skb;          // as handed to the underlay device (outer MAC header at 0)
};

// vxlan_xmit_one for a unicast remote: `inner` is the Ethernet frame the
// vxlan device was given, with the sender's checksum state (PARTIAL with
// csum_start/offset, NONE, ...) and GSO fields, offsets from its MAC header.
// Counts "<name>:tx_packets"/"<name>:tx_bytes" (iptunnel_xmit_stats: bytes
// from the inner network header) or "<name>:tx_dropped".
VxlanXmitResult VxlanXmit(SkBuff inner, const VxlanConfig& cfg, const UnderlayRoute& rt,
                          KernelVersion kv = kLabKernel, Counters* c = nullptr);

struct VxlanRcvResult {
  bool delivered = false;
  std::string reason;  // drop reason when not delivered
  // The inner skb as the inner stack will see it: bytes from the inner MAC
  // header, l3_ofs at the inner network header, checksum state after the
  // outer checks, the conversion, RCO and the pulls. csum_valid may still be
  // set from the outer check, as in the kernel; every inner validation
  // (__skb_checksum_validate) clears it before looking.
  SkBuff skb;
  PktType pkt_type = PktType::kHost;  // eth_type_trans on the vxlan device
};

// An outer frame (from its MAC header) received by the underlay device and
// addressed to this host: IP receive, UDP to the VXLAN socket on cfg.dstport
// (verification, conversion, Udp:InDatagrams) and vxlan_rcv. Counters: the
// snmp names of stack_rx.h and "<name>:rx_packets", rx_bytes, rx_errors,
// rx_frame_errors, rx_length_errors, rx_dropped (ip -s -s link).
VxlanRcvResult VxlanRcv(SkBuff outer, const VxlanConfig& cfg, KernelVersion kv = kLabKernel,
                        Counters* c = nullptr);

}  // namespace offlab::kernel
