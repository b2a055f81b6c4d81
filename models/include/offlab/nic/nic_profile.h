// A NIC described as data: what it advertises for transmit offload, what it
// validates on receive (per tunnel type), how it coalesces, and its known
// quirks. Profiles are YAML files in models/profiles/, compiled into the
// library; every capability carries the source it was taken from.
#pragma once

#include <cstdint>
#include <map>
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
