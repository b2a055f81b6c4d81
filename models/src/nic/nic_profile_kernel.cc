#include "nic_profile_kernel.h"

#include <map>
#include <set>
#include <string_view>
#include <vector>

#include "offlab/net/utf8.h"

namespace offlab {

const char* RxCsumName(KernelNicView::RxCsum r) {
  switch (r) {
    case KernelNicView::RxCsum::kNone:
      return "none";
    case KernelNicView::RxCsum::kUnnecessary:
      return "unnecessary";
    case KernelNicView::RxCsum::kComplete:
      return "complete";
    case KernelNicView::RxCsum::kVnetHdr:
      return "vnet_hdr";
  }
  return "?";
}

namespace profile_detail {

namespace {

using Keys = std::vector<std::string>;

const Keys kKernelKeys = {
    "driver",  "features",   "hw_enc_features", "rx_csum",           "tunnel_csum_level",
    "tunnels", "rx_buffers", "csum_err_stat",   "outer_ip_err_stat", "quirks",
    "notes"};
const Keys kKernelRequired = {"driver",     "features",          "hw_enc_features",
                              "rx_csum",    "tunnel_csum_level", "tunnels",
                              "rx_buffers", "csum_err_stat"};
const Keys kQuirks = {"udp_zero_csum_erratum", "icmp_unverified", "csum_good_unverified",
                      "null_tcp_csum_partial", "active_trunk",    "tunnel_outer_udp_unverified"};
const Keys kTunnels = {"vxlan", "geneve", "gre"};

std::string Join(const Keys& keys) {
  std::string out;
  for (const std::string& k : keys) out += (out.empty() ? "" : ", ") + k;
  return out;
}

class KernelParser {
 public:
  explicit KernelParser(const FailAt& fail) : fail_(fail) {}

  KernelNicView Parse(const YAML::Node& n) {
    CheckKeys(n, "'kernel'", kKernelKeys, kKernelRequired);
    KernelNicView v;
    sources_ = &v.sources;
    v.driver = String(Sourced(n["driver"], "driver"), "kernel driver");
    if (v.driver.empty()) fail_(n["driver"], "kernel driver is empty");
    v.features = Names(Sourced(n["features"], "features"), "kernel features");
    v.hw_enc_features =
        Names(Sourced(n["hw_enc_features"], "hw_enc_features"), "kernel hw_enc_features");
    const YAML::Node rx = Sourced(n["rx_csum"], "rx_csum");
    const std::string rx_csum = String(rx, "kernel rx_csum");
    if (rx_csum == "none") {
      v.rx_csum = KernelNicView::RxCsum::kNone;
    } else if (rx_csum == "unnecessary") {
      v.rx_csum = KernelNicView::RxCsum::kUnnecessary;
    } else if (rx_csum == "complete") {
      v.rx_csum = KernelNicView::RxCsum::kComplete;
    } else if (rx_csum == "vnet_hdr") {
      v.rx_csum = KernelNicView::RxCsum::kVnetHdr;
    } else {
      fail_(rx,
            "kernel rx_csum '" + rx_csum + "' is not one of none, unnecessary, complete, vnet_hdr");
    }
    const YAML::Node level = Sourced(n["tunnel_csum_level"], "tunnel_csum_level");
    const std::string lv = String(level, "kernel tunnel_csum_level");
    if (lv != "0" && lv != "1") fail_(level, "kernel tunnel_csum_level must be 0 or 1");
    v.tunnel_csum_level = static_cast<uint8_t>(lv[0] - '0');
    const YAML::Node tunnels = Sourced(n["tunnels"], "tunnels");
    v.tunnels = Names(tunnels, "kernel tunnels");
    for (size_t i = 0; i < v.tunnels.size(); ++i) {
      bool known = false;
      for (const std::string& t : kTunnels) known = known || t == v.tunnels[i];
      if (!known)
        fail_(tunnels[i], "kernel tunnel '" + v.tunnels[i] + "' is not one of " + Join(kTunnels));
    }
    const YAML::Node buf = Sourced(n["rx_buffers"], "rx_buffers");
    const std::string b = String(buf, "kernel rx_buffers");
    if (b != "page_frags" && b != "linear_copy")
      fail_(buf, "kernel rx_buffers '" + b + "' is not page_frags or linear_copy");
    v.rx_page_frags = b == "page_frags";
    v.csum_err_stat = String(Sourced(n["csum_err_stat"], "csum_err_stat"), "kernel csum_err_stat");
    if (n["outer_ip_err_stat"])
      v.outer_ip_err_stat =
          String(Sourced(n["outer_ip_err_stat"], "outer_ip_err_stat"), "kernel outer_ip_err_stat");
    if (n["quirks"]) Quirks(n["quirks"], &v);
    if (n["notes"]) {
      const YAML::Node notes = n["notes"];
      if (!notes.IsSequence()) fail_(notes, "kernel notes must be a list of strings");
      for (const YAML::Node& note : notes) v.notes.push_back(String(note, "a kernel note"));
    }
    return v;
  }

