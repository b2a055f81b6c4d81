// Helpers the NIC's transmit/receive (nic.cc) and coalescing (coalesce.cc) share.
#pragma once

#include <cstdint>

#include "offlab/net/packet.h"

namespace offlab {

// Whether an IPv4 header starts at `l3`.
inline bool IsIpv4At(const Packet& p, uint16_t l3) {
  return l3 != kNoOffset && p.SizeFrom(l3) >= 1 && (p.Linear(l3 + 1u)[l3] >> 4) == 4;
}

}  // namespace offlab
