// OVS-style coverage counters (lib/coverage.h names), e.g.
// "native_tnl_l3csum_checked", "dp_packet_gso", "conntrack_l4csum_err".
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace offlab {

class Counters {
 public:
  // Keys compare as string views: counting a name already seen allocates nothing.
  using Map = std::map<std::string, uint64_t, std::less<>>;

  Counters() = default;
  Counters(const Counters& o) : values_(o.values_) { Reindex(); }
  Counters(Counters&& o) noexcept : values_(std::move(o.values_)), index_(std::move(o.index_)) {
    o.Clear();
  }
  Counters& operator=(const Counters& o) {
    if (this != &o) {
      values_ = o.values_;
      Reindex();
    }
    return *this;
  }
  Counters& operator=(Counters&& o) noexcept {
    if (this != &o) {
      values_ = std::move(o.values_);
      index_ = std::move(o.index_);
      o.Clear();
    }
    return *this;
  }

  void Inc(std::string_view name, uint64_t n = 1) {
    // Every frame counts several names: a hash lookup finds a known one with
    // one comparison where the ordered map would walk its tree.
    auto hit = index_.find(name);
    if (hit != index_.end()) {
      *hit->second += n;
      return;
    }
    auto it = values_.emplace(std::string(name), 0).first;
    // Map nodes do not move, so the index may point at their keys and values.
    index_.emplace(std::string_view(it->first), &it->second);
    it->second += n;
  }
  uint64_t Get(std::string_view name) const {
    auto it = index_.find(name);
    return it == index_.end() ? 0 : *it->second;
  }
  // In name order.
  const Map& values() const { return values_; }
  void Clear() {
    index_.clear();
    values_.clear();
  }

 private:
  void Reindex() {
    index_.clear();
    for (auto& [k, v] : values_) index_.emplace(std::string_view(k), &v);
  }

  Map values_;
  std::unordered_map<std::string_view, uint64_t*> index_;
};

// Counts into `c` when a caller passed counters.
inline void Count(Counters* c, const char* name, uint64_t n = 1) {
  if (c) c->Inc(name, n);
}

}  // namespace offlab
