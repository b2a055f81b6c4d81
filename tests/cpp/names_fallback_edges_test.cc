// SPDX-License-Identifier: Apache-2.0
//
// The printed names of offlab's enums when handed a value none of their
// enumerators has (a word decoded from a trace, a corrupted byte): "?",
// never another field's name or an empty string; and Offloads::Describe,
// which prints the inner level when inner bits are set even without a tunnel
// type (a word the bit layout allows, lib/dp-packet.h: the inner bits are the
// outer ones shifted by DP_PACKET_OL_SHIFT_COUNT). Expected text by hand.
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/dissect.h"
#include "offlab/net/error.h"
#include "offlab/nic/caps.h"
#include "offlab/nic/nic_profile.h"
#include "offlab/ovs/offloads.h"

namespace offlab {
namespace {

TEST(NamesFallbackEdges, ValuesOutsideTheEnumPrintAsQuestionMark) {
  EXPECT_STREQ(ToString(static_cast<CsumStatus>(4)), "?");
  EXPECT_STREQ(ToString(static_cast<L4Proto>(4)), "?");
  EXPECT_STREQ(ToString(static_cast<TunnelType>(4)), "?");
  EXPECT_STREQ(ToString(static_cast<Verdict>(4)), "?");
  EXPECT_STREQ(RxCsumName(static_cast<KernelNicView::RxCsum>(4)), "?");
  // The last real value of each still has its name.
  EXPECT_STREQ(ToString(Verdict::kNotChecked), "unchecked");
  EXPECT_STREQ(RxCsumName(KernelNicView::RxCsum::kVnetHdr), "vnet_hdr");
}

TEST(NamesFallbackEdges, InnerBitsWithoutATunnelAreDescribed) {
  Offloads o;
  o.set_l4(CsumStatus::kGood, Level::kInner);
  EXPECT_FALSE(o.tunnelled());
  EXPECT_EQ(o.Describe(), "ip=unknown l4=unknown proto=none | inner ip=unknown l4=good proto=none");
  // Only the inner L4 protocol bits: still an inner level.
  Offloads p;
  p.set_l4_proto(L4Proto::kUdp, Level::kInner);
  EXPECT_EQ(p.Describe(),
            "ip=unknown l4=unknown proto=none | inner ip=unknown l4=unknown proto=udp");
  // Nothing above the outer bits: no inner level.
  Offloads q(ol::kIpCksumGood | ol::kL4ProtoTcp);
  EXPECT_EQ(q.Describe(), "ip=good l4=unknown proto=tcp");
}

TEST(NamesFallbackEdges, CapabilityWordsAndNames) {
  // Bits outside the known set alone are still shown, without a separator.
  EXPECT_EQ(CapsToString(1u << 12), "0x1000");
  EXPECT_EQ(CapsToString((1u << 12) | cap::kIpv4Cksum), "ipv4_cksum|0x1000");
  // A name with control characters is quoted with them blanked (tab, DEL,
  // newline), so the message stays one line.
  try {
    CapFromName("tcp\tcksum\x7f\n");
    ADD_FAILURE() << "an unknown name was taken";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind("unknown capability 'tcp cksum  ' (known: ipv4_cksum, tcp_cksum, ", 0), 0u)
        << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos);
  }
  EXPECT_EQ(CapFromName("gre_tnl_tso"), cap::kGreTnlTso);
}

}  // namespace
}  // namespace offlab
