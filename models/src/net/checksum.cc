#include "offlab/net/checksum.h"

#include <immintrin.h>

#include <cstring>

#include "offlab/net/bytes.h"
#include "offlab/net/crc32c_table.h"
#include "offlab/net/work.h"

namespace offlab::csum {

namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the fast sum assumes little endian");

// One's-complement sums are byte-order independent (RFC 1071 §2(B)): sum
// native little-endian words, fold, and swap the bytes of the result once.
uint16_t FoldNative(uint64_t s) {
  s = (s & 0xffffffff) + (s >> 32);
  s = (s & 0xffffffff) + (s >> 32);
  s = (s & 0xffff) + (s >> 16);
  s = (s & 0xffff) + (s >> 16);
  s = (s & 0xffff) + (s >> 16);
  return static_cast<uint16_t>(s);
}

// Scalar: 8 bytes per step, split into 32-bit halves so no carry is lost
// (a 64-bit accumulator absorbs 2^32 such additions).
uint64_t SumScalar(const uint8_t* p, size_t len) {
  uint64_t a = 0, b = 0, c = 0, d = 0;
  while (len >= 32) {
    uint64_t w[4];
    std::memcpy(w, p, 32);
    a += (w[0] & 0xffffffff) + (w[0] >> 32);
    b += (w[1] & 0xffffffff) + (w[1] >> 32);
    c += (w[2] & 0xffffffff) + (w[2] >> 32);
    d += (w[3] & 0xffffffff) + (w[3] >> 32);
    p += 32;
    len -= 32;
  }
  uint64_t s = a + b + c + d;
  while (len >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    s += (w & 0xffffffff) + (w >> 32);
    p += 8;
    len -= 8;
  }
  while (len >= 2) {
    uint16_t w;
    std::memcpy(&w, p, 2);
    s += w;
    p += 2;
    len -= 2;
  }
  if (len) s += p[0];  // the odd byte is the high byte of a zero-padded word
  return s;
}

// AVX2: 16-bit words widened to 32-bit lanes; lanes are flushed to 64-bit
// totals before they could overflow.
__attribute__((target("avx2"))) uint64_t SumAvx2(const uint8_t* p, size_t len) {
  const __m256i zero = _mm256_setzero_si256();
  __m256i total = zero;
  while (len >= 64) {
    __m256i acc0 = zero, acc1 = zero;
    // 4 words of at most 0xffff per lane and step: 8192 steps stay below 2^31.
    size_t steps = len / 64 < 8192 ? len / 64 : 8192;
    for (size_t i = 0; i < steps; i++) {
      __m256i v0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
      __m256i v1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32));
      acc0 = _mm256_add_epi32(acc0, _mm256_unpacklo_epi16(v0, zero));
      acc1 = _mm256_add_epi32(acc1, _mm256_unpackhi_epi16(v0, zero));
      acc0 = _mm256_add_epi32(acc0, _mm256_unpacklo_epi16(v1, zero));
      acc1 = _mm256_add_epi32(acc1, _mm256_unpackhi_epi16(v1, zero));
      p += 64;
    }
    len -= steps * 64;
    __m256i acc = _mm256_add_epi32(acc0, acc1);
    total = _mm256_add_epi64(total, _mm256_unpacklo_epi32(acc, zero));
    total = _mm256_add_epi64(total, _mm256_unpackhi_epi32(acc, zero));
  }
  alignas(32) uint64_t lanes[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), total);
  const uint64_t sum = lanes[0] + lanes[1] + lanes[2] + lanes[3];
  // GCC leaves the upper YMM halves dirty across the tail call; every legacy
  // SSE instruction after it (libc, DPDK, ns-3) would then pay a transition
  // penalty: measured 2x on hw-replay's transmit loop.
  _mm256_zeroupper();
  return sum + SumScalar(p, len);
}

bool HaveAvx2() {
  static const bool have = __builtin_cpu_supports("avx2");
  return have;
}

uint16_t NativeFolded(const uint8_t* data, size_t len) {
  uint64_t s = (len >= 256 && HaveAvx2()) ? SumAvx2(data, len) : SumScalar(data, len);
  return FoldNative(s);
}

}  // namespace

uint64_t Partial(const uint8_t* data, size_t len, uint64_t sum) {
  work::Csum(len);
  return sum + __builtin_bswap16(NativeFolded(data, len));
}

uint16_t Unmetered(const uint8_t* data, size_t len) {
  return __builtin_bswap16(NativeFolded(data, len));
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
  return uint64_t{GetBe16(src)} + GetBe16(src + 2) + GetBe16(dst) + GetBe16(dst + 2) + proto +
         l4_len;
}

