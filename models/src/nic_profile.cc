#include "offlab/nic_profile.h"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <set>
#include <sstream>

#include "offlab/caps.h"
#include "offlab/error.h"

namespace offlab {

const std::map<std::string, std::string>& BuiltinProfileTexts();

namespace {

constexpr const char* kCapNames[] = {
    "ipv4_cksum",    "tcp_cksum",      "udp_cksum",      "sctp_cksum",      "tcp_tso",
    "vxlan_tnl_tso", "geneve_tnl_tso", "outer_ip_cksum", "outer_udp_cksum", "gre_tnl_tso"};

class Reader {
 public:
  explicit Reader(std::string name) : name_(std::move(name)) {}

  [[noreturn]] void Fail(const std::string& what) const {
    throw Error("profile " + name_ + ": " + what);
  }

  void OnlyKeys(const YAML::Node& n, const std::string& where,
                const std::set<std::string>& allowed) const {
    if (!n.IsMap()) Fail(where + " must be a mapping");
    for (const auto& kv : n) {
      std::string k = kv.first.as<std::string>();
      if (!allowed.count(k)) {
        std::string list;
        for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
        Fail("unknown key '" + k + "' in " + where + " (known: " + list + ")");
      }
    }
  }

  YAML::Node Need(const YAML::Node& n, const std::string& key, const std::string& where) const {
    if (!n[key]) Fail("missing '" + key + "' in " + where);
    return n[key];
  }

  template <typename T>
  T As(const YAML::Node& n, const std::string& where) const {
    try {
      return n.as<T>();
    } catch (const YAML::Exception&) {
      Fail(where + " has the wrong type");
    }
  }

  // {value: X, source: "..."}: the value, with its source recorded.
  template <typename T>
  T Sourced(const YAML::Node& parent, const std::string& key, const std::string& where,
            NicProfile& p) const {
    const std::string path = where + "." + key;
    YAML::Node n = Need(parent, key, where);
    OnlyKeys(n, path, {"value", "source"});
    std::string src = As<std::string>(Need(n, "source", path), path + ".source");
    if (src.empty()) Fail(path + ".source is empty");
    p.sources[path] = src;
    return As<T>(Need(n, "value", path), path + ".value");
  }

  RxValidation Rx(const YAML::Node& rx, const std::string& kind, NicProfile& p) const {
    const std::string path = "rx." + kind;
    YAML::Node n = Need(rx, kind, "rx");
    OnlyKeys(n, path, {"outer_ip", "outer_l4", "inner_ip", "inner_l4", "source"});
    std::string src = As<std::string>(Need(n, "source", path), path + ".source");
    if (src.empty()) Fail(path + ".source is empty");
    p.sources[path] = src;
    RxValidation v;
    v.outer_ip = As<bool>(Need(n, "outer_ip", path), path + ".outer_ip");
    v.outer_l4 = As<bool>(Need(n, "outer_l4", path), path + ".outer_l4");
    v.inner_ip = n["inner_ip"] ? As<bool>(n["inner_ip"], path + ".inner_ip") : false;
    v.inner_l4 = n["inner_l4"] ? As<bool>(n["inner_l4"], path + ".inner_l4") : false;
    if (kind == "plain" && (v.inner_ip || v.inner_l4))
      Fail(path + " cannot validate inner headers");
    return v;
  }

