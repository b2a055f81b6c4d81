// Netfilter NAT's packet rewrite (net/netfilter/nf_nat_proto.c,
// nf_nat_manip_pkt -> nf_nat_ipv4_manip_pkt / nf_nat_ipv6_manip_pkt and the
// per-protocol l4proto_manip_pkt), which OVS's ct(nat) runs through
// nf_ct_nat (net/netfilter/nf_nat_ovs.c): the L4 checksum first, with
// inet_proto_csum_replace4/16 (pseudohdr) for the address and
// inet_proto_csum_replace2 for the port or ICMP id, then the address and the
// IPv4 header checksum (csum_replace4). The rewrite runs even when a value
// does not change, as the kernel does (a field of 0xffff becomes 0x0000
// through such a no-op update).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "offlab/linux/skb.h"
#include "offlab/linux/version.h"

namespace offlab::kernel {

enum class NatManip : uint8_t { kSrc, kDst };  // NF_NAT_MANIP_SRC / _DST

struct NatTarget {
  NatManip manip = NatManip::kSrc;
  bool ipv6 = false;
  std::array<uint8_t, 16> addr{};  // IPv4 uses the first 4 bytes
  // The tuple's port (TCP/UDP) or ICMP echo id; nullopt = the packet's own
  // (a NAT that keeps the port still rewrites it to the same value).
  std::optional<uint16_t> port;
};

// nf_nat_manip_pkt on the IP packet at `l3_ofs`. Returns false where the
// kernel returns false (the packet is dropped): headers not in the skb.
bool NfNatManipPkt(SkBuff& skb, size_t l3_ofs, const NatTarget& t,
                   const KernelVersion& kv = kLabKernel);

}  // namespace offlab::kernel
