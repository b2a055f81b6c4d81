#include "flow_ct_state.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>

#include "offlab/net/error.h"
#include "offlab/net/packet.h"

namespace offlab::flow_syntax {

namespace {

// The ct_state bit a flag name stands for (CS_STATES, openvswitch/ovs v3.1.0
// lib/packets.h:908-916), 0 for none.
uint32_t CtStateBit(std::string_view f) {
  return f == "new"    ? ct::kNew
         : f == "est"  ? ct::kEstablished
         : f == "rel"  ? ct::kRelated
         : f == "rpl"  ? ct::kReplyDir
         : f == "inv"  ? ct::kInvalid
         : f == "trk"  ? ct::kTracked
         : f == "snat" ? ct::kSrcNat
         : f == "dnat" ? ct::kDstNat
                       : 0;
}

// A number as sscanf's %i reads it (decimal, 0x hex or 0 octal), the whole
// of `s`; nullopt if it is not one.
std::optional<uint64_t> FlagNumber(const std::string& s) {
  if (s.empty() || !std::isdigit(static_cast<unsigned char>(s[0]))) return std::nullopt;
  size_t used = 0;
  uint64_t v = 0;
  try {
    v = std::stoull(s, &used, 0);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used != s.size()) return std::nullopt;
  return v;
}

// ct_state as parse_flags reads it (openvswitch/ovs v3.1.0 lib/flow.c:1605-1750,
// the messages as ovs-ofctl 3.1.0 gives them): VALUE/MASK in numbers;
// +flag-flag, each flag once, matching the named bits; or flag names and
// numbers joined by '|', matching the whole state exactly (mask UINT32_MAX).
}  // namespace

void ParseCtState(const std::string& v, Match& m) {
  constexpr uint32_t kSupported = 0xff;  // CS_SUPPORTED_MASK
  const std::string unknown = "ct_state: " + v + ": unknown ct_state flag(s)";
  if (const size_t slash = v.find('/'); slash != std::string::npos) {
    const auto value = FlagNumber(v.substr(0, slash)), mask = FlagNumber(v.substr(slash + 1));
    if (!value || !mask || (*value & ~uint64_t{kSupported}) || (*mask & ~uint64_t{kSupported})) {
      throw Error(unknown);
    }
    m.ct_state_value = static_cast<uint32_t>(*value & *mask);
    m.ct_state_mask = static_cast<uint32_t>(*mask);
    return;
  }
  if (!v.empty() && (v[0] == '+' || v[0] == '-')) {
    uint32_t value = 0, mask = 0;
    for (size_t i = 0; i < v.size();) {
      const char sign = v[i];
      if (sign != '+' && sign != '-') {
        throw Error("ct_state: " + v.substr(i) +
                    ": ct_state must be preceded by '+' (for SET) or '-' (NOT SET)");
      }
      const size_t j = v.find_first_of("+-", i + 1);
      const std::string f = v.substr(i + 1, j == std::string::npos ? j : j - i - 1);
      const uint32_t bit = CtStateBit(f);
      if (!bit) throw Error("ct_state: '" + f + "': unknown ct_state flag(s)");
      if (mask & bit) {
        throw Error("ct_state: " + v.substr(i + 1) +
                    ": Each ct_state flag can be specified only once");
      }
      mask |= bit;
      if (sign == '+') value |= bit;
      i = j == std::string::npos ? v.size() : j;
    }
    m.ct_state_value = value;
    m.ct_state_mask = mask;
    return;
  }
  // An empty value is no match on ct_state, as ovs-ofctl takes "ct_state=".
  if (v.empty()) return;
  // Each element is a flag name or a number, one '|' after it (a last one
  // included: "trk|" is "trk").
  uint32_t value = 0;
  for (size_t i = 0; i < v.size();) {
    const size_t j = std::min(v.find('|', i), v.size());
    const std::string f = v.substr(i, j - i);
    const auto number = FlagNumber(f);
    const uint64_t bits = number ? *number : CtStateBit(f);
    if ((number && (bits & ~uint64_t{kSupported})) || (!number && !bits)) throw Error(unknown);
    value |= static_cast<uint32_t>(bits);
    i = j + 1;
  }
  m.ct_state_value = value;
  m.ct_state_mask = UINT32_MAX;
}

}  // namespace offlab::flow_syntax
