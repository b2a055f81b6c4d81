#include "offlab/nic/nic_profile.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "offlab/net/error.h"
#include "offlab/nic/caps.h"

namespace offlab {
// Defined in the generated builtin_profiles.cc; the tests mutate real profile
// texts so that every bad-input case differs from a valid file in one place.
const std::map<std::string, std::string>& BuiltinProfileTexts();

namespace {

std::vector<std::string> AllCapNames() {
  std::vector<std::string> names;
  for (uint32_t bit = 1; bit & cap::kAll; bit <<= 1) names.push_back(CapsToString(bit));
  return names;
}

const std::string& Text(const std::string& name) { return BuiltinProfileTexts().at(name); }

// Replaces exactly one occurrence, so a test cannot silently stop exercising
// what it claims to when a profile is edited.
std::string ReplaceOnce(const std::string& text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "missing: " << from;
  EXPECT_EQ(text.find(from, at + 1), std::string::npos) << "ambiguous: " << from;
  if (at == std::string::npos) return text;
  std::string out = text;
  out.replace(at, from.size(), to);
  return out;
}

// The message of the offlab::Error that `fn` throws; anything else fails.
std::string ErrorOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected offlab::Error, got another exception: " << e.what();
    return "";
  }
  ADD_FAILURE() << "expected offlab::Error, nothing was thrown";
  return "";
}

std::string ParseError(const std::string& text, const std::string& name = "x710") {
  return ErrorOf([&] { ParseProfile(text, name); });
}

void ExpectOneLine(const std::string& msg) {
  EXPECT_FALSE(msg.empty());
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\r'), std::string::npos) << msg;
}

bool Has(uint32_t caps, uint32_t bit) { return (caps & bit) != 0; }

TEST(NicProfileTest, BuiltinNamesAreTheExpectedSet) {
  const std::vector<std::string> names = BuiltinProfileNames();
  const std::set<std::string> got(names.begin(), names.end());
  const std::set<std::string> want = {"bluefield2", "connectx5", "connectx6dx",   "dpdk_tap",
                                      "dummy",      "e810",      "ibmveth_trunk", "ixgbe_82599",
                                      "pcap",       "tap",       "virtio",        "x710"};
  EXPECT_EQ(got, want);
}

TEST(NicProfileTest, EveryBuiltinLoads) {
  for (const std::string& name : BuiltinProfileNames()) {
    SCOPED_TRACE(name);
    NicProfile p;
    ASSERT_NO_THROW(p = BuiltinProfile(name));
    EXPECT_EQ(p.name, name);
    EXPECT_FALSE(p.description.empty());
    EXPECT_FALSE(p.driver.empty());
    EXPECT_GE(p.link_gbps, 0);
    EXPECT_EQ(p.tx_caps & ~cap::kAll, 0u);
    EXPECT_FALSE(p.notes.empty());
  }
}

TEST(NicProfileTest, EveryValueCarriesASource) {
  std::vector<std::string> keys = AllCapNames();
  for (const char* k : {"rx_plain", "rx_vxlan", "rx_geneve", "rx_gre", "link_gbps",
                        "rx_partial_from_guest", "lro", "gro", "max_tso_bytes", "max_tso_segs",
                        "outer_udp_needs_pseudo_seed", "outer_udp_left_as_is"}) {
    keys.push_back(k);
  }
  for (const std::string& name : BuiltinProfileNames()) {
    const NicProfile p = BuiltinProfile(name);
    // Optional quirks, where a profile states them, carry a source too.
    const size_t zero_udp = p.sources.count("rx_zero_udp_csum_literal");
    const size_t tso4 = p.sources.count("tso_ipv4_only");
    EXPECT_EQ(p.sources.size(), keys.size() + zero_udp + tso4) << name;
    EXPECT_EQ(zero_udp, p.rx_zero_udp_csum_literal ? 1u : zero_udp) << name;
    EXPECT_EQ(tso4, p.tso_ipv4_only ? 1u : tso4) << name;
    for (const std::string& key : keys) {
      SCOPED_TRACE(name + "." + key);
      const auto it = p.sources.find(key);
      ASSERT_NE(it, p.sources.end());
      EXPECT_GE(it->second.size(), 20u) << "source too short to be a citation: " << it->second;
    }
  }
}

