// Internet checksum (RFC 1071), pseudo-headers, RFC 1624 incremental update,
// and CRC32c (SCTP, RFC 3309 / RFC 9260 appendix A).
//
// Checksum values are host integers holding the big-endian field value, so
// PutBe16(field, value) writes the wire bytes.
#pragma once

#include <cstddef>
#include <cstdint>

namespace offlab::csum {

// One's-complement accumulation of `data` read as big-endian 16-bit words
// (an odd trailing byte is padded with zero), added to `sum`. The result is
// unfolded; combine pieces with Add() and finish with Fold()/Finish(). Every
// piece except the last must have even length.
uint64_t Partial(const uint8_t* data, size_t len, uint64_t sum = 0);

// What Partial adds for `data`, without counting the bytes as work: for
// callers that meter a region once and sum it in pieces (shared payloads).
uint16_t Unmetered(const uint8_t* data, size_t len);

// A piece's sum as it counts when the piece starts at an odd offset of the
// checksummed region: its bytes pair up the other way round.
inline uint16_t Swapped(uint64_t piece) {
  while (piece >> 16) piece = (piece & 0xffff) + (piece >> 16);
  return static_cast<uint16_t>((piece << 8 | piece >> 8) & 0xffff);
}

// Adds two unfolded sums without losing carries.
uint64_t Add(uint64_t a, uint64_t b);

// End-around-carry fold to 16 bits (not complemented).
uint16_t Fold(uint64_t sum);

// The checksum field value: ~Fold(sum).
inline uint16_t Finish(uint64_t sum) { return static_cast<uint16_t>(~Fold(sum)); }

// Checksum of a whole buffer: Finish(Partial(data, len)).
uint16_t Compute(const uint8_t* data, size_t len);

// True if the one's-complement sum over the buffer (checksum field included)
// is 0xffff, i.e. the checksum in it verifies.
bool Verify(const uint8_t* data, size_t len, uint64_t pseudo = 0);

// Unfolded pseudo-header sums for TCP/UDP/ICMPv6 (RFC 793, RFC 768, RFC 8200 §8.1).
uint64_t PseudoIpv4(const uint8_t src[4], const uint8_t dst[4], uint8_t proto, uint16_t l4_len);
uint64_t PseudoIpv6(const uint8_t src[16], const uint8_t dst[16], uint8_t proto, uint32_t l4_len);

// RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m'). Preserves the error of a wrong
// checksum. May return 0x0000 (callers decide whether that means 0xffff).
uint16_t Update16(uint16_t old_csum, uint16_t old_word, uint16_t new_word);
uint16_t Update32(uint16_t old_csum, uint32_t old_word, uint32_t new_word);
// Update over an even-length run of bytes that changed from `old_bytes` to
// `new_bytes` (e.g. a 16-byte IPv6 address).
uint16_t UpdateBytes(uint16_t old_csum, const uint8_t* old_bytes, const uint8_t* new_bytes,
                     size_t len);

// Reference implementation: a plain loop over 16-bit words. Used as the
// baseline in bench/ and as an oracle in tests; never on a hot path.
uint16_t NaiveCompute(const uint8_t* data, size_t len);

// CRC32c (Castagnoli, reflected, init/xorout 0xffffffff) of `data`.
// `crc` continues a previous call's result.
uint32_t Crc32c(const uint8_t* data, size_t len, uint32_t crc = 0);

}  // namespace offlab::csum
