#include "offlab/nic/nic_profile.h"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "nic_profile_kernel.h"
#include "offlab/net/error.h"
#include "offlab/net/input_file.h"
#include "offlab/net/utf8.h"
#include "offlab/nic/caps.h"
#include "yaml_documents.h"

namespace offlab {

// Generated from models/profiles/*.yaml by models/embed_profiles.cmake.
const std::map<std::string, std::string>& BuiltinProfileTexts();

namespace {

// Bounds that reject typos (an extra digit, a sign) rather than describe any
// real device: the fastest Ethernet PHY today is 1.6 Tb/s, and no driver
// accepts a TSO frame beyond a few hundred KiB.
constexpr double kMaxLinkGbps = 1600;
constexpr int64_t kMinTsoBytes = 1500;
constexpr int64_t kMaxTsoBytes = int64_t{4} << 20;
constexpr int64_t kMaxTsoSegs = 65535;

constexpr std::string_view kRxPlainKeys[] = {"outer_ip", "outer_l4", "source"};
constexpr std::string_view kRxTunnelKeys[] = {"outer_ip", "outer_l4", "inner_ip", "inner_l4",
                                              "source"};

using Keys = std::vector<std::string>;

// Errors cross into logs and test reports verbatim, so they must stay on one
// line whatever bytes the profile (or a YAML error message) contained.
std::string OneLine(std::string s) {
  for (char& c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  return s;
}

std::string Join(const Keys& keys) {
  std::string out;
  for (const std::string& k : keys) {
    if (!out.empty()) out += ", ";
    out += k;
  }
  return out;
}

Keys AllCapNames() {
  Keys names;
  for (uint32_t bit = 1; bit & cap::kAll; bit <<= 1) names.push_back(CapsToString(bit));
  return names;
}

std::string LineOf(const YAML::Node& n) {
  const YAML::Mark m = n.Mark();
  if (m.is_null() || m.line < 0) return "";
  return " (line " + std::to_string(m.line + 1) + ")";
}

std::string KindOf(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Null:
      return "null";
    case YAML::NodeType::Scalar:
      return "a scalar";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a mapping";
    case YAML::NodeType::Undefined:
      break;
  }
  return "nothing";
}

// For messages: a scalar is quoted (and shortened), anything else is named.
std::string Shown(const YAML::Node& n) {
  if (!n.IsScalar()) return KindOf(n);
  std::string s = n.Scalar();
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return "'" + s + "'";
}

// yaml-cpp tags a quoted scalar "!" and a plain one "?": only plain scalars
// may be booleans or numbers, so that "true" in quotes is caught as a string.
bool IsPlainScalar(const YAML::Node& n) { return n.IsScalar() && n.Tag() != "!"; }

class ProfileParser {
 public:
  explicit ProfileParser(const std::string& expected_name)
      : expected_(expected_name), label_(expected_name.empty() ? "<unnamed>" : expected_name) {}

  NicProfile Parse(const std::string& text);

 private:
  [[noreturn]] void Fail(const std::string& what) const {
    throw Error(OneLine("profile " + label_ + ": " + what));
  }
  [[noreturn]] void Fail(const YAML::Node& at, const std::string& what) const {
    Fail(what + LineOf(at));
  }

  void ParseBody(const YAML::Node& root);
  void CheckKeys(const YAML::Node& map, const std::string& where, const std::string& key_noun,
                 const Keys& allowed, const Keys& required) const;
  std::string String(const YAML::Node& n, const std::string& what) const;
  bool Bool(const YAML::Node& n, const std::string& what) const;
  int64_t Integer(const YAML::Node& n, const std::string& what, int64_t lo, int64_t hi) const;
  double Real(const YAML::Node& n, const std::string& what, double lo, double hi) const;
  std::string Source(const YAML::Node& n, const std::string& what) const;

  // A `{value: ..., source: "..."}` entry: records the source under `key`
  // and returns the node holding the value.
  YAML::Node Sourced(const YAML::Node& n, const std::string& what, const std::string& key);
  RxValidation Rx(const YAML::Node& n, const std::string& kind, bool tunnel);
  void CheckConsistency() const;

