// The Linux sk_buff as far as checksums and offloads are concerned: the
// bytes (with the shared Packet's headroom and layer offsets), ip_summed with
// csum_level / csum / csum_start+csum_offset, the encapsulation bit and inner
// offsets, and the GSO fields of skb_shared_info. The names and values are
// those of include/linux/skbuff.h (torvalds/linux v6.18); the OVS offloads
// word that Packet also carries is not used by the Linux model.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "offlab/net/packet.h"

namespace offlab::kernel {

// include/linux/skbuff.h CHECKSUM_NONE .. CHECKSUM_PARTIAL.
enum class IpSummed : uint8_t { kNone = 0, kUnnecessary = 1, kComplete = 2, kPartial = 3 };
const char* IpSummedName(IpSummed s);

// SKB_MAX_CSUM_LEVEL (include/linux/skbuff.h): at most four checksums
// (levels 0..3) can be reported as verified.
constexpr uint8_t kMaxCsumLevel = 3;

// skb_shinfo(skb)->gso_type bits (include/linux/skbuff.h, enum SKB_GSO_*).
namespace gso {
constexpr uint32_t kTcpv4 = 1u << 0;
constexpr uint32_t kDodgy = 1u << 1;
constexpr uint32_t kTcpEcn = 1u << 2;
constexpr uint32_t kTcpFixedid = 1u << 3;  // until v6.17; v6.18 moved it to bit 30
constexpr uint32_t kTcpv6 = 1u << 4;
constexpr uint32_t kFcoe = 1u << 5;
constexpr uint32_t kGre = 1u << 6;
constexpr uint32_t kGreCsum = 1u << 7;
constexpr uint32_t kIpxip4 = 1u << 8;
constexpr uint32_t kIpxip6 = 1u << 9;
constexpr uint32_t kUdpTunnel = 1u << 10;
constexpr uint32_t kUdpTunnelCsum = 1u << 11;
constexpr uint32_t kPartial = 1u << 12;
constexpr uint32_t kTunnelRemcsum = 1u << 13;
constexpr uint32_t kSctp = 1u << 14;
constexpr uint32_t kEsp = 1u << 15;
constexpr uint32_t kUdp = 1u << 16;
constexpr uint32_t kUdpL4 = 1u << 17;
constexpr uint32_t kFraglist = 1u << 18;
// v6.18 (torvalds/linux 7d0a66e4bb90 include/linux/skbuff.h): AccECN, and the
// fixed-IP-ID bits moved to the top (outer and inner).
constexpr uint32_t kTcpAccecn = 1u << 19;
constexpr uint32_t kTcpFixedid618 = 1u << 30;
constexpr uint32_t kTcpFixedidInner618 = 1u << 31;
}  // namespace gso
// "tcpv4|udp_tunnel_csum" etc.
std::string GsoTypeToString(uint32_t gso_type);

struct SkBuff {
  // Bytes from the MAC header. Offsets are those of skb_network_header,
  // skb_transport_header and the inner_* headers, relative to the MAC header.
  Packet pkt;

  IpSummed ip_summed = IpSummed::kNone;
  // CHECKSUM_UNNECESSARY: how many checksums beyond the first were verified
  // (0 = the outermost one only).
  uint8_t csum_level = 0;
  // CHECKSUM_COMPLETE: the one's-complement sum (unfolded is fine, compare
  // folded) of the bytes from `csum_from` to the end, as skb->csum covers
  // skb->data..tail after the headers before csum_from were pulled
  // (skb_postpull_rcsum). Drivers start it at the network header.
  uint32_t csum = 0;
  uint16_t csum_from = 0;
  // CHECKSUM_PARTIAL: the stack or device must store the folded, complemented
  // sum of [csum_start, end) at csum_start + csum_offset; the field holds the
  // pseudo-header sum until then. Offsets from the MAC header.
  uint16_t csum_start = 0;
  uint16_t csum_offset = 0;
  // skb->csum_valid: a full software checksum was verified
  // (__skb_checksum_complete).
  bool csum_valid = false;
  // skb->csum_not_inet: the PARTIAL checksum is a CRC32c (SCTP).
  bool csum_not_inet = false;

  // skb->encapsulation: inner_* offsets are meaningful and a PARTIAL
  // checksum / GSO applies to the inner packet.
  bool encapsulation = false;
  // skb->remcsum_offload: remote checksum offload already resolved the inner
  // checksum (GRO), so it is not validated again.
  bool remcsum_offload = false;

  // skb_shared_info
  uint16_t gso_size = 0;
  uint16_t gso_segs = 0;
  uint32_t gso_type = 0;

  // How the payload is held. GRO on page-backed frames appends to frags;
  // frames whose data was copied into the linear area are chained on
  // frag_list (skb_gro_receive). Transmit treats the two differently
  // (NETIF_F_SG, NETIF_F_FRAGLIST, skb_segment at gso_size vs GSO_FRAGLIST).
  uint16_t nr_frags = 0;
  std::vector<uint32_t> frag_list_lens;  // lengths of skbs on frag_list
  bool has_frag_list() const { return !frag_list_lens.empty(); }

  bool is_gso() const { return gso_size != 0; }
  size_t len() const { return pkt.size(); }
};

// One line, e.g. "PARTIAL start=34 off=16 gso=tcpv4/1448x45 encap".
std::string Describe(const SkBuff& skb);

}  // namespace offlab::kernel
