// OVS-style coverage counters (lib/coverage.h names), e.g.
// "native_tnl_l3csum_checked", "dp_packet_gso", "conntrack_l4csum_err".
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace offlab {

class Counters {
 public:
  void Inc(const std::string& name, uint64_t n = 1) { values_[name] += n; }
  uint64_t Get(const std::string& name) const {
    auto it = values_.find(name);
    return it == values_.end() ? 0 : it->second;
  }
  const std::map<std::string, uint64_t>& values() const { return values_; }
  void Clear() { values_.clear(); }

 private:
  std::map<std::string, uint64_t> values_;
};

// Counts into `c` when a caller passed counters.
inline void Count(Counters* c, const char* name, uint64_t n = 1) {
  if (c) c->Inc(name, n);
}

}  // namespace offlab
