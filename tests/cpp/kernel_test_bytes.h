// Byte helpers the kernel tests build expected frames with: a plain RFC 1071
// sum (independent of offlab::csum), big-endian fields, appending bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "offlab/net/bytes.h"

namespace offlab::kernel::testbytes {

inline uint32_t Sum(const Bytes& b, size_t from, size_t to, uint32_t s = 0) {
  for (size_t i = from; i + 1 < to; i += 2) s += (b[i] << 8) | b[i + 1];
  if ((to - from) % 2) s += b[to - 1] << 8;
  return s;
}
inline uint16_t Fold(uint32_t s) {
  while (s >> 16) s = (s & 0xffff) + (s >> 16);
  return static_cast<uint16_t>(s);
}
inline void Put16(Bytes& b, size_t o, uint32_t v) {
  b[o] = static_cast<uint8_t>(v >> 8);
  b[o + 1] = static_cast<uint8_t>(v);
}
inline uint16_t Get16(const Bytes& b, size_t o) {
  return static_cast<uint16_t>((b[o] << 8) | b[o + 1]);
}
inline void Add(Bytes& b, std::initializer_list<uint32_t> v) {
  for (uint32_t x : v) b.push_back(static_cast<uint8_t>(x));
}

}  // namespace offlab::kernel::testbytes