 private:
  std::string name_;
};

}  // namespace

const RxValidation& NicProfile::rx_for(TunnelType t) const {
  switch (t) {
    case TunnelType::kVxlan:
      return rx_vxlan;
    case TunnelType::kGeneve:
      return rx_geneve;
    case TunnelType::kGre:
      return rx_gre;
    case TunnelType::kNone:
      break;
  }
  return rx_plain;
}

NicProfile ParseProfile(const std::string& yaml_text, const std::string& name) {
  Reader r(name);
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    r.Fail("malformed YAML at line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  if (!root.IsMap()) r.Fail("top level must be a mapping");
  r.OnlyKeys(root, "the profile",
             {"name", "description", "driver", "link_gbps", "tx", "rx", "coalescing", "limits",
              "quirks", "notes"});
  NicProfile p;
  p.name = r.As<std::string>(r.Need(root, "name", "the profile"), "name");
  if (p.name != name) r.Fail("name '" + p.name + "' does not match the file name");
  p.description = r.As<std::string>(r.Need(root, "description", "the profile"), "description");
  p.driver = r.As<std::string>(r.Need(root, "driver", "the profile"), "driver");
  p.link_gbps = r.As<double>(r.Need(root, "link_gbps", "the profile"), "link_gbps");
  if (!(p.link_gbps > 0 && p.link_gbps <= 1600)) r.Fail("link_gbps must be in (0, 1600]");

  YAML::Node tx = r.Need(root, "tx", "the profile");
  std::set<std::string> cap_names(std::begin(kCapNames), std::end(kCapNames));
  r.OnlyKeys(tx, "tx", cap_names);
  for (const char* cap : kCapNames) {
    if (r.Sourced<bool>(tx, cap, "tx", p)) p.tx_caps |= CapFromName(cap);
  }

  YAML::Node rx = r.Need(root, "rx", "the profile");
  r.OnlyKeys(rx, "rx", {"plain", "vxlan", "geneve", "gre", "partial_from_guest"});
  p.rx_plain = r.Rx(rx, "plain", p);
  p.rx_vxlan = r.Rx(rx, "vxlan", p);
  p.rx_geneve = r.Rx(rx, "geneve", p);
  p.rx_gre = r.Rx(rx, "gre", p);
  p.rx_partial_from_guest = r.Sourced<bool>(rx, "partial_from_guest", "rx", p);

  YAML::Node co = r.Need(root, "coalescing", "the profile");
  r.OnlyKeys(co, "coalescing", {"lro", "gro"});
  p.lro = r.Sourced<bool>(co, "lro", "coalescing", p);
  p.gro = r.Sourced<bool>(co, "gro", "coalescing", p);

  YAML::Node lim = r.Need(root, "limits", "the profile");
  r.OnlyKeys(lim, "limits", {"max_tso_bytes", "max_tso_segs"});
  int64_t bytes = r.Sourced<int64_t>(lim, "max_tso_bytes", "limits", p);
  int64_t segs = r.Sourced<int64_t>(lim, "max_tso_segs", "limits", p);
  if (bytes < 1500 || bytes > (1 << 20)) r.Fail("limits.max_tso_bytes must be in [1500, 1048576]");
  if (segs < 0 || segs > 65535) r.Fail("limits.max_tso_segs must be in [0, 65535]");
  p.max_tso_bytes = static_cast<uint32_t>(bytes);
  p.max_tso_segs = static_cast<uint16_t>(segs);

  YAML::Node q = r.Need(root, "quirks", "the profile");
  r.OnlyKeys(q, "quirks", {"outer_udp_needs_pseudo_seed", "outer_udp_left_as_is"});
  p.outer_udp_needs_pseudo_seed = r.Sourced<bool>(q, "outer_udp_needs_pseudo_seed", "quirks", p);
  p.outer_udp_left_as_is = r.Sourced<bool>(q, "outer_udp_left_as_is", "quirks", p);

  if (root["notes"]) {
    if (!root["notes"].IsSequence()) r.Fail("notes must be a list of strings");
    for (const auto& n : root["notes"]) p.notes.push_back(r.As<std::string>(n, "notes"));
  }
  return p;
}

NicProfile LoadProfileFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("profile file " + path + ": cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  std::string stem = path.substr(path.find_last_of('/') + 1);
  stem = stem.substr(0, stem.find('.'));
  return ParseProfile(text.str(), stem);
}

NicProfile BuiltinProfile(const std::string& name) {
  const auto& texts = BuiltinProfileTexts();
  auto it = texts.find(name);
  if (it == texts.end()) {
    std::string known;
    for (const auto& [n, t] : texts) known += (known.empty() ? "" : ", ") + n;
    throw Error("unknown NIC profile '" + name + "' (known: " + known + ")");
  }
  return ParseProfile(it->second, name);
}

std::vector<std::string> BuiltinProfileNames() {
  std::vector<std::string> names;
  for (const auto& [n, t] : BuiltinProfileTexts()) names.push_back(n);
  return names;
}

}  // namespace offlab