// Spot checks of facts against what their sources say.

TEST(NicProfileTest, PcapHasNoOffloadsAtAll) {
  const NicProfile p = BuiltinProfile("pcap");
  EXPECT_EQ(p.tx_caps, 0u);
  for (TunnelType t :
       {TunnelType::kNone, TunnelType::kVxlan, TunnelType::kGeneve, TunnelType::kGre}) {
    const RxValidation& rx = p.rx_for(t);
    EXPECT_FALSE(rx.outer_ip || rx.outer_l4 || rx.inner_ip || rx.inner_l4);
  }
  EXPECT_FALSE(p.rx_partial_from_guest);
  EXPECT_FALSE(p.lro);
  EXPECT_NE(p.sources.at("tcp_cksum").find("pcap_ethdev.c"), std::string::npos);
}

TEST(NicProfileTest, X710LacksOuterUdpChecksumAndLeavesItAsIs) {
  const NicProfile p = BuiltinProfile("x710");
  EXPECT_FALSE(Has(p.tx_caps, cap::kOuterUdpCksum));
  EXPECT_TRUE(Has(p.tx_caps, cap::kOuterIpCksum));
  EXPECT_TRUE(p.outer_udp_left_as_is);
  EXPECT_FALSE(p.outer_udp_needs_pseudo_seed);
  EXPECT_NE(p.sources.at("outer_udp_cksum").find("6b5e31f7fbd7"), std::string::npos);
  EXPECT_NE(p.sources.at("outer_udp_left_as_is").find("8.4.4.2"), std::string::npos);
  // Current OVS (bd48ff8f7d39, v3.5.0) no longer masks tunnel TSO for i40e.
  EXPECT_TRUE(Has(p.tx_caps, cap::kVxlanTnlTso));
  EXPECT_TRUE(Has(p.tx_caps, cap::kGeneveTnlTso));
  EXPECT_NE(p.sources.at("vxlan_tnl_tso").find("6f93d8e62f13"), std::string::npos);
}

TEST(NicProfileTest, ConnectX6DxHasTunnelTsoButNoOuterUdpChecksumInDpdk) {
  const NicProfile p = BuiltinProfile("connectx6dx");
  EXPECT_TRUE(Has(p.tx_caps, cap::kVxlanTnlTso));
  EXPECT_TRUE(Has(p.tx_caps, cap::kGeneveTnlTso));
  EXPECT_TRUE(Has(p.tx_caps, cap::kGreTnlTso));
  EXPECT_TRUE(Has(p.tx_caps, cap::kOuterIpCksum));
  // The mlx5 PMD never advertises RTE_ETH_TX_OFFLOAD_OUTER_UDP_CKSUM, so OVS
  // computes the tunnel UDP checksum itself (d0f074dec174).
  EXPECT_FALSE(Has(p.tx_caps, cap::kOuterUdpCksum));
  EXPECT_TRUE(p.outer_udp_left_as_is);
  EXPECT_FALSE(Has(p.tx_caps, cap::kSctpCksum));
  EXPECT_TRUE(p.lro);
  EXPECT_NE(p.sources.at("outer_udp_cksum").find("d0f074dec174"), std::string::npos);
}

TEST(NicProfileTest, MellanoxProfilesShareTheMlx5Capabilities) {
  const NicProfile cx6 = BuiltinProfile("connectx6dx");
  for (const char* name : {"connectx5", "bluefield2"}) {
    const NicProfile p = BuiltinProfile(name);
    EXPECT_EQ(p.tx_caps, cx6.tx_caps) << name;
    EXPECT_EQ(p.driver, "net_mlx5") << name;
  }
}

TEST(NicProfileTest, E810OffloadsOuterUdpAndNeedsThePseudoHeaderSeed) {
  const NicProfile p = BuiltinProfile("e810");
  EXPECT_TRUE(Has(p.tx_caps, cap::kOuterUdpCksum));
  EXPECT_TRUE(Has(p.tx_caps, cap::kVxlanTnlTso));
  EXPECT_TRUE(p.outer_udp_needs_pseudo_seed);
  EXPECT_FALSE(p.outer_udp_left_as_is);
  EXPECT_NE(p.sources.at("outer_udp_needs_pseudo_seed").find("1406"), std::string::npos);
  EXPECT_NE(p.sources.at("outer_udp_cksum").find("af292d273f2c"), std::string::npos);
}

