// Internet checksum throughput: csum::Compute beside the plain 16-bit loop
// (csum::NaiveCompute) and CRC32c, at 64 B, 1500 B, 64 KB and 16 MB, in one
// run. The 16 MB buffer streams from memory; the others stay in cache.
// Usage: checksum_bench [--quick]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "offlab/net/checksum.h"

namespace {

template <typename Fn>
double GbPerSecond(Fn&& fn, size_t len, double seconds) {
  using clock = std::chrono::steady_clock;
  std::vector<double> rates;
  volatile uint64_t sink = 0;
  for (int rep = 0; rep < 5; rep++) {
    size_t bytes = 0;
    auto start = clock::now();
    auto end = start + std::chrono::duration<double>(seconds / 5);
    while (clock::now() < end) {
      for (int i = 0; i < 16; i++) {
        sink = sink + fn();
        bytes += len;
      }
    }
    double el = std::chrono::duration<double>(clock::now() - start).count();
    rates.push_back(bytes / el / 1e9);
  }
  std::sort(rates.begin(), rates.end());
  return rates[2];  // median
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  const double secs = quick ? 0.25 : 1.5;
  std::mt19937 rng(1);
  std::vector<uint8_t> buf((16u << 20) + 64);
  for (auto& b : buf) b = static_cast<uint8_t>(rng());
  std::printf("%-8s %12s %12s %8s %14s\n", "size", "fast GB/s", "naive GB/s", "ratio",
              "crc32c GB/s");
  for (size_t len : {size_t{64}, size_t{1500}, size_t{65536}, size_t{16u << 20}}) {
    const uint8_t* p = buf.data() + 1;  // deliberately unaligned, as packet payloads are
    double fast = GbPerSecond([&] { return offlab::csum::Compute(p, len); }, len, secs);
    double naive = GbPerSecond([&] { return offlab::csum::NaiveCompute(p, len); }, len, secs);
    double crc = GbPerSecond([&] { return offlab::csum::Crc32c(p, len); }, len, secs);
    const char* label = len == 64      ? "64 B"
                        : len == 1500  ? "1500 B"
                        : len == 65536 ? "64 KB"
                                       : "16 MB";
    std::printf("%-8s %12.2f %12.2f %7.1fx %14.2f\n", label, fast, naive, fast / naive, crc);
  }
  return 0;
}
