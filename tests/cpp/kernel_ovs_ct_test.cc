// OVS's kernel ct() action (net/openvswitch/conntrack.c ovs_ct_execute at
// v6.18) around conntrack itself: the trim to the IP length for IPv6 and
// for a CHECKSUM_PARTIAL skb (pskb_trim_rcsum_slow's -EINVAL when the
// checksum field would be cut), what is refused (-EINVAL: not IP, a
// fragment, which handle_fragments would reassemble and offlab does not),
// when NAT applies (a confirmed connection or a commit, once per pass) and
// the per-zone cache. Frames and sums come from the plain oracle of
// test_util.h; errno values from include/uapi/asm-generic/errno-base.h
// (EINVAL 22); ct_state bits from include/uapi/linux/openvswitch.h.
#include <gtest/gtest.h>

#include <cstdio>

#include "kernel_test_skb.h"
#include "offlab/linux/ovs_dp.h"
#include "offlab/linux/ovs_dp_ct.h"

namespace offlab::kernel {
namespace {

using testing::Be16;
using testing::H;
using testing::OracleL4Csum;
using testing::OraclePseudo;
using testing::OracleSum;
using testing::Put16;

const std::string kEth = "0a8f394fe0738abf7e2f0584";
const std::string kTcp = "d478145100000001000000005010010000000000";
const std::string kPayload = "000102030405060708090a0b";

Bytes V4Tcp() {
  Bytes f =
      FromHex(H(kEth + "0800" + "4500003412344000400600000a0000010a000002" + kTcp + kPayload));
  Put16(f, 24, static_cast<uint16_t>(~OracleSum(&f[14], 20)));
  Put16(f, 50, OracleL4Csum(f, 14, 34, 6, 16));
  return f;
}

Bytes V6Tcp() {
  Bytes f = FromHex(H(kEth + "86dd" + "6000000000200640" + "20010db8000000000000000000000001" +
                      "20010db8000000000000000000000002" + kTcp + kPayload));
  Put16(f, 70, OracleL4Csum(f, 14, 54, 6, 16));
  return f;
}

OvsSkb Rx(const Bytes& f, IpSummed st) { return OvsVportReceive(testing::NetworkSkb(f, st)); }

// nf_ct_skb_network_trim for IPv6: to 40 + payload length; a COMPLETE sum
// loses the padding's share and then verifies.
TEST(KernelOvsCtTrim, Ipv6PaddingTrimmed) {
  const Bytes f = V6Tcp();
  for (IpSummed st : {IpSummed::kNone, IpSummed::kComplete}) {
    Bytes padded = f;
    padded.resize(f.size() + 7, 0xee);
    OvsSkb s = Rx(padded, st);
    OvsCtOutcome o = OvsCtExecute(s, {}, {});
    ASSERT_EQ(o.err, 0);
    EXPECT_EQ(s.skb.pkt.bytes(), f);
    EXPECT_EQ(s.ct_state, 0x21);
    EXPECT_TRUE(o.ct.checksum_ok);
    if (st == IpSummed::kComplete) {
      EXPECT_EQ(s.skb.ip_summed, IpSummed::kUnnecessary);
    }
  }
}

// A CHECKSUM_PARTIAL skb is trimmed only if its checksum field stays.
TEST(KernelOvsCtTrim, PartialTrimKeepsTheChecksumFieldOrFails) {
  for (uint16_t tot : {uint16_t{52}, uint16_t{40}, uint16_t{38}, uint16_t{37}, uint16_t{35}}) {
    Bytes f = V4Tcp();
    size_t len = 0;
    Put16(f, 50, static_cast<uint16_t>(OraclePseudo(f, 14, 34, 6, &len)));
    f.resize(f.size() + 4, 0);  // bytes past the IP packet
    Put16(f, 16, tot);
    Put16(f, 24, 0);
    Put16(f, 24, static_cast<uint16_t>(~OracleSum(&f[14], 20)));
    SkBuff skb;
    skb.pkt = Packet(f);
    skb.ip_summed = IpSummed::kPartial;
    skb.csum_start = 34;
    skb.csum_offset = 16;
    skb.csum_from = 14;
    OvsSkb s = OvsVportReceive(std::move(skb));
    OvsCtOutcome o = OvsCtExecute(s, {}, {});
    // The field is bytes 16..17 of the TCP header: IP length 20 + 18 = 38.
    if (tot >= 38) {
      EXPECT_EQ(o.err, 0) << tot;
      EXPECT_EQ(s.skb.len(), 14u + tot) << tot;
    } else {
      EXPECT_EQ(o.err, -22) << tot;
    }
  }
}

// Not IP, or a fragment: -EINVAL, the skb as it came (MAC header back).
TEST(KernelOvsCt, NonIpAndFragmentsAreRefused) {
  Bytes arp = V4Tcp();
  arp[12] = 0x08;
  arp[13] = 0x06;
  OvsSkb a = Rx(arp, IpSummed::kNone);
  EXPECT_EQ(OvsCtExecute(a, {}, {}).err, -22);

  Bytes frag = V4Tcp();
  Put16(frag, 20, 0x2000);  // MF, offset 0: a first fragment
  Put16(frag, 24, 0);
  Put16(frag, 24, static_cast<uint16_t>(~OracleSum(&frag[14], 20)));
  OvsSkb s = Rx(frag, IpSummed::kNone);
  ASSERT_NE(s.key.frag, OvsFlowKey::Frag::kNone);
  OvsCtOutcome o = OvsCtExecute(s, {}, {});
  EXPECT_EQ(o.err, -22);
  EXPECT_FALSE(o.looked_up);
  EXPECT_EQ(s.skb.pkt.bytes(), frag);
  EXPECT_EQ(s.skb.csum_from, 0);
}

// __ovs_ct_lookup's NAT: only for a tracked packet of a confirmed
// connection or one being committed, and not again once this pass set
// SRC_NAT or DST_NAT.
TEST(KernelOvsCt, NatOnlyForConfirmedOrCommittedAndOncePerPass) {
  NatTarget t;
  t.manip = NatManip::kDst;
  t.addr = {203, 0, 113, 5};
  t.port = 8080;
  struct Case {
    NfCtExisting existing;
    bool commit;
    bool nat;
  } cases[] = {{NfCtExisting::kNone, false, false},
               {NfCtExisting::kNone, true, true},
               {NfCtExisting::kEstablished, false, true},
               {NfCtExisting::kReply, false, true}};
  for (const Case& c : cases) {
    OvsSkb s = Rx(V4Tcp(), IpSummed::kNone);
    OvsCtAction a;
    a.existing = c.existing;
    a.commit = c.commit;
    a.nat = t;
    OvsCtOutcome o = OvsCtExecute(s, a, {});
    EXPECT_EQ(o.nat_applied, c.nat);
    const Bytes g = s.skb.pkt.bytes();
    EXPECT_EQ(g[33], c.nat ? 5 : 2);
    EXPECT_EQ(Be16(g, 36), c.nat ? 8080 : 0x1451);
    EXPECT_EQ(Be16(g, 50), OracleL4Csum(g, 14, 34, 6, 16));
    EXPECT_EQ(OracleSum(&g[14], 20), 0xffff);
    EXPECT_EQ(s.ct_state & 0x80, c.nat ? 0x80 : 0);
    EXPECT_FALSE(s.hash_valid && c.nat);
  }
  // Already DST_NAT in this pass (a second ct() in the same zone): kept.
  OvsSkb s = Rx(V4Tcp(), IpSummed::kNone);
  OvsCtAction a;
  a.commit = true;
  a.nat = t;
  ASSERT_TRUE(OvsCtExecute(s, a, {}).nat_applied);
  NatTarget again = t;
  again.addr = {203, 0, 113, 9};
  a.nat = again;
  OvsCtOutcome o = OvsCtExecute(s, a, {});
  EXPECT_FALSE(o.looked_up);
  EXPECT_FALSE(o.nat_applied);
  EXPECT_EQ(s.skb.pkt.bytes()[33], 5);
}

// skb_nfct_cached holds for the same zone only; another zone looks up
// again. An untracked (invalid) packet carries no entry to cache.
TEST(KernelOvsCt, CacheIsPerZone) {
  OvsSkb s = Rx(V4Tcp(), IpSummed::kNone);
  EXPECT_TRUE(OvsCtExecute(s, {}, {}).looked_up);
  OvsCtAction z1;
  z1.zone = 1;
  EXPECT_TRUE(OvsCtExecute(s, z1, {}).looked_up);
  EXPECT_EQ(s.ct_zone, 1);
  EXPECT_FALSE(OvsCtExecute(s, z1, {}).looked_up);

  Bytes bad = V4Tcp();
  bad[50] ^= 1;
  OvsSkb b = Rx(bad, IpSummed::kNone);
  EXPECT_TRUE(OvsCtExecute(b, {}, {}).looked_up);
  EXPECT_EQ(b.ct_state, 0x30);
  EXPECT_TRUE(OvsCtExecute(b, {}, {}).looked_up);
}

// key_extract for IPv6 (ipv6_skip_exthdr in net/openvswitch/flow.c
// parse_ipv6hdr): extension headers are walked to the L4 protocol; a
// fragment header makes the key a first fragment (offset 0, the walk goes
// on) or a later one (ip_proto stays 44, NEXTHDR_FRAGMENT); ct() refuses
// both (handle_fragments, which reassembles, is not modelled).
TEST(KernelOvsCt, Ipv6FragmentKeysAndTheirRefusal) {
  const std::string hbh = "2c00000000000000";  // hop-by-hop, next: fragment
  struct Case {
    std::string frag;  // the fragment header
    OvsFlowKey::Frag want;
    uint8_t proto;
  } cases[] = {{"0600000100000001", OvsFlowKey::Frag::kFirst, 6},
               {"0600001900000001", OvsFlowKey::Frag::kLater, 44},
               {"0600000900000001", OvsFlowKey::Frag::kLater, 44}};  // offset 1 unit
  for (const Case& c : cases) {
    Bytes f = testing::Ipv6Frame(0, hbh + c.frag, kTcp + kPayload);
    OvsSkb s = Rx(f, IpSummed::kNone);
    EXPECT_EQ(s.key.frag, c.want);
    EXPECT_EQ(s.key.ip_proto, c.proto);
    OvsCtOutcome o = OvsCtExecute(s, {}, {});
    EXPECT_EQ(o.err, -22);
    EXPECT_FALSE(o.looked_up);
  }
  // No fragment header: not a fragment, TCP behind the hop-by-hop header.
  OvsSkb s = Rx(testing::Ipv6Frame(0, "0600000000000000", kTcp + kPayload), IpSummed::kNone);
  EXPECT_EQ(s.key.frag, OvsFlowKey::Frag::kNone);
  EXPECT_EQ(s.key.ip_proto, 6);
}

}  // namespace
}  // namespace offlab::kernel
