// Linux GRO (generic receive offload) on real bytes: napi_gro_receive per
// frame and napi_complete_done's flush, with the per-protocol merge rules of
// net/core/gro.c, net/ethernet/eth.c, net/ipv4/{af_inet,tcp_offload,
// udp_offload}.c, net/ipv6/{ip6,tcpv6,udp}_offload.c and the VXLAN driver's
// GRO hooks (drivers/net/vxlan/vxlan_core.c), including the NAPI_GRO_CB
// checksum bookkeeping (csum / csum_cnt / csum_valid) that decides which
// frames may be merged and what checksum state an unmerged frame goes up
// with. Rules that changed between kernels are chosen by KernelVersion; each
// cites its source where it is implemented (gro*.cc).
#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <string>
#include <vector>

#include "offlab/linux/features.h"
#include "offlab/linux/skb.h"
#include "offlab/linux/version.h"

namespace offlab::kernel {

// enum gro_result (include/linux/netdevice.h; the lab kernel's BTF lists
// GRO_MERGED=0 .. GRO_CONSUMED=4).
enum class GroResult : uint8_t { kMerged, kMergedFree, kHeld, kNormal, kConsumed };
const char* GroResultName(GroResult r);

// gso_type bits of newer kernels that skb.h's table (which stops at
// SKB_GSO_FRAGLIST) lacks. Values from the lab kernel's BTF (enum SKB_GSO_*,
// Linux 6.18): TCP_ACCECN is bit 19; since 6.18 SKB_GSO_TCP_FIXEDID is bit 30
// and SKB_GSO_TCP_FIXEDID_INNER bit 31 (bit 3, skb.h's kTcpFixedid, became
// __SKB_GSO_TCP_FIXEDID, the feature bit both map to).
namespace gro_gso {
constexpr uint32_t kTcpAccecn = 1u << 19;
constexpr uint32_t kTcpFixedid618 = 1u << 30;
constexpr uint32_t kTcpFixedidInner618 = 1u << 31;
}  // namespace gro_gso

// A UDP tunnel socket of the VXLAN driver bound to `port` (any address):
// udp_sk(sk)->gro_receive = vxlan_gro_receive. The flags are the socket's
// vs->flags (VXLAN_F_REMCSUM_RX / VXLAN_F_REMCSUM_NOPARTIAL).
struct GroVxlanSocket {
  uint16_t port = 4789;
  bool remcsum_rx = false;
  bool remcsum_nopartial = false;
};

// A Geneve driver socket on `port` (udp_sk(sk)->gro_receive =
// geneve_gro_receive, drivers/net/geneve.c; see gro_geneve.cc).
struct GroGeneveSocket {
  uint16_t port = 6081;
};

// A plain (non-tunnel) UDP socket on `port`; gro_enabled is setsockopt
// UDP_GRO.
struct GroUdpSocket {
  uint16_t port = 0;
  bool gro_enabled = false;
};

struct GroConfig {
  KernelVersion kv = kLabKernel;
  // dev->features of the receiving device: NETIF_F_GRO (off = GRO elided),
  // NETIF_F_GRO_FRAGLIST, NETIF_F_GRO_UDP_FWD.
  uint64_t features = netif::kGro;
  // An XDP program on the device also elides GRO (netif_elide_gro).
  bool xdp_prog = false;
  // dev->gro_max_size (GRO_LEGACY_MAX_SIZE = 65536 by default).
  uint32_t gro_max_size = 65536;
  // The driver builds skbs around page fragments (skb->head_frag, build_skb):
  // a frame with nr_frags == 0 is then merged as one more page frag instead
  // of being chained on frag_list.
  bool head_frag = false;
  // For NETIF_F_GRO_FRAGLIST: whether an established local TCP socket exists
  // for the flow (tcp4_check_fraglist_gro uses fraglist GRO only without one).
  bool tcp_local_socket = true;
  std::vector<GroVxlanSocket> vxlan;
  std::vector<GroGeneveSocket> geneve;
  std::vector<GroUdpSocket> udp_sockets;
};

struct GroStats {
  uint64_t received = 0;   // frames given to Receive
  uint64_t merged = 0;     // frames merged into a held packet
  uint64_t held = 0;       // frames that started a held packet
  uint64_t normal = 0;     // frames passed up as they were (GRO_NORMAL)
  uint64_t flushed = 0;    // held packets completed and passed up
  uint64_t evicted = 0;    // of those, evicted as a bucket's oldest (MAX_GRO_SKBS)
  uint64_t delivered = 0;  // skbs handed to the stack
  // Frames a checksum rule kept from merging, by reason ("ip_header_csum",
  // "tcp_csum", "udp_csum", "udp_tunnel_csum_unvalidated",
  // "udp_tunnel_not_encapsulated", "vxlan_rco_csum_invalid").
  std::map<std::string, uint64_t> not_validated;
  // GRO_NORMAL frames by the first reason recorded for them.
  std::map<std::string, uint64_t> normal_reasons;
  uint64_t csum_bytes = 0;  // bytes summed in software (__skb_gro_checksum_complete)
};

struct GroPacket;  // an skb with its NAPI_GRO_CB (gro_cb.h)

// One NAPI context's GRO state (struct gro_node): eight hash buckets of held
// packets, youngest first, and the list of skbs handed up (rx_list).
class GroCell {
 public:
  explicit GroCell(GroConfig cfg = {});
  ~GroCell();
  GroCell(const GroCell&) = delete;
  GroCell& operator=(const GroCell&) = delete;

  // napi_gro_receive: `skb` holds a frame from its MAC header (pkt.l3_ofs
  // set by the driver, usually 14) with the driver's checksum state; `hash`
  // is skb->hash (the bucket is hash & 7 and differing hashes never merge).
  GroResult Receive(SkBuff skb, uint32_t hash = 0);
  // napi_complete_done: completes every held packet (bucket order, oldest
  // first) and returns all skbs handed up since the last Flush, in order.
  std::vector<SkBuff> Flush();

  size_t held() const;
  const GroStats& stats() const { return stats_; }
  const GroConfig& config() const { return cfg_; }
  // Why the last frame was not merged: the first rule that stopped it (a
  // held packet of its flow that it could not join, or what sent it up as
  // GRO_NORMAL); "" when it merged or simply started a new packet.
  const std::string& last_reason() const { return last_reason_; }

 private:
  void Complete(GroPacket& p);
  void Deliver(SkBuff&& skb);

  GroConfig cfg_;
  GroStats stats_;
  std::string last_reason_;
  std::vector<std::list<GroPacket>> buckets_;
  std::vector<SkBuff> rx_list_;
  uint64_t age_ = 0;
};

}  // namespace offlab::kernel