  std::string expected_;
  std::string label_;
  NicProfile p_;
};

NicProfile ProfileParser::Parse(const std::string& text) {
  YamlDocuments docs;
  try {
    docs = LoadDocuments(text);
  } catch (const YAML::Exception& e) {
    std::string where;
    if (!e.mark.is_null() && e.mark.line >= 0) {
      where = " (line " + std::to_string(e.mark.line + 1) + ", column " +
              std::to_string(e.mark.column + 1) + ")";
    }
    Fail("malformed YAML: " + e.msg + where);
  }
  if (docs.first.IsNull()) Fail("empty document; expected a mapping");
  if (docs.count > 1) {
    Fail("expected one YAML document, found more (line " + std::to_string(docs.second.line + 1) +
         ")");
  }
  // Node accessors can still throw on shapes the checks above let through;
  // they are reported like any other profile error instead of escaping.
  try {
    ParseBody(docs.first);
  } catch (const YAML::Exception& e) {
    Fail("invalid profile: " + e.msg + LineOf(docs.first));
  }
  CheckConsistency();
  return std::move(p_);
}

void ProfileParser::CheckKeys(const YAML::Node& map, const std::string& where,
                              const std::string& key_noun, const Keys& allowed,
                              const Keys& required) const {
  if (!map.IsMap()) Fail(map, where + " must be a mapping, got " + KindOf(map));
  std::set<std::string> seen;
  for (const auto& kv : map) {
    if (!kv.first.IsScalar()) Fail(kv.first, where + " has a key that is " + KindOf(kv.first));
    const std::string& key = kv.first.Scalar();
    bool known = false;
    for (const std::string& a : allowed) known = known || a == key;
    if (!known) {
      Fail(kv.first, "unknown " + key_noun + " '" + key + "' in " + where +
                         " (known: " + Join(allowed) + ")");
    }
    if (!seen.insert(key).second) {
      Fail(kv.first, "duplicate " + key_noun + " '" + key + "' in " + where);
    }
  }
  for (const std::string& r : required) {
    if (!seen.count(r)) Fail(map, "missing " + key_noun + " '" + r + "' in " + where);
  }
}

std::string ProfileParser::String(const YAML::Node& n, const std::string& what) const {
  if (!n.IsScalar()) Fail(n, what + " must be a string, got " + KindOf(n));
  // yaml-cpp 0.7 writes the escapes \N and \_ as the single bytes 0x85 and
  // 0xa0 (src/exp.cpp Escape), which are not UTF-8.
  if (!IsValidUtf8(n.Scalar())) Fail(n, what + " is not valid UTF-8 text");
  return n.Scalar();
}

bool ProfileParser::Bool(const YAML::Node& n, const std::string& what) const {
  // Only the two canonical spellings: yes/no/on/off are booleans in YAML 1.1
  // but strings in YAML 1.2, so other loaders (Python's) could disagree.
  if (IsPlainScalar(n)) {
    if (n.Scalar() == "true") return true;
    if (n.Scalar() == "false") return false;
  }
  Fail(n, what + " must be true or false, got " + Shown(n));
}

int64_t ProfileParser::Integer(const YAML::Node& n, const std::string& what, int64_t lo,
                               int64_t hi) const {
  int64_t v = 0;
  if (IsPlainScalar(n)) {
    const std::string& s = n.Scalar();
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc::result_out_of_range) {
      Fail(n, what + " " + Shown(n) + " is out of range [" + std::to_string(lo) + ", " +
                  std::to_string(hi) + "]");
    }
    if (ec == std::errc() && end == s.data() + s.size() && !s.empty()) {
      if (v < lo || v > hi) {
        Fail(n, what + " " + s + " is out of range [" + std::to_string(lo) + ", " +
                    std::to_string(hi) + "]");
      }
      return v;
    }
  }
  Fail(n, what + " must be an integer, got " + Shown(n));
}

double ProfileParser::Real(const YAML::Node& n, const std::string& what, double lo,
                           double hi) const {
  double v = 0;
  if (IsPlainScalar(n)) {
    const std::string& s = n.Scalar();
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc() && end == s.data() + s.size() && !s.empty()) {
      if (!std::isfinite(v) || v < lo || v > hi) {
        std::ostringstream range;
        range << "[" << lo << ", " << hi << "]";
        Fail(n, what + " " + s + " is out of range " + range.str());
      }
      return v;
    }
  }
  Fail(n, what + " must be a number, got " + Shown(n));
}

std::string ProfileParser::Source(const YAML::Node& n, const std::string& what) const {
  std::string s = String(n, what + " source");
  if (s.find_first_not_of(" \t\r\n") == std::string::npos) Fail(n, what + " has an empty source");
  return s;
}