 private:
  void CheckKeys(const YAML::Node& map, const std::string& where, const Keys& allowed,
                 const Keys& required) const {
    if (!map.IsMap()) fail_(map, where + " must be a mapping");
    std::set<std::string> seen;
    for (const auto& kv : map) {
      if (!kv.first.IsScalar()) fail_(kv.first, where + " has a key that is not a scalar");
      const std::string& key = kv.first.Scalar();
      bool known = false;
      for (const std::string& a : allowed) known = known || a == key;
      if (!known)
        fail_(kv.first,
              "unknown key '" + key + "' in " + where + " (known: " + Join(allowed) + ")");
      if (!seen.insert(key).second) fail_(kv.first, "duplicate key '" + key + "' in " + where);
    }
    for (const std::string& r : required)
      if (!seen.count(r)) fail_(map, "missing key '" + r + "' in " + where);
  }

  std::string String(const YAML::Node& n, const std::string& what) const {
    if (!n.IsScalar()) fail_(n, what + " must be a string");
    if (!IsValidUtf8(n.Scalar()))
      fail_(n, what + " is not valid UTF-8 text");  // see nic_profile.cc
    return n.Scalar();
  }

  bool Bool(const YAML::Node& n, const std::string& what) const {
    // Plain true/false only, as in the rest of a profile.
    if (n.IsScalar() && n.Tag() != "!") {
      if (n.Scalar() == "true") return true;
      if (n.Scalar() == "false") return false;
    }
    fail_(n, what + " must be true or false");
    return false;
  }

  // A `{value: ..., source: "..."}` entry under `kernel.<key>`.
  YAML::Node Sourced(const YAML::Node& n, const std::string& key) {
    const std::string where = "kernel " + key;
    CheckKeys(n, where, {"value", "source"}, {"value", "source"});
    const std::string src = String(n["source"], where + " source");
    if (src.find_first_not_of(" \t\r\n") == std::string::npos)
      fail_(n["source"], where + " has an empty source");
    (*sources_)[key] = src;
    return n["value"];
  }

  std::vector<std::string> Names(const YAML::Node& n, const std::string& what) const {
    if (!n.IsSequence()) fail_(n, what + " must be a list of ethtool feature names");
    std::vector<std::string> out;
    std::set<std::string> seen;
    for (const YAML::Node& e : n) {
      std::string s = String(e, "each of " + what);
      if (!seen.insert(s).second) fail_(e, what + " lists '" + s + "' twice");
      out.push_back(std::move(s));
    }
    return out;
  }

  void Quirks(const YAML::Node& q, KernelNicView* v) {
    CheckKeys(q, "'kernel quirks'", kQuirks, {});
    bool* fields[] = {&v->udp_zero_csum_erratum, &v->icmp_unverified,
                      &v->csum_good_unverified,  &v->null_tcp_csum_partial,
                      &v->active_trunk,          &v->tunnel_outer_udp_unverified};
    for (size_t i = 0; i < kQuirks.size(); ++i) {
      if (!q[kQuirks[i]]) continue;
      *fields[i] =
          Bool(Sourced(q[kQuirks[i]], "quirks." + kQuirks[i]), "kernel quirk " + kQuirks[i]);
    }
  }

  std::map<std::string, std::string>* sources_ = nullptr;
  const FailAt& fail_;
};

}  // namespace

KernelNicView ParseKernelSection(const YAML::Node& node, const FailAt& fail) {
  return KernelParser(fail).Parse(node);
}

}  // namespace profile_detail
}  // namespace offlab
