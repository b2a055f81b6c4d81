// OVS-style coverage counters (lib/coverage.h names), e.g.
// "native_tnl_l3csum_checked", "dp_packet_gso", "conntrack_l4csum_err".
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

namespace offlab {

class Counters {
 public:
  // Keys compare as string views: counting a name already seen allocates nothing.
  using Map = std::map<std::string, uint64_t, std::less<>>;

  void Inc(std::string_view name, uint64_t n = 1) {
    auto it = values_.find(name);
    if (it == values_.end()) it = values_.emplace(std::string(name), 0).first;
    it->second += n;
  }
  uint64_t Get(std::string_view name) const {
    auto it = values_.find(name);
    return it == values_.end() ? 0 : it->second;
  }
  const Map& values() const { return values_; }
  void Clear() { values_.clear(); }

 private:
  Map values_;
};

// Counts into `c` when a caller passed counters.
inline void Count(Counters* c, const char* name, uint64_t n = 1) {
  if (c) c->Inc(name, n);
}

}  // namespace offlab