TEST(NicProfileTest, Ixgbe82599HasNoTunnelOffload) {
  const NicProfile p = BuiltinProfile("ixgbe_82599");
  EXPECT_EQ(p.tx_caps & (cap::kTnlTsoAny | cap::kOuterIpCksum | cap::kOuterUdpCksum), 0u);
  EXPECT_TRUE(Has(p.tx_caps, cap::kTcpTso));
  EXPECT_TRUE(p.lro);
  EXPECT_FALSE(p.rx_for(TunnelType::kVxlan).inner_l4);
}

TEST(NicProfileTest, VhostUserTakesGuestPartialsAndOffloadsIpv4Checksum) {
  const NicProfile p = BuiltinProfile("virtio");
  const uint32_t want =
      cap::kIpv4Cksum | cap::kTcpCksum | cap::kUdpCksum | cap::kSctpCksum | cap::kTcpTso;
  EXPECT_EQ(p.tx_caps, want) << CapsToString(p.tx_caps);
  EXPECT_TRUE(p.rx_partial_from_guest);
  EXPECT_NE(p.sources.at("ipv4_cksum").find("ab062d3cb4b6"), std::string::npos);
}

TEST(NicProfileTest, TapOffloadsL4ButNotIpv4) {
  const NicProfile p = BuiltinProfile("tap");
  EXPECT_EQ(p.tx_caps, cap::kTcpCksum | cap::kUdpCksum | cap::kTcpTso) << CapsToString(p.tx_caps);
  EXPECT_TRUE(p.rx_partial_from_guest);
  EXPECT_NE(p.sources.at("rx_partial_from_guest").find("NEEDS_CSUM"), std::string::npos);
}

TEST(NicProfileTest, DummyBaselineAdvertisesNothing) {
  const NicProfile p = BuiltinProfile("dummy");
  EXPECT_EQ(p.tx_caps, 0u);
  EXPECT_FALSE(p.rx_partial_from_guest);
  EXPECT_FALSE(p.rx_plain.outer_ip);
}

TEST(NicProfileTest, IbmvethTrunkDeliversPartialChecksums) {
  const NicProfile p = BuiltinProfile("ibmveth_trunk");
  EXPECT_TRUE(p.rx_partial_from_guest);
  EXPECT_TRUE(p.gro);
  EXPECT_FALSE(Has(p.tx_caps, cap::kIpv4Cksum));
  EXPECT_NE(p.sources.at("rx_partial_from_guest").find("7525de2516fb"), std::string::npos);
}

TEST(NicProfileTest, RxForSelectsByTunnelType) {
  const NicProfile p = BuiltinProfile("e810");
  EXPECT_EQ(&p.rx_for(TunnelType::kNone), &p.rx_plain);
  EXPECT_EQ(&p.rx_for(TunnelType::kVxlan), &p.rx_vxlan);
  EXPECT_EQ(&p.rx_for(TunnelType::kGeneve), &p.rx_geneve);
  EXPECT_EQ(&p.rx_for(TunnelType::kGre), &p.rx_gre);
  EXPECT_TRUE(p.rx_gre.inner_l4);
  EXPECT_FALSE(p.rx_gre.outer_l4);
}

TEST(CapsTest, NamesRoundTrip) {
  for (const std::string& name : AllCapNames()) EXPECT_EQ(CapsToString(CapFromName(name)), name);
  EXPECT_EQ(CapsToString(cap::kIpv4Cksum | cap::kTcpCksum), "ipv4_cksum|tcp_cksum");
  EXPECT_EQ(CapsToString(0), "none");
  EXPECT_EQ(CapsToString(cap::kGreTnlTso | (1u << 12)), "gre_tnl_tso|0x1000");
  EXPECT_EQ(AllCapNames().size(), 10u);
}

