// Helpers shared by ipf.cc and ipf_v6.cc; internal to the OVS model.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "offlab/net/packet.h"

namespace offlab::ipf_detail {

constexpr size_t kIpv6FragHdrLen = 8;
constexpr uint16_t kIp6fOffMask = 0xfff8;  // IP6F_OFF_MASK: the offset, in bytes
constexpr uint16_t kIp6fMoreFrag = 0x0001;

// An IPv6 packet's fragment header as parse_ipv6_ext_hdrs finds it: its
// offset from the IPv6 header, its offset/flags word, and the offset of the
// next-header byte that names it (6 in the IPv6 header, or an extension
// header's first byte).
struct V6FragHeader {
  size_t ofs = 0;
  uint16_t offlg = 0;
  uint32_t id = 0;
  size_t naming_ofs = 0;
};
// The fragment header of the IPv6 packet at p.l3_ofs, walking hop-by-hop,
// routing, destination options and AH headers within its payload length;
// nullopt if there is none or the walk runs out of bytes first.
std::optional<V6FragHeader> FindV6FragHeader(const Packet& p);

}  // namespace offlab::ipf_detail