YAML::Node ProfileParser::Sourced(const YAML::Node& n, const std::string& what,
                                  const std::string& key) {
  CheckKeys(n, what, "key", {"value", "source"}, {"value", "source"});
  p_.sources[key] = Source(n["source"], what);
  return n["value"];
}

RxValidation ProfileParser::Rx(const YAML::Node& n, const std::string& kind, bool tunnel) {
  const std::string where = "rx '" + kind + "'";
  Keys keys;
  if (tunnel) {
    keys.assign(std::begin(kRxTunnelKeys), std::end(kRxTunnelKeys));
  } else {
    keys.assign(std::begin(kRxPlainKeys), std::end(kRxPlainKeys));
  }
  CheckKeys(n, where, "key", keys, keys);
  RxValidation rx;
  rx.outer_ip = Bool(n["outer_ip"], where + " outer_ip");
  rx.outer_l4 = Bool(n["outer_l4"], where + " outer_l4");
  if (tunnel) {
    rx.inner_ip = Bool(n["inner_ip"], where + " inner_ip");
    rx.inner_l4 = Bool(n["inner_l4"], where + " inner_l4");
  }
  p_.sources["rx_" + kind] = Source(n["source"], where);
  return rx;
}

void ProfileParser::ParseBody(const YAML::Node& root) {
  const Keys top = {"name",
                    "description",
                    "driver",
                    "link_gbps",
                    "tx",
                    "rx",
                    "rx_partial_from_guest",
                    "lro",
                    "gro",
                    "max_tso_bytes",
                    "max_tso_segs",
                    "quirks",
                    "notes",
                    "kernel"};
  Keys required = top;
  required.pop_back();  // kernel (NICs without a Linux driver have none)
  required.pop_back();  // notes
  CheckKeys(root, "the top level", "key", top, required);

  const YAML::Node name = root["name"];
  p_.name = String(name, "'name'");
  bool valid_name = !p_.name.empty() && p_.name.size() <= 64;
  for (char c : p_.name) {
    valid_name = valid_name && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_');
  }
  if (!valid_name) Fail(name, "'name' " + Shown(name) + " must match [a-z0-9_]{1,64}");
  if (expected_.empty()) {
    label_ = p_.name;
  } else if (p_.name != expected_) {
    Fail(name, "'name' " + Shown(name) + " does not match the profile name '" + expected_ + "'");
  }

  p_.description = String(root["description"], "'description'");
  if (p_.description.empty()) Fail(root["description"], "'description' is empty");
  p_.driver = String(root["driver"], "'driver'");
  if (p_.driver.empty()) Fail(root["driver"], "'driver' is empty");

  p_.link_gbps = Real(Sourced(root["link_gbps"], "'link_gbps'", "link_gbps"), "'link_gbps' value",
                      0, kMaxLinkGbps);

  const Keys caps = AllCapNames();
  const YAML::Node tx = root["tx"];
  CheckKeys(tx, "'tx'", "tx capability", caps, caps);
  for (const std::string& c : caps) {
    const std::string what = "tx capability '" + c + "'";
    if (Bool(Sourced(tx[c], what, c), what + " value")) p_.tx_caps |= CapFromName(c);
  }

  const YAML::Node rx = root["rx"];
  const Keys kinds = {"plain", "vxlan", "geneve", "gre"};
  CheckKeys(rx, "'rx'", "rx packet kind", kinds, kinds);
  p_.rx_plain = Rx(rx["plain"], "plain", false);
  p_.rx_vxlan = Rx(rx["vxlan"], "vxlan", true);
  p_.rx_geneve = Rx(rx["geneve"], "geneve", true);
  p_.rx_gre = Rx(rx["gre"], "gre", true);

  auto sourced_bool = [&](const char* key) {
    const std::string what = std::string("'") + key + "'";
    return Bool(Sourced(root[key], what, key), what + " value");
  };
  p_.rx_partial_from_guest = sourced_bool("rx_partial_from_guest");
  p_.lro = sourced_bool("lro");
  p_.gro = sourced_bool("gro");
  p_.max_tso_bytes = static_cast<uint32_t>(
      Integer(Sourced(root["max_tso_bytes"], "'max_tso_bytes'", "max_tso_bytes"),
              "'max_tso_bytes' value", kMinTsoBytes, kMaxTsoBytes));
  p_.max_tso_segs =
      static_cast<uint16_t>(Integer(Sourced(root["max_tso_segs"], "'max_tso_segs'", "max_tso_segs"),
                                    "'max_tso_segs' value", 0, kMaxTsoSegs));

  const YAML::Node quirks = root["quirks"];
  const Keys quirk_names = {"outer_udp_needs_pseudo_seed", "outer_udp_left_as_is"};
  const Keys optional_quirks = {"outer_udp_needs_pseudo_seed", "outer_udp_left_as_is",
                                "rx_zero_udp_csum_literal", "tso_ipv4_only"};
  CheckKeys(quirks, "'quirks'", "quirk", optional_quirks, quirk_names);
  auto quirk = [&](const std::string& q) {
    const std::string what = "quirk '" + q + "'";
    return Bool(Sourced(quirks[q], what, q), what + " value");
  };
  p_.outer_udp_needs_pseudo_seed = quirk("outer_udp_needs_pseudo_seed");
  p_.outer_udp_left_as_is = quirk("outer_udp_left_as_is");
  if (quirks["rx_zero_udp_csum_literal"]) {
    p_.rx_zero_udp_csum_literal = quirk("rx_zero_udp_csum_literal");
  }
  if (quirks["tso_ipv4_only"]) p_.tso_ipv4_only = quirk("tso_ipv4_only");

  if (root["kernel"]) {
    p_.kernel = profile_detail::ParseKernelSection(
        root["kernel"], [this](const YAML::Node& at, const std::string& what) { Fail(at, what); });
  }

  if (root["notes"]) {
    const YAML::Node notes = root["notes"];
    if (!notes.IsSequence()) Fail(notes, "'notes' must be a list of strings, got " + KindOf(notes));
    for (const YAML::Node& note : notes) {
      std::string s = String(note, "each note");
      if (s.find_first_not_of(" \t\r\n") == std::string::npos) Fail(note, "a note is empty");
      p_.notes.push_back(std::move(s));
    }
  }
}

