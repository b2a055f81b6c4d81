// Counters whose names are joined from parts: a device's "<name>:<stat>"
// (the tunnel devices) and the MIB's "<group>:<field>" (the IP, UDP and TCP
// receive paths). Every frame counts several, so each name is built in one
// reused buffer: a name the counters have seen allocates nothing.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "offlab/net/counters.h"

namespace offlab::kernel {

inline void CountJoined(Counters* c, std::string_view a, std::string_view b, uint64_t n = 1) {
  if (!c) return;
  thread_local std::string name;
  name.assign(a).append(b);
  c->Inc(name, n);
}

// "<device>:<stat>".
inline void CountDev(Counters* c, std::string_view dev, std::string_view stat, uint64_t n = 1) {
  if (!c) return;
  thread_local std::string name;
  name.assign(dev).append(1, ':').append(stat);
  c->Inc(name, n);
}

}  // namespace offlab::kernel
