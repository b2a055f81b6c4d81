// Reading a file someone else may have written (a trace, a profile, a scenario) within
// bounds: it must be a regular file (a FIFO or device is refused before anything blocks on
// it) no larger than a limit, so a forged length or a special file cannot hang the reader or
// exhaust memory. The limits and their environment variables are those of the Python
// package's safeio module (docs/security.md), so every entry point enforces the same bounds.
#pragma once

#include <cstdint>
#include <string>

namespace offlab {

enum class InputKind {
  kCapture,  // pcap/pcapng traces: OFFLAB_MAX_INPUT_BYTES, default 512 MiB
  kYaml,     // profiles, scenarios, sweeps: OFFLAB_MAX_YAML_BYTES, default 4 MiB
};

// The limit for `kind`, from its environment variable when set (k/M/G suffixes accepted).
// Throws offlab::Error for a malformed value.
uint64_t InputLimit(InputKind kind);

// The whole file. Throws offlab::Error, `prefix` followed by the reason, when it is missing,
// unreadable, not a regular file, or larger than InputLimit(kind).
std::string ReadInputFile(const std::string& path, const std::string& prefix, InputKind kind);

}  // namespace offlab
