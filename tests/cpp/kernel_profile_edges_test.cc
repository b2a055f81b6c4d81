// SPDX-License-Identifier: Apache-2.0
//
// A NIC profile's `kernel:` section (models/src/nic/nic_profile_kernel.cc):
// each value read into its field (rx_csum by its four names, the tunnel
// checksum level 0 or 1 as skb->csum_level is, rx buffers page frags or a
// linear copy, the optional outer IP error counter), and each refusal named:
// an empty driver, an rx_csum, level, tunnel or buffer kind outside its set,
// a feature listed twice or not a list, notes that are not a list, a key
// given twice, a source that says nothing. The section is the one
// kernel_profile_keys_test.cc builds on the dummy profile, changed in one
// place per case.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "offlab/net/error.h"
#include "offlab/nic/nic_profile.h"

namespace offlab {
const std::map<std::string, std::string>& BuiltinProfileTexts();

namespace {

const std::string kKernel =
    "kernel:\n"
    "  driver: {value: ice, source: s}\n"
    "  features: {value: [rx-checksum], source: s}\n"
    "  hw_enc_features: {value: [], source: s}\n"
    "  rx_csum: {value: unnecessary, source: s}\n"
    "  tunnel_csum_level: {value: 1, source: s}\n"
    "  tunnels: {value: [vxlan], source: s}\n"
    "  rx_buffers: {value: page_frags, source: s}\n"
    "  csum_err_stat: {value: x, source: s}\n";

std::string With(const std::string& from, const std::string& to) {
  std::string k = kKernel;
  const size_t at = k.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) k.replace(at, from.size(), to);
  return BuiltinProfileTexts().at("dummy") + k;
}

std::string ErrorOf(const std::string& text) {
  try {
    ParseProfile(text, "dummy");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

KernelNicView View(const std::string& text) {
  const NicProfile p = ParseProfile(text, "dummy");
  EXPECT_TRUE(p.kernel.has_value());
  return p.kernel.value_or(KernelNicView{});
}

TEST(KernelProfileEdges, ValuesReadIntoTheirFields) {
  const KernelNicView base = View(With("", ""));
  EXPECT_EQ(base.driver, "ice");
  EXPECT_EQ(base.rx_csum, KernelNicView::RxCsum::kUnnecessary);
  EXPECT_EQ(base.tunnel_csum_level, 1);
  EXPECT_TRUE(base.rx_page_frags);
  EXPECT_EQ(base.outer_ip_err_stat, "");
  const std::pair<const char*, KernelNicView::RxCsum> kinds[] = {
      {"none", KernelNicView::RxCsum::kNone},
      {"complete", KernelNicView::RxCsum::kComplete},
      {"vnet_hdr", KernelNicView::RxCsum::kVnetHdr}};
  for (const auto& [name, kind] : kinds) {
    EXPECT_EQ(View(With("value: unnecessary", std::string("value: ") + name)).rx_csum, kind)
        << name;
  }
  EXPECT_EQ(
      View(With("tunnel_csum_level: {value: 1", "tunnel_csum_level: {value: 0")).tunnel_csum_level,
      0);
  EXPECT_FALSE(View(With("value: page_frags", "value: linear_copy")).rx_page_frags);
  EXPECT_EQ(View(With("  csum_err_stat:",
                      "  outer_ip_err_stat: {value: y, source: s}\n"
                      "  csum_err_stat:"))
                .outer_ip_err_stat,
            "y");
}

void ExpectRefused(const std::string& text, const std::string& what) {
  const std::string e = ErrorOf(text);
  EXPECT_EQ(e.rfind("profile dummy: ", 0), 0u) << e;
  EXPECT_NE(e.find(what), std::string::npos) << what << " | " << e;
}

TEST(KernelProfileEdges, EachRefusalNamed) {
  ExpectRefused(With("value: ice", "value: \"\""), "kernel driver is empty");
  ExpectRefused(With("value: unnecessary", "value: partial"),
                "kernel rx_csum 'partial' is not one of none, unnecessary, complete, vnet_hdr");
  ExpectRefused(With("tunnel_csum_level: {value: 1", "tunnel_csum_level: {value: 2"),
                "kernel tunnel_csum_level must be 0 or 1");
  ExpectRefused(With("value: [vxlan]", "value: [vxlan, ipip]"),
                "kernel tunnel 'ipip' is not one of");
  ExpectRefused(With("value: [rx-checksum]", "value: [rx-checksum, rx-checksum]"),
                "kernel features lists 'rx-checksum' twice");
  ExpectRefused(With("value: [rx-checksum]", "value: rx-checksum"),
                "kernel features must be a list of ethtool feature names");
  ExpectRefused(With("  csum_err_stat: {value: x, source: s}\n",
                     "  csum_err_stat: {value: x, source: s}\n  notes: just one\n"),
                "kernel notes must be a list of strings");
  ExpectRefused(With("  csum_err_stat: {value: x, source: s}\n",
                     "  csum_err_stat: {value: x, source: s}\n  driver: {value: ice, source: s}\n"),
                "duplicate key 'driver' in 'kernel'");
  ExpectRefused(
      With("csum_err_stat: {value: x, source: s}", "csum_err_stat: {value: x, source: ' '}"),
      "kernel csum_err_stat has an empty source");
  ExpectRefused(With("  csum_err_stat: {value: x, source: s}\n",
                     "  csum_err_stat: {value: x, source: s}\n  colour: blue\n"),
                "unknown key 'colour' in 'kernel'");
  // Notes that are a list are kept.
  EXPECT_EQ(View(With("  csum_err_stat: {value: x, source: s}\n",
                      "  csum_err_stat: {value: x, source: s}\n  notes: [a, b]\n"))
                .notes.size(),
            2u);
}

}  // namespace
}  // namespace offlab
