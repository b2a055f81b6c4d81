// SPDX-License-Identifier: Apache-2.0
//
// Helpers for tests of the flow syntax and of what its actions do: a rule
// read with every port name resolving to port 1, the one-line error a rule is
// refused with, and one ct() action run on a frame.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "offlab/net/bytes.h"
#include "offlab/net/error.h"
#include "offlab/net/packet.h"
#include "offlab/ovs/conntrack.h"
#include "offlab/ovs/flow.h"
#include "offlab/ovs/parse.h"

namespace offlab::testing {

inline Rule ParseFlow(const std::string& text) {
  return ParseRule(text, [](const std::string&) -> uint32_t { return 1; });
}

// The error a rule is refused with, "" if it is taken.
inline std::string FlowRefusal(const std::string& text) {
  try {
    ParseFlow(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// The ct(...) action with these arguments.
inline CtSpec CtAction(const std::string& args) {
  // ct() needs an IP match (check_CT); alg=ftp a TCP one.
  const char* match = args.find("alg=ftp") != std::string::npos ? "tcp," : "ip,";
  return ParseFlow(match + std::string("actions=ct(") + args + ")").actions.at(0).ct;
}

// ct(args) on the frame `hex`: the packet's ct_state after it.
inline uint32_t CtTrack(Conntrack& ct, const std::string& hex, const std::string& args) {
  Packet p(FromHex(hex));
  Parse(p);
  EXPECT_TRUE(ct.Execute(p, CtAction(args), nullptr));
  return p.md.ct_state;
}

}  // namespace offlab::testing
