// SPDX-License-Identifier: Apache-2.0
//
// The values a NIC profile's `kernel:` section accepts, and the errors for the
// ones it refuses. The four rx_csum kinds are the ways a Linux driver reports
// a received frame's checksum (include/linux/skbuff.h: CHECKSUM_NONE,
// CHECKSUM_UNNECESSARY, CHECKSUM_COMPLETE, and the virtio-net header of
// virtio_net/tun); rx_buffers is page fragments or a copy into the linear
// area; every value carries a non-blank `source`, quirks are plain
// true/false, and text must be UTF-8 (docs: the profile format).
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "offlab/net/error.h"
#include "offlab/nic/nic_profile.h"

namespace offlab {
// Generated from models/profiles/*.yaml (models/embed_profiles.cmake).
const std::map<std::string, std::string>& BuiltinProfileTexts();

namespace {

// A complete kernel section; `rx`, `buffers` and `extra` vary per test.
std::string Profile(const std::string& rx, const std::string& buffers = "page_frags",
                    const std::string& driver_source = "s", const std::string& extra = "") {
  return BuiltinProfileTexts().at("dummy") + "kernel:\n" + "  driver: {value: ice, source: \"" +
         driver_source + "\"}\n" +
         "  features: {value: [rx-checksum], source: s}\n"
         "  hw_enc_features: {value: [], source: s}\n"
         "  rx_csum: {value: " +
         rx + ", source: s}\n" +
         "  tunnel_csum_level: {value: 1, source: s}\n"
         "  tunnels: {value: [vxlan], source: s}\n"
         "  rx_buffers: {value: " +
         buffers + ", source: s}\n" + "  csum_err_stat: {value: x, source: s}\n" + extra;
}

std::string ErrorOf(const std::string& text) {
  try {
    ParseProfile(text, "dummy");
  } catch (const offlab::Error& e) {
    return e.what();
  }
  return "";
}

TEST(KernelProfileValues, EachRxCsumKindParsesAndHasItsName) {
  const std::pair<const char*, KernelNicView::RxCsum> kinds[] = {
      {"none", KernelNicView::RxCsum::kNone},
      {"unnecessary", KernelNicView::RxCsum::kUnnecessary},
      {"complete", KernelNicView::RxCsum::kComplete},
      {"vnet_hdr", KernelNicView::RxCsum::kVnetHdr},
  };
  for (const auto& [name, kind] : kinds) {
    SCOPED_TRACE(name);
    const NicProfile p = ParseProfile(Profile(name), "dummy");
    ASSERT_TRUE(p.kernel);
    EXPECT_EQ(p.kernel->rx_csum, kind);
    EXPECT_STREQ(RxCsumName(kind), name);
  }
}

TEST(KernelProfileValues, RxBuffersIsPageFragsOrLinearCopy) {
  EXPECT_TRUE(ParseProfile(Profile("none", "page_frags"), "dummy").kernel->rx_page_frags);
  EXPECT_FALSE(ParseProfile(Profile("none", "linear_copy"), "dummy").kernel->rx_page_frags);
  EXPECT_NE(ErrorOf(Profile("none", "skb_copy"))
                .find("kernel rx_buffers 'skb_copy' is not page_frags or linear_copy"),
            std::string::npos)
      << ErrorOf(Profile("none", "skb_copy"));
}

TEST(KernelProfileValues, BlankSourceIsRefused) {
  const std::string e = ErrorOf(Profile("none", "page_frags", " \t"));
  EXPECT_NE(e.find("kernel driver has an empty source"), std::string::npos) << e;
}

TEST(KernelProfileValues, TextMustBeUtf8) {
  // A lead byte 0xc3 with nothing after it is not UTF-8 (RFC 3629 section 3:
  // it must be followed by one continuation byte 0x80..0xbf).
  const std::string e = ErrorOf(Profile("none", "page_frags", std::string("caf\xc3")));
  EXPECT_NE(e.find("kernel driver source is not valid UTF-8 text"), std::string::npos) << e;
}

TEST(KernelProfileValues, QuirksAreTrueOrFalse) {
  const std::string q = "  quirks:\n    icmp_unverified: {value: ";
  const NicProfile on =
      ParseProfile(Profile("none", "page_frags", "s", q + "true, source: s}\n"), "dummy");
  EXPECT_TRUE(on.kernel->icmp_unverified);
  const NicProfile off =
      ParseProfile(Profile("none", "page_frags", "s", q + "false, source: s}\n"), "dummy");
  EXPECT_FALSE(off.kernel->icmp_unverified);
  EXPECT_EQ(off.kernel->sources.at("quirks.icmp_unverified"), "s");
  const std::string e = ErrorOf(Profile("none", "page_frags", "s", q + "yes, source: s}\n"));
  EXPECT_NE(e.find("kernel quirk icmp_unverified must be true or false"), std::string::npos) << e;
}

}  // namespace
}  // namespace offlab
