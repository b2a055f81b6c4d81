// The table-driven (slicing-by-8) CRC32c the core computes with where the CPU
// lacks SSE4.2's crc32 instruction. csum::Crc32c picks the instruction when
// it can, so on most machines this path never runs; it is declared here, apart
// from checksum.h, so tests can check it against the same vectors wherever
// they run.
#pragma once

#include <cstddef>
#include <cstdint>

namespace offlab::csum {

// CRC32c (Castagnoli, reflected, init/xorout 0xffffffff) of `data`, as
// Crc32c gives it, without metering the bytes as checksum work.
uint32_t Crc32cTable(const uint8_t* data, size_t len, uint32_t crc = 0);

}  // namespace offlab::csum
