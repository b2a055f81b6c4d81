// Software work the datapath performs on packet bytes, for cost models such
// as the simulator's CPU model: bytes run through a checksum, bytes copied
// into new segments, segments made in software. Steps the NIC performs in
// hardware (NicTransmit, NicReceive) run under a HardwareScope and are not
// counted, so the meter sees exactly what a PMD thread would spend cycles on.
#pragma once

#include <cstddef>
#include <cstdint>

namespace offlab {

struct Work {
  uint64_t csum_bytes = 0;   // bytes summed (Internet checksum or CRC32c)
  uint64_t copy_bytes = 0;   // bytes copied into software-made segments
  uint64_t sw_segments = 0;  // segments made by software GSO (full or partial)

  Work& operator+=(const Work& o) {
    csum_bytes += o.csum_bytes;
    copy_bytes += o.copy_bytes;
    sw_segments += o.sw_segments;
    return *this;
  }
};

namespace work {
inline thread_local Work meter;
inline thread_local int hardware_depth = 0;
inline void Csum(size_t n) {
  if (!hardware_depth) meter.csum_bytes += n;
}
inline void Segment(size_t bytes) {
  if (!hardware_depth) {
    meter.sw_segments++;
    meter.copy_bytes += bytes;
  }
}
// Returns the work counted since the last Take() on this thread and resets it.
inline Work Take() {
  Work w = meter;
  meter = {};
  return w;
}
}  // namespace work

// Work inside this scope is done by NIC hardware, not by the CPU.
class HardwareScope {
 public:
  HardwareScope() { work::hardware_depth++; }
  ~HardwareScope() { work::hardware_depth--; }
  HardwareScope(const HardwareScope&) = delete;
  HardwareScope& operator=(const HardwareScope&) = delete;
};

}  // namespace offlab