// Combinations that no device can have; each one has been a real source of
// wrong checksums when a model (or a driver) got it wrong.
void ProfileParser::CheckConsistency() const {
  for (uint32_t tnl : {cap::kVxlanTnlTso, cap::kGeneveTnlTso, cap::kGreTnlTso}) {
    if ((p_.tx_caps & tnl) && !(p_.tx_caps & cap::kTcpTso)) {
      Fail("tx capability '" + CapsToString(tnl) + "' requires 'tcp_tso'");
    }
  }
  if (p_.outer_udp_left_as_is && (p_.tx_caps & cap::kOuterUdpCksum)) {
    Fail("quirk 'outer_udp_left_as_is' contradicts tx capability 'outer_udp_cksum'");
  }
  if (p_.outer_udp_needs_pseudo_seed && !(p_.tx_caps & cap::kOuterUdpCksum)) {
    Fail("quirk 'outer_udp_needs_pseudo_seed' requires tx capability 'outer_udp_cksum'");
  }
}

Keys BuiltinNames() {
  Keys names;
  for (const auto& [name, text] : BuiltinProfileTexts()) names.push_back(name);
  return names;
}

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
  return ProfileParser(name).Parse(yaml_text);
}

NicProfile LoadProfileFile(const std::string& path) {
  const std::filesystem::path fs_path(path);
  const std::string stem = fs_path.stem().string();
  const std::string label = stem.empty() ? path : stem;
  std::string text;
  try {
    text = ReadInputFile(path,
                         "profile " + label + ": cannot read '" + path + "': ", InputKind::kYaml);
  } catch (const Error& e) {
    throw Error(OneLine(e.what()));
  }
  return ParseProfile(text, stem);
}

NicProfile BuiltinProfile(const std::string& name) {
  // Parsed once: every pipeline port and simulated NIC asks again (YAML
  // parsing was most of a fuzz input's time in a pipeline).
  static const std::map<std::string, NicProfile> parsed = [] {
    std::map<std::string, NicProfile> out;
    for (const auto& [n, text] : BuiltinProfileTexts()) out.emplace(n, ParseProfile(text, n));
    return out;
  }();
  const auto it = parsed.find(name);
  if (it == parsed.end()) {
    throw Error(OneLine("profile " + name + ": no built-in profile of that name (known: " +
                        Join(BuiltinNames()) + ")"));
  }
  return it->second;
}

std::vector<std::string> BuiltinProfileNames() { return BuiltinNames(); }

}  // namespace offlab
