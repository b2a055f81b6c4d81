#include "offlab/checksum.h"

#include "offlab/bytes.h"

namespace offlab::csum {

uint64_t Partial(const uint8_t* data, size_t len, uint64_t sum) {
  size_t i = 0;
  for (; i + 1 < len; i += 2) sum += GetBe16(data + i);
  if (i < len) sum += uint64_t{data[i]} << 8;
  return sum;
}
uint64_t Add(uint64_t a, uint64_t b) {
  uint64_t s = a + b;
  return s + (s < a);
}
uint16_t Fold(uint64_t sum) {
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<uint16_t>(sum);
}
uint16_t Compute(const uint8_t* data, size_t len) { return Finish(Partial(data, len)); }
bool Verify(const uint8_t* data, size_t len, uint64_t pseudo) {
  return Fold(Partial(data, len, pseudo)) == 0xffff;
}
uint64_t PseudoIpv4(const uint8_t src[4], const uint8_t dst[4], uint8_t proto, uint16_t l4_len) {
  return Partial(src, 4, Partial(dst, 4)) + proto + l4_len;
}
uint64_t PseudoIpv6(const uint8_t src[16], const uint8_t dst[16], uint8_t proto, uint32_t l4_len) {
  return Partial(src, 16, Partial(dst, 16)) + proto + (l4_len >> 16) + (l4_len & 0xffff);
}
uint16_t Update16(uint16_t old_csum, uint16_t old_word, uint16_t new_word) {
  uint64_t s = uint16_t(~old_csum) + uint64_t(uint16_t(~old_word)) + new_word;
  return static_cast<uint16_t>(~Fold(s));
}
uint16_t Update32(uint16_t c, uint32_t o, uint32_t n) {
  return Update16(Update16(c, o >> 16, n >> 16), o & 0xffff, n & 0xffff);
}
uint16_t UpdateBytes(uint16_t c, const uint8_t* o, const uint8_t* n, size_t len) {
  for (size_t i = 0; i + 1 < len; i += 2) c = Update16(c, GetBe16(o + i), GetBe16(n + i));
  return c;
}
uint16_t NaiveCompute(const uint8_t* data, size_t len) { return Compute(data, len); }
uint32_t Crc32c(const uint8_t* data, size_t len, uint32_t crc) {
  crc = ~crc;
  for (size_t i = 0; i < len; i++) {
    crc ^= data[i];
    for (int k = 0; k < 8; k++) crc = (crc >> 1) ^ (0x82f63b78u & (0u - (crc & 1)));
  }
  return ~crc;
}

}  // namespace offlab::csum
