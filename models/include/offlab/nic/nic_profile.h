// A NIC described as data: what it advertises for transmit offload, what it
// validates on receive (per tunnel type), how it coalesces, and its known
// quirks. Profiles are YAML files in models/profiles/, compiled into the
// library; every capability carries the source it was taken from.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "offlab/ovs/offloads.h"

namespace offlab {

// Which checksums the NIC verifies in hardware and reports (good/bad) to the
// driver for packets of one encapsulation kind.
struct RxValidation {
  bool outer_ip = false;  // outermost IPv4 header checksum
  bool outer_l4 = false;  // outermost L4 (TCP/UDP/SCTP, or the tunnel's UDP)
  bool inner_ip = false;  // tunnelled packets only
  bool inner_l4 = false;  // tunnelled packets only
};

// The NIC as the Linux kernel sees it through its driver (a profile's
// optional `kernel:` section, every value cited there). nic/ does not know
// the kernel model's types: features are ethtool names (net/ethtool/common.c
// netdev_features_strings), turned into bits by linux/rx.h.
struct KernelNicView {
  // How the driver reports a received frame's checksums to the stack.
  //  kUnnecessary: the hardware verifies (which ones: rx_plain/rx_vxlan/...)
  //    and the driver says CHECKSUM_UNNECESSARY for good ones;
  //  kComplete: the hardware sums the packet (CHECKSUM_COMPLETE);
  //  kVnetHdr: a virtio-net header says it (virtio_net, tun);
  //  kNone: nothing is reported.
  enum class RxCsum : uint8_t { kNone, kUnnecessary, kComplete, kVnetHdr };

  std::string driver;                        // e.g. "ixgbe", "mlx5_core"
  std::vector<std::string> features;         // dev->features after probe
  std::vector<std::string> hw_enc_features;  // dev->hw_enc_features
  RxCsum rx_csum = RxCsum::kNone;
  // csum_level for a tunnelled frame whose inner checksum the hardware
  // verified: 0 = the outer one only, 1 = the inner one too.
  uint8_t tunnel_csum_level = 0;
  // Tunnels ("vxlan", "geneve", "gre") whose inner headers the hardware
  // parses and verifies under this driver (UDP ports as the driver programs
  // them through udp_tunnel_nic); other tunnels are checked as plain
  // packets (rx_plain). The rx_vxlan/... rows above are the DPDK view.
  std::vector<std::string> tunnels;
  // RX buffers are page fragments the skb points into (GRO merges their
  // pages as frags); false: the driver copies each frame into the skb's
  // linear area (GRO chains such skbs on frag_list).
  bool rx_page_frags = true;
  // The driver statistic (ethtool -S name) a bad checksum is counted in,
  // "" when the driver counts none; ice counts a bad outer IPv4 header in a
  // separate one.
  std::string csum_err_stat;
  std::string outer_ip_err_stat;

  // Quirks
  bool udp_zero_csum_erratum = false;        // ixgbe 82599: UDP L4 errors ignored
  bool icmp_unverified = false;              // i40e/ice: ICMP reported verified unchecked
  bool csum_good_unverified = false;         // ibmveth: the hypervisor's flag, no check
  bool null_tcp_csum_partial = false;        // ibmveth: TCP check 0 -> CHECKSUM_PARTIAL
  bool active_trunk = false;                 // ibmveth in trunk mode
  bool tunnel_outer_udp_unverified = false;  // i40e: a tunnel's outer UDP unchecked

  // key (e.g. "rx_csum", "quirks.active_trunk") -> citation
  std::map<std::string, std::string> sources;
  std::vector<std::string> notes;
};
const char* RxCsumName(KernelNicView::RxCsum r);

struct NicProfile {
  std::string name;         // file stem, e.g. "connectx6dx"
  std::string description;  // e.g. "NVIDIA ConnectX-6 Dx (mlx5)"
  std::string driver;       // DPDK PMD / kernel driver name
  double link_gbps = 0;

  uint32_t tx_caps = 0;  // cap:: bits advertised to the datapath

  RxValidation rx_plain;   // non-tunnelled packets
  RxValidation rx_vxlan;   // VXLAN (UDP 4789) packets
  RxValidation rx_geneve;  // Geneve (UDP 6081) packets
  RxValidation rx_gre;     // GRE packets
  // vhost-user/virtio with compliant offloads: a guest's CHECKSUM_PARTIAL is
  // delivered as DPDK "NONE" = partial.
  bool rx_partial_from_guest = false;

  bool lro = false;  // hardware large receive offload
  bool gro = false;  // software GRO on the receive path (kernel/driver)
  uint32_t max_tso_bytes = 65535;
  uint16_t max_tso_segs = 0;  // 0 = no limit

  // Quirks
  // ice/i40e: the hardware adds to the field, which must hold the pseudo-header
  // sum; the driver's tx_prepare seeds it (DPDK f876dbef0809).
  bool outer_udp_needs_pseudo_seed = false;
  bool outer_udp_left_as_is = false;  // X710: tunnel UDP checksum not computed
  // DPDK's TAP PMD: a zero UDP checksum is not read as "no checksum": over
  // IPv4 it is reported as RX_L4_CKSUM_NONE (partial), over IPv6 it is checked
  // like any other (and so is bad). Optional in profiles.
  bool rx_zero_udp_csum_literal = false;
  // DPDK's TAP PMD: TSO of an IPv4 packet only (rte_gso); an IPv6 TSO packet
  // leaves whole, its TCP checksum computed. Optional in profiles.
  bool tso_ipv4_only = false;

  // The Linux driver's view; absent for NICs without a Linux driver (pcap,
  // dummy).
  std::optional<KernelNicView> kernel;

  // capability/field name -> citation (file, commit, document)
  std::map<std::string, std::string> sources;
  std::vector<std::string> notes;

  const RxValidation& rx_for(TunnelType t) const;
};

// Parses profile text; throws offlab::Error("profile <name>: ...") naming the
// problem (unknown key, missing field, wrong type, unknown capability).
NicProfile ParseProfile(const std::string& yaml_text, const std::string& name);
// Reads a profile file; throws offlab::Error for a missing/unreadable file too.
NicProfile LoadProfileFile(const std::string& path);
// A built-in profile by name; throws offlab::Error listing the known names.
NicProfile BuiltinProfile(const std::string& name);
std::vector<std::string> BuiltinProfileNames();

}  // namespace offlab
