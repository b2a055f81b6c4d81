// Built-in NIC profiles load, carry a source for every value, agree with the
// facts they cite, and malformed profiles are rejected with one-line errors.
#include "offlab/nic_profile.h"

#include <gtest/gtest.h>

#include "offlab/caps.h"
#include "offlab/error.h"

namespace offlab {
namespace {

TEST(NicProfile, EveryBuiltinLoadsWithSources) {
  auto names = BuiltinProfileNames();
  EXPECT_EQ(names.size(), 11u);
  for (const auto& n : names) {
    SCOPED_TRACE(n);
    NicProfile p = BuiltinProfile(n);
    EXPECT_EQ(p.name, n);
    // 10 tx + 4 rx kinds + partial_from_guest + 2 coalescing + 2 limits + 2 quirks.
    EXPECT_EQ(p.sources.size(), 21u);
    for (const auto& [k, src] : p.sources) EXPECT_FALSE(src.empty()) << k;
  }
}

TEST(NicProfile, FactsFromTheirSources) {
  // DPDK features/pcap.ini and the measured tx_offload_capa = 0.
  EXPECT_EQ(BuiltinProfile("pcap").tx_caps, 0u);
  // DPDK 6b5e31f7fbd7: X710 cannot offload the outer UDP checksum.
  NicProfile x710 = BuiltinProfile("x710");
  EXPECT_FALSE(x710.tx_caps & cap::kOuterUdpCksum);
  EXPECT_TRUE(x710.outer_udp_left_as_is);
  // ovs 6f93d8e62f13: no outer UDP checksum, hence no UDP tunnel TSO, for ice in OVS.
  NicProfile e810 = BuiltinProfile("e810");
  EXPECT_FALSE(e810.tx_caps & (cap::kOuterUdpCksum | cap::kVxlanTnlTso | cap::kGeneveTnlTso));
  EXPECT_TRUE(e810.outer_udp_needs_pseudo_seed);
  NicProfile cx6 = BuiltinProfile("connectx6dx");
  EXPECT_TRUE(cx6.tx_caps & cap::kVxlanTnlTso);
  EXPECT_TRUE(cx6.tx_caps & cap::kGeneveTnlTso);
  EXPECT_TRUE(cx6.rx_vxlan.inner_l4);
  // 82599 parses no tunnels.
  EXPECT_FALSE(BuiltinProfile("ixgbe_82599").rx_vxlan.inner_l4);
  EXPECT_TRUE(BuiltinProfile("virtio").rx_partial_from_guest);
}

std::string Valid() {
  std::string caps;
  for (const char* c :
       {"ipv4_cksum", "tcp_cksum", "udp_cksum", "sctp_cksum", "tcp_tso", "vxlan_tnl_tso",
        "geneve_tnl_tso", "outer_ip_cksum", "outer_udp_cksum", "gre_tnl_tso"}) {
    caps += std::string("  ") + c + ": {value: false, source: s}\n";
  }
  return "name: t\ndescription: d\ndriver: x\nlink_gbps: 10\ntx:\n" + caps +
         "rx:\n  plain: {outer_ip: true, outer_l4: true, source: s}\n"
         "  vxlan: {outer_ip: true, outer_l4: true, source: s}\n"
         "  geneve: {outer_ip: true, outer_l4: true, source: s}\n"
         "  gre: {outer_ip: true, outer_l4: false, source: s}\n"
         "  partial_from_guest: {value: false, source: s}\n"
         "coalescing:\n  lro: {value: false, source: s}\n  gro: {value: false, source: s}\n"
         "limits:\n  max_tso_bytes: {value: 65535, source: s}\n"
         "  max_tso_segs: {value: 0, source: s}\n"
         "quirks:\n  outer_udp_needs_pseudo_seed: {value: false, source: s}\n"
         "  outer_udp_left_as_is: {value: false, source: s}\n";
}

void ExpectError(const std::string& text, const std::string& needle) {
  try {
    ParseProfile(text, "t");
    FAIL() << "accepted: " << needle;
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find(needle), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_EQ(msg.rfind("profile t: ", 0), 0u) << msg;
  }
}

TEST(NicProfile, MinimalValidProfileParses) { EXPECT_EQ(ParseProfile(Valid(), "t").tx_caps, 0u); }

TEST(NicProfile, BadInputGivesOneLineErrors) {
  std::string v = Valid();
  auto swap = [&](const std::string& a, const std::string& b) {
    std::string s = v;
    s.replace(s.find(a), a.size(), b);
    return s;
  };
  ExpectError(swap("  gre_tnl_tso:", "  gre_tso:"), "unknown key 'gre_tso'");
  ExpectError(swap("link_gbps: 10", "link_gbps: fast"), "link_gbps has the wrong type");
  ExpectError(swap("link_gbps: 10", "link_gbps: -1"), "link_gbps must be");
  ExpectError(swap("driver: x\n", ""), "missing 'driver'");
  ExpectError(swap("tcp_cksum: {value: false, source: s}", "tcp_cksum: {value: false}"),
              "missing 'source'");
  ExpectError(v.substr(0, v.size() / 2) + "  : {[", "malformed YAML");
  ExpectError("- a\n- b\n", "top level must be a mapping");
  ExpectError(swap("name: t", "name: u"), "does not match");
  EXPECT_THROW(LoadProfileFile("/nonexistent/x.yaml"), Error);
  EXPECT_THROW(BuiltinProfile("x999"), Error);
}

}  // namespace
}  // namespace offlab
