// Transmit offload capabilities a NIC advertises to the datapath, with the
// bit values of OVS lib/netdev-provider.h `enum netdev_ol_flags`.
#pragma once

#include <cstdint>
#include <string>

#include "offlab/ovs/offloads.h"

namespace offlab {

namespace cap {
constexpr uint32_t kIpv4Cksum = 1u << 0;
constexpr uint32_t kTcpCksum = 1u << 1;
constexpr uint32_t kUdpCksum = 1u << 2;
constexpr uint32_t kSctpCksum = 1u << 3;
constexpr uint32_t kTcpTso = 1u << 4;
constexpr uint32_t kVxlanTnlTso = 1u << 5;
constexpr uint32_t kGeneveTnlTso = 1u << 6;
constexpr uint32_t kOuterIpCksum = 1u << 7;
constexpr uint32_t kOuterUdpCksum = 1u << 8;
constexpr uint32_t kGreTnlTso = 1u << 9;
constexpr uint32_t kAll = (1u << 10) - 1;
constexpr uint32_t kTnlTsoAny = kVxlanTnlTso | kGeneveTnlTso | kGreTnlTso;
}  // namespace cap

// The checksum capability that covers an L4 protocol (0 for none).
inline uint32_t CapForProto(L4Proto proto) {
  switch (proto) {
    case L4Proto::kTcp:
      return cap::kTcpCksum;
    case L4Proto::kUdp:
      return cap::kUdpCksum;
    case L4Proto::kSctp:
      return cap::kSctpCksum;
    case L4Proto::kNone:
      return 0;
  }
  return 0;
}

// "ipv4_cksum|tcp_cksum" etc.; the names are those used in profile files.
std::string CapsToString(uint32_t caps);
// Parses one capability name; throws offlab::Error naming an unknown one.
uint32_t CapFromName(const std::string& name);

}  // namespace offlab
