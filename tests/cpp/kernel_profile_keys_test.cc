// A NIC profile's `kernel:` section names each of its required keys when one
// is missing (and a sourced value without its `source`), rather than failing
// later on whatever reads it.
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/error.h"
#include "offlab/nic/nic_profile.h"

namespace offlab {
// Generated from models/profiles/*.yaml (models/embed_profiles.cmake).
const std::map<std::string, std::string>& BuiltinProfileTexts();

namespace {

std::string Error(const std::string& text) {
  try {
    ParseProfile(text, "dummy");
  } catch (const offlab::Error& e) {
    return e.what();
  }
  return "";
}

TEST(KernelProfileKeys, EachMissingRequiredKeyIsNamed) {
  const std::string base = BuiltinProfileTexts().at("dummy");
  const char* lines[][2] = {
      {"driver", "  driver: {value: ice, source: s}\n"},
      {"features", "  features: {value: [rx-checksum], source: s}\n"},
      {"hw_enc_features", "  hw_enc_features: {value: [], source: s}\n"},
      {"rx_csum", "  rx_csum: {value: unnecessary, source: s}\n"},
      {"tunnel_csum_level", "  tunnel_csum_level: {value: 1, source: s}\n"},
      {"tunnels", "  tunnels: {value: [vxlan], source: s}\n"},
      {"rx_buffers", "  rx_buffers: {value: page_frags, source: s}\n"},
      {"csum_err_stat", "  csum_err_stat: {value: x, source: s}\n"},
  };
  std::string all = "kernel:\n";
  for (const auto& l : lines) all += l[1];
  ASSERT_EQ(Error(base + all), "");
  for (const auto& l : lines) {
    std::string k = all;
    k.erase(k.find(l[1]), std::string(l[1]).size());
    const std::string e = Error(base + k);
    EXPECT_NE(e.find("missing key '" + std::string(l[0]) + "'"), std::string::npos)
        << l[0] << ": " << e;
  }
  // A sourced value without its source.
  std::string k = all;
  const std::string from = "{value: x, source: s}";
  k.replace(k.find(from), from.size(), "{value: x}");
  EXPECT_NE(Error(base + k).find("missing key 'source'"), std::string::npos) << Error(base + k);
}

TEST(KernelProfileKeys, AKeyThatIsNotAScalarIsNamedAsSuch) {
  const std::string base = BuiltinProfileTexts().at("dummy");
  // YAML's complex key: a sequence as a mapping's key, in the kernel section
  // and in one of its sourced values.
  const std::string kernel =
      "kernel:\n  driver: {value: ice, source: s}\n  features: {value: [rx-checksum], source: "
      "s}\n  hw_enc_features: {value: [], source: s}\n  rx_csum: {value: unnecessary, source: "
      "s}\n  tunnel_csum_level: {value: 1, source: s}\n  tunnels: {value: [vxlan], source: "
      "s}\n  rx_buffers: {value: page_frags, source: s}\n  csum_err_stat: {value: x, source: "
      "s}\n";
  ASSERT_EQ(Error(base + kernel), "");
  const std::string e = Error(base + kernel + "  ? [a, b]\n  : 1\n");
  EXPECT_NE(e.find("'kernel' has a key that is not a scalar"), std::string::npos) << e;
  std::string in_value = kernel;
  in_value.replace(in_value.find("{value: x, source: s}"), 21, "{value: x, source: s, [c]: 2}");
  const std::string e2 = Error(base + in_value);
  EXPECT_NE(e2.find("has a key that is not a scalar"), std::string::npos) << e2;
}

}  // namespace
}  // namespace offlab
