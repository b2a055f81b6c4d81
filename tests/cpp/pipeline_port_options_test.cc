// SPDX-License-Identifier: Apache-2.0
//
// Bridge configuration as ovs-vsctl would give it: netdev-dummy Interface
// options (lib/netdev-dummy.c dummy_set_config: ol_ip_tx_csum and friends are
// booleans read with smap_get_bool, ol_tso_segsz a positive integer), options
// on a port that is not a dummy, ofport_request clashes, and
// `ovs-ofctl del-flows` (after it a frame matches nothing and is dropped).
// offlab refuses a value OVS would silently read as false, so a typo does not
// pass for a configured offload.
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/bytes.h"
#include "offlab/net/error.h"
#include "offlab/ovs/pipeline.h"
#include "ovs_frames.h"

namespace offlab {
namespace {

using namespace testdata;

std::string ErrorOf(Pipeline& br, const PortConfig& cfg) {
  try {
    br.AddPort(cfg);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// What leaves p2 for kG with its IPv4 checksum partial (p1 sets it so), with
// `options` on p2 and mod_nw_dst so that the header changes on the way.
Sent SentOnP2(const std::map<std::string, std::string>& options) {
  Pipeline br;
  br.AddPort({.name = "p1", .options = {{"ol_ip_rx_csum_set_partial", "true"}}});
  br.AddPort({.name = "p2", .options = options});
  br.AddFlow("in_port=p1,actions=mod_nw_dst:192.168.1.1,output:p2");
  auto out = br.Receive("p1", FromHex(kG));
  EXPECT_EQ(out.size(), 1u);
  return out.empty() ? Sent{} : out[0];
}

TEST(PipelinePortOptions, FalseIsTheSameAsAbsent) {
  const Sent absent = SentOnP2({});
  const Sent off = SentOnP2({{"ol_ip_tx_csum", "false"}});
  const Sent on = SentOnP2({{"ol_ip_tx_csum", "true"}});
  EXPECT_EQ(off.frame, absent.frame);
  EXPECT_EQ(off.offloads.word(), absent.offloads.word());
  // ...and the option does matter: with it the NIC is handed the partial.
  EXPECT_NE(on.offloads.word(), absent.offloads.word());
}

TEST(PipelinePortOptions, ABooleanOptionIsTrueOrFalse) {
  Pipeline br;
  EXPECT_EQ(ErrorOf(br, {.name = "p1", .options = {{"ol_l4_tx_csum", "yes"}}}),
            "option ol_l4_tx_csum: expected true or false, got 'yes'");
}

TEST(PipelinePortOptions, TsoSegszMustBeANumber) {
  Pipeline br;
  EXPECT_EQ(ErrorOf(br, {.name = "p1", .options = {{"ol_tso_segsz", "mss"}}}),
            "option ol_tso_segsz: expected 1..65535, got 'mss'");
}

TEST(PipelinePortOptions, OptionsOnlyOnDummyPorts) {
  Pipeline br;
  EXPECT_EQ(
      ErrorOf(br, {.name = "eth0", .profile = "x710", .options = {{"ol_ip_tx_csum", "true"}}}),
      "port eth0: option 'ol_ip_tx_csum' applies only to dummy ports");
}

TEST(PipelinePortOptions, OfportRequestInUse) {
  Pipeline br;
  EXPECT_EQ(br.AddPort({.name = "p1", .ofport = 7}), 7u);
  EXPECT_EQ(ErrorOf(br, {.name = "p2", .ofport = 7}), "port p2: ofport 7 in use");
  // Without a request the next free number is taken.
  EXPECT_EQ(br.AddPort({.name = "p3"}), 1u);
}

TEST(PipelinePortOptions, DelFlowsDropsWhatWasForwarded) {
  Pipeline br;
  br.AddPort({.name = "p1"});
  br.AddPort({.name = "p2"});
  br.AddFlow("in_port=p1,actions=output:p2");
  ASSERT_EQ(br.Receive("p1", FromHex(kG)).size(), 1u);
  br.ClearFlows();
  EXPECT_TRUE(br.Receive("p1", FromHex(kG)).empty());
}

}  // namespace
}  // namespace offlab
