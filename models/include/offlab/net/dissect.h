// Independent decoding of a frame for display and checking: every layer,
// outer and inner, with each checksum recomputed from the bytes. It shares
// nothing with the datapath parser beyond constants, so it can cross-check it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "offlab/net/bytes.h"

namespace offlab {

enum class Verdict : uint8_t { kCorrect, kIncorrect, kAbsent /* e.g. UDP csum 0 */, kNotChecked };
const char* ToString(Verdict v);

// Layer names are static strings (views of literals): a receiving NIC model
// dissects every frame, and copying names into strings cost about a fifth of it.
struct ChecksumField {
  std::string_view layer;  // "ipv4", "tcp", "udp", "sctp", "icmp", "icmpv6", "gre"
  int depth = 0;           // 0 = outermost, 1 = first encapsulated, ...
  size_t offset = 0;       // of the checksum field in the frame
  uint32_t value = 0;
  uint32_t expected = 0;  // what a correct field would hold
  Verdict verdict = Verdict::kNotChecked;
};

struct Layer {
  // "eth", "vlan", "ipv4", "ipv6", "tcp", "udp", "vxlan", "geneve", "gre", ...
  std::string_view name;
  int depth = 0;
  size_t offset = 0;
  size_t length = 0;    // header length
  std::string summary;  // "192.168.123.2 > 192.168.123.1 ttl 0", "54392 > 5201 [A]"
};

struct Dissection {
  std::vector<Layer> layers;
  std::vector<ChecksumField> checksums;
  std::optional<std::string> error;  // first malformation found; layers up to it are kept
  std::string ToString() const;      // one line per layer, checksum verdicts inline
};

Dissection Dissect(const uint8_t* data, size_t len);
inline Dissection Dissect(const Bytes& b) { return Dissect(b.data(), b.size()); }
// The same layers, offsets and checksum verdicts without the layers' summary
// text (empty), for callers that only read the structure once per frame; the
// error, when there is one, is still described.
Dissection DissectQuiet(const uint8_t* data, size_t len);

}  // namespace offlab