TEST(CapsTest, UnknownNameThrowsNamingIt) {
  const std::string msg = ErrorOf([] { CapFromName("outer_udp_csum"); });
  EXPECT_NE(msg.find("'outer_udp_csum'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("outer_udp_cksum"), std::string::npos) << msg;
  ExpectOneLine(msg);
  ExpectOneLine(ErrorOf([] { CapFromName("a\nb"); }));
}

// Bad inputs: each is the x710 profile with one defect.

TEST(NicProfileErrorTest, UnknownTopLevelKey) {
  const std::string msg = ParseError(Text("x710") + "colour: blue\n");
  EXPECT_EQ(msg.rfind("profile x710: unknown key 'colour'", 0), 0u) << msg;
  ExpectOneLine(msg);
}

TEST(NicProfileErrorTest, UnknownTxCapabilityListsTheKnownOnes) {
  const std::string msg =
      ParseError(ReplaceOnce(Text("x710"), "\n  outer_udp_cksum:\n", "\n  outer_udp_csum:\n"));
  EXPECT_EQ(msg.rfind("profile x710: unknown tx capability 'outer_udp_csum'", 0), 0u) << msg;
  EXPECT_NE(msg.find("known: ipv4_cksum, tcp_cksum"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(line "), std::string::npos) << msg;
  ExpectOneLine(msg);
}

TEST(NicProfileErrorTest, MissingTxCapability) {
  const std::string text = Text("x710");
  const size_t from = text.find("\n  gre_tnl_tso:\n");
  const size_t to = text.find("\n  outer_ip_cksum:\n");
  ASSERT_NE(from, std::string::npos);
  ASSERT_NE(to, std::string::npos);
  const std::string msg = ParseError(text.substr(0, from) + text.substr(to));
  EXPECT_NE(msg.find("missing tx capability 'gre_tnl_tso'"), std::string::npos) << msg;
  ExpectOneLine(msg);
}

TEST(NicProfileErrorTest, MissingRequiredField) {
  const std::string text = Text("x710");
  const size_t from = text.find("\nlink_gbps:\n");
  const size_t to = text.find("\ntx:\n");
  ASSERT_NE(from, std::string::npos);
  const std::string msg = ParseError(text.substr(0, from) + text.substr(to));
  EXPECT_NE(msg.find("missing key 'link_gbps'"), std::string::npos) << msg;
  ExpectOneLine(msg);
}

TEST(NicProfileErrorTest, WrongTypes) {
  const std::string& t = Text("x710");
  const std::string tx_ip = "  ipv4_cksum:\n    value: true\n";
  struct Case {
    std::string text;
    std::string expect;
  };
  const std::vector<Case> cases = {
      {ReplaceOnce(t, tx_ip, "  ipv4_cksum:\n    value: yes\n"),
       "must be true or false, got 'yes'"},
      {ReplaceOnce(t, tx_ip, "  ipv4_cksum:\n    value: \"true\"\n"), "must be true or false"},
      {ReplaceOnce(t, tx_ip, "  ipv4_cksum:\n    value: [true]\n"), "got a list"},
      {t.substr(0, t.find("\n  ipv4_cksum:\n")) + "\n  ipv4_cksum: true" +
           t.substr(t.find("\n  tcp_cksum:\n")),
       "must be a mapping, got a scalar"},
      {ReplaceOnce(t, "link_gbps:\n  value: 10\n", "link_gbps:\n  value: fast\n"),
       "'link_gbps' value must be a number, got 'fast'"},
      {ReplaceOnce(t, "max_tso_segs:\n  value: 0\n", "max_tso_segs:\n  value: 1.5\n"),
       "'max_tso_segs' value must be an integer"},
      {ReplaceOnce(t, "name: x710\n", "name: [x710]\n"), "'name' must be a string, got a list"},
      {t.substr(0, t.find("\nnotes:\n")) + "\nnotes: just one\n", "'notes' must be a list"},
      {ReplaceOnce(t, "rx_partial_from_guest:\n  value: false\n",
                   "rx_partial_from_guest:\n  value: 0\n"),
       "'rx_partial_from_guest' value must be true or false, got '0'"},
  };
  for (const Case& c : cases) {
    const std::string msg = ParseError(c.text);
    EXPECT_NE(msg.find(c.expect), std::string::npos) << "want '" << c.expect << "' in: " << msg;
    EXPECT_EQ(msg.rfind("profile x710: ", 0), 0u) << msg;
    ExpectOneLine(msg);
  }
}

TEST(NicProfileErrorTest, NegativeOrAbsurdNumbers) {
  const std::string& t = Text("x710");
  const std::string link = "link_gbps:\n  value: 10\n";
  const std::string tso = "max_tso_bytes:\n  value: 262144\n";
  const std::string segs = "max_tso_segs:\n  value: 0\n";
  const std::vector<std::string> bad = {
      ReplaceOnce(t, link, "link_gbps:\n  value: -10\n"),
      ReplaceOnce(t, link, "link_gbps:\n  value: 1e9\n"),
      ReplaceOnce(t, link, "link_gbps:\n  value: .nan\n"),
      ReplaceOnce(t, link, "link_gbps:\n  value: .inf\n"),
      ReplaceOnce(t, tso, "max_tso_bytes:\n  value: -1\n"),
      ReplaceOnce(t, tso, "max_tso_bytes:\n  value: 64\n"),
      ReplaceOnce(t, tso, "max_tso_bytes:\n  value: 99999999999\n"),
      ReplaceOnce(t, tso, "max_tso_bytes:\n  value: 99999999999999999999999\n"),
      ReplaceOnce(t, segs, "max_tso_segs:\n  value: 70000\n"),
      ReplaceOnce(t, segs, "max_tso_segs:\n  value: -3\n"),
  };
  for (const std::string& text : bad) {
    const std::string msg = ParseError(text);
    const bool named = msg.find("out of range") != std::string::npos ||
                       msg.find("must be a number") != std::string::npos;
    EXPECT_TRUE(named) << msg;
    ExpectOneLine(msg);
  }
}

TEST(NicProfileErrorTest, TruncatedYamlNeverCrashes) {
  const std::string& t = Text("x710");
  // Any cut before the quirks block leaves a required part missing or broken.
  const size_t limit = t.find("\nquirks:\n");
  ASSERT_NE(limit, std::string::npos);
  for (size_t len = 0; len < limit; len += 37) {
    SCOPED_TRACE(len);
    const std::string msg = ParseError(t.substr(0, len));
    EXPECT_EQ(msg.rfind("profile x710: ", 0), 0u) << msg;
    ExpectOneLine(msg);
  }
}

TEST(NicProfileErrorTest, MalformedYaml) {
  const std::vector<std::string> bad = {
      "name: \"x710\n",
      "name: x710\n  description: [unclosed\n",
      "{name: x710",
      "name: x710\ntx: {a: 1\n",
      "- just\n- a list\n",
      "name: x710\n---\nname: x710\n",
      "",
      "   \n# only a comment\n",
  };
  for (const std::string& text : bad) {
    const std::string msg = ParseError(text);
    EXPECT_EQ(msg.rfind("profile x710: ", 0), 0u) << msg;
    ExpectOneLine(msg);
  }
  const std::string msg = ParseError("name: x710\ntx: {a: 1\n");
  EXPECT_NE(msg.find("malformed YAML"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(line "), std::string::npos) << msg;
}

TEST(NicProfileErrorTest, StrayCommaIsRefusedNotLoopedOn) {
  // yaml-cpp 0.7's LoadAll never returns on a ',' outside a flow collection
  // (jbeder/yaml-cpp#1040); found by nic_profile_fuzz
  // (fuzz/corpus/nic_profile_fuzz/crash-stray-comma).
  EXPECT_EQ(ParseError(","), "profile x710: empty document; expected a mapping");
  EXPECT_EQ(ParseError(",name: x710\n"), "profile x710: empty document; expected a mapping");
  EXPECT_EQ(ParseError("name: x710\n---\n,\n"),
            "profile x710: expected one YAML document, found more (line 2)");
}

TEST(NicProfileErrorTest, DuplicateKeysAndStrayKeys) {
  const std::string& t = Text("x710");
  const std::string dup =
      ReplaceOnce(t, "driver: net_i40e\n", "driver: net_i40e\ndriver: net_ice\n");
  EXPECT_NE(ParseError(dup).find("duplicate key 'driver'"), std::string::npos);

  const std::string inner_on_plain = ReplaceOnce(
      t, "  plain:\n    outer_ip: true\n", "  plain:\n    inner_ip: true\n    outer_ip: true\n");
  EXPECT_NE(ParseError(inner_on_plain).find("unknown key 'inner_ip' in rx 'plain'"),
            std::string::npos);

  const std::string extra = ReplaceOnce(t, "  ipv4_cksum:\n    value: true\n",
                                        "  ipv4_cksum:\n    value: true\n    since: 2014\n");
  EXPECT_NE(ParseError(extra).find("unknown key 'since'"), std::string::npos);

  const std::string weird_key = t + "\"a\\nb\": 1\n";
  ExpectOneLine(ParseError(weird_key));
}

TEST(NicProfileErrorTest, EmptySourceIsRejected) {
  const std::string& t = Text("x710");
  const size_t src = t.find("    source: \"", t.find("\n  plain:\n"));
  ASSERT_NE(src, std::string::npos);
  const std::string text = t.substr(0, src) + "    source: \"   \"" + t.substr(t.find('\n', src));
  const std::string msg = ParseError(text);
  EXPECT_NE(msg.find("rx 'plain' has an empty source"), std::string::npos) << msg;
  ExpectOneLine(msg);
}

TEST(NicProfileErrorTest, NameMustMatch) {
  const std::string msg = ParseError(Text("x710"), "e810");
  EXPECT_EQ(msg.rfind("profile e810: 'name' 'x710' does not match", 0), 0u) << msg;
  EXPECT_NO_THROW(ParseProfile(Text("x710"), ""));
  const std::string bad = ReplaceOnce(Text("x710"), "name: x710\n", "name: X-710\n");
  EXPECT_NE(ParseError(bad, "").find("must match [a-z0-9_]"), std::string::npos);
}

TEST(NicProfileErrorTest, ContradictoryCapabilities) {
  const std::string& t = Text("x710");
  const std::string no_tso =
      ReplaceOnce(t, "  tcp_tso:\n    value: true\n", "  tcp_tso:\n    value: false\n");
  EXPECT_NE(ParseError(no_tso).find("'vxlan_tnl_tso' requires 'tcp_tso'"), std::string::npos);

  const std::string both = ReplaceOnce(t, "  outer_udp_cksum:\n    value: false\n",
                                       "  outer_udp_cksum:\n    value: true\n");
  EXPECT_NE(ParseError(both).find("contradicts"), std::string::npos);
}

TEST(NicProfileFileTest, LoadsAFileNamedByItsStem) {
  // Per process, because ctest may run the discovered tests in parallel.
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("offlab_profile_test_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::filesystem::path file = dir / "x710.yaml";
  {
    std::ofstream out(file, std::ios::binary);
    out << Text("x710");
  }
  const NicProfile p = LoadProfileFile(file.string());
  EXPECT_EQ(p.name, "x710");
  EXPECT_EQ(p.tx_caps, BuiltinProfile("x710").tx_caps);

  const std::filesystem::path renamed = dir / "other.yaml";
  std::filesystem::copy_file(file, renamed, std::filesystem::copy_options::overwrite_existing);
  const std::string msg = ErrorOf([&] { LoadProfileFile(renamed.string()); });
  EXPECT_EQ(msg.rfind("profile other: 'name' 'x710' does not match", 0), 0u) << msg;
  std::filesystem::remove_all(dir);
}

TEST(NicProfileFileTest, MissingFileOrDirectory) {
  const std::string missing = "/nonexistent/offlab/nope.yaml";
  std::string msg = ErrorOf([&] { LoadProfileFile(missing); });
  EXPECT_EQ(msg.rfind("profile nope: cannot read '" + missing + "'", 0), 0u) << msg;
  ExpectOneLine(msg);

  msg = ErrorOf([] { LoadProfileFile(std::filesystem::temp_directory_path().string()); });
  EXPECT_NE(msg.find("not a regular file"), std::string::npos) << msg;
  ExpectOneLine(msg);
}

TEST(NicProfileFileTest, UnknownBuiltinListsTheKnownNames) {
  const std::string msg = ErrorOf([] { BuiltinProfile("cx7"); });
  EXPECT_EQ(msg.rfind("profile cx7: no built-in profile", 0), 0u) << msg;
  EXPECT_NE(msg.find("connectx6dx"), std::string::npos) << msg;
  EXPECT_NE(msg.find("x710"), std::string::npos) << msg;
  ExpectOneLine(msg);
  ExpectOneLine(ErrorOf([] { BuiltinProfile("a\nb"); }));
}

}  // namespace
}  // namespace offlab