uint64_t PseudoIpv6(const uint8_t src[16], const uint8_t dst[16], uint8_t proto, uint32_t l4_len) {
  uint64_t s = proto + (l4_len >> 16) + (l4_len & 0xffff);
  for (int i = 0; i < 16; i += 2) s += GetBe16(src + i) + GetBe16(dst + i);
  return s;
}

uint16_t Update16(uint16_t old_csum, uint16_t old_word, uint16_t new_word) {
  uint64_t s =
      uint64_t{static_cast<uint16_t>(~old_csum)} + static_cast<uint16_t>(~old_word) + new_word;
  return static_cast<uint16_t>(~Fold(s));
}

uint16_t Update32(uint16_t c, uint32_t o, uint32_t n) {
  return Update16(Update16(c, static_cast<uint16_t>(o >> 16), static_cast<uint16_t>(n >> 16)),
                  static_cast<uint16_t>(o), static_cast<uint16_t>(n));
}

uint16_t UpdateBytes(uint16_t c, const uint8_t* o, const uint8_t* n, size_t len) {
  // Word by word, as OVS's recalc_csum32/128 do, so corner cases match it.
  for (size_t i = 0; i + 1 < len; i += 2) c = Update16(c, GetBe16(o + i), GetBe16(n + i));
  return c;
}

// The baseline: one 16-bit word per step, kept scalar on purpose.
#if defined(__clang__)
#define OFFLAB_SCALAR_LOOP _Pragma("clang loop vectorize(disable) interleave(disable)")
#define OFFLAB_NO_VECTORIZE
#else
#define OFFLAB_SCALAR_LOOP
#define OFFLAB_NO_VECTORIZE __attribute__((optimize("no-tree-vectorize")))
#endif
OFFLAB_NO_VECTORIZE uint16_t NaiveCompute(const uint8_t* data, size_t len) {
  uint32_t s = 0;
  size_t i = 0;
  OFFLAB_SCALAR_LOOP
  for (; i + 1 < len; i += 2) {
    s += static_cast<uint32_t>(data[i] << 8 | data[i + 1]);
    s = (s & 0xffff) + (s >> 16);
  }
  if (i < len) s += static_cast<uint32_t>(data[i] << 8);
  while (s >> 16) s = (s & 0xffff) + (s >> 16);
  return static_cast<uint16_t>(~s);
}

namespace {

// Slicing-by-8 tables for the reflected Castagnoli polynomial 0x82f63b78.
struct Crc32cTables {
  uint32_t t[8][256];
  Crc32cTables() {
    for (uint32_t i = 0; i < 256; i++) {
      uint32_t c = i;
      for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0x82f63b78u & (0u - (c & 1)));
      t[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++) {
      for (int k = 1; k < 8; k++) t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xff];
    }
  }
};

__attribute__((target("sse4.2"))) uint32_t Crc32cHw(const uint8_t* p, size_t len, uint32_t c) {
  uint64_t crc = c;
  while (len >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    crc = _mm_crc32_u64(crc, w);
    p += 8;
    len -= 8;
  }
  uint32_t c32 = static_cast<uint32_t>(crc);
  while (len--) c32 = _mm_crc32_u8(c32, *p++);
  return c32;
}

uint32_t Crc32cSw(const uint8_t* p, size_t len, uint32_t c) {
  static const Crc32cTables tab;
  while (len >= 8) {
    uint32_t lo, hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + 4, 4);
    lo ^= c;
    c = tab.t[7][lo & 0xff] ^ tab.t[6][(lo >> 8) & 0xff] ^ tab.t[5][(lo >> 16) & 0xff] ^
        tab.t[4][lo >> 24] ^ tab.t[3][hi & 0xff] ^ tab.t[2][(hi >> 8) & 0xff] ^
        tab.t[1][(hi >> 16) & 0xff] ^ tab.t[0][hi >> 24];
    p += 8;
    len -= 8;
  }
  while (len--) c = (c >> 8) ^ tab.t[0][(c ^ *p++) & 0xff];
  return c;
}

}  // namespace

uint32_t Crc32cTable(const uint8_t* data, size_t len, uint32_t crc) {
  return ~Crc32cSw(data, len, ~crc);
}

uint32_t Crc32c(const uint8_t* data, size_t len, uint32_t crc) {
  work::Csum(len);
  static const bool hw = __builtin_cpu_supports("sse4.2");
  uint32_t c = ~crc;
  c = hw ? Crc32cHw(data, len, c) : Crc32cSw(data, len, c);
  return ~c;
}

}  // namespace offlab::csum
