// nf_conntrack's checksum-driven verdicts, NAT's checksum rewrite and OVS's
// ct() action. Expected verdicts follow the cited kernel rules (bad
// checksum at PRE_ROUTING with nf_conntrack_checksum=1 -> invalid, counted
// in "invalid"; ICMP errors in "icmp_error"); expected bytes come from the
// plain-loop oracle of test_util.h.
#include <gtest/gtest.h>

#include "kernel_test_skb.h"
#include "offlab/linux/nf_conntrack.h"
#include "offlab/linux/nf_conntrack_nat.h"
#include "offlab/linux/ovs_dp.h"
#include "offlab/linux/ovs_dp_ct.h"
#include "offlab/linux/skb_csum.h"

namespace offlab::kernel {
namespace {

using testing::Be16;
using testing::H;
using testing::OracleL4Csum;
using testing::OraclePseudo;
using testing::OracleSum;

const std::string kEth = "0a8f394fe0738abf7e2f0584";

using testing::Put16;
int Mod(uint32_t s) { return static_cast<int>(OracleSum(nullptr, 0, s) % 0xffff); }
size_t CsumOfs(uint8_t proto) { return proto == 6 ? 16 : proto == 17 ? 6 : 2; }

// IPv4 + TCP (flags byte given) / UDP / ICMP echo, 12 payload bytes,
// checksums from the oracle (ICMP: no pseudo-header).
Bytes V4(uint8_t proto, uint8_t tcp_flags = 0x10) {
  std::string l4 = proto == 6    ? "d478145100000001000000005010010000000000"
                   : proto == 17 ? "1f90003500140000"
                                 : "0800000000070001";  // ICMP echo request
  const size_t tot = 20 + l4.size() / 2 + 12;
  char ip[64];
  std::snprintf(ip, sizeof ip, "4500%04zx1234400040%02x00000a0000010a000002", tot, proto);
  Bytes f = FromHex(H(kEth + "0800" + ip + l4 + "000102030405060708090a0b"));
  if (proto == 6) f[34 + 13] = tcp_flags;
  Put16(f, 24, static_cast<uint16_t>(~OracleSum(&f[14], 20)));
  const size_t co = 34 + CsumOfs(proto);
  if (proto == 1)
    Put16(f, co, static_cast<uint16_t>(~OracleSum(&f[34], f.size() - 34)));
  else
    Put16(f, co, OracleL4Csum(f, 14, 34, proto, CsumOfs(proto)));
  return f;
}

Bytes V6Tcp() {
  Bytes f = FromHex(H(kEth + "86dd" + "6000000000200640" + "20010db8000000000000000000000001" +
                      "20010db8000000000000000000000002" +
                      "d478145100000001000000005010010000000000" + "000102030405060708090a0b"));
  Put16(f, 54 + 16, OracleL4Csum(f, 14, 54, 6, 16));
  return f;
}

// The skb at PRE_ROUTING: skb->data at the network header.
SkBuff AtPreRouting(const Bytes& f, IpSummed st) { return testing::NetworkSkb(f, st); }

Bytes Corrupt(Bytes f, size_t l4, uint8_t proto) {
  const size_t co = l4 + CsumOfs(proto);
  Put16(f, co, static_cast<uint16_t>(Be16(f, co) ^ 0x0101));
  return f;
}

TEST(KernelConntrackChecksum, BadTcpChecksumAtPreRoutingIsInvalid) {
  for (IpSummed st : {IpSummed::kNone, IpSummed::kComplete}) {
    SkBuff skb = AtPreRouting(Corrupt(V4(6), 34, 6), st);
    NfCtResult r = NfConntrackIn(skb, 14, NfHook::kPreRouting, {});
    EXPECT_FALSE(r.tracked);
    EXPECT_EQ(r.reason, "bad checksum");
    EXPECT_EQ(r.stat_invalid, 1u);
    EXPECT_EQ(r.stat_error, 0u);
    EXPECT_EQ(r.OvsCtState(), 0x30);                // +trk+inv
    EXPECT_EQ(skb.ip_summed, IpSummed::kComplete);  // software sum kept
    EXPECT_FALSE(skb.csum_valid);
  }
  // Not checked: the sysctl off, another hook, or a state taken as correct.
  NfConntrackConfig off;
  off.checksum = false;
  SkBuff a = AtPreRouting(Corrupt(V4(6), 34, 6), IpSummed::kNone);
  EXPECT_TRUE(NfConntrackIn(a, 14, NfHook::kPreRouting, off).tracked);
  SkBuff b = AtPreRouting(Corrupt(V4(6), 34, 6), IpSummed::kNone);
  EXPECT_TRUE(NfConntrackIn(b, 14, NfHook::kLocalOut, {}).tracked);
  for (IpSummed st : {IpSummed::kUnnecessary, IpSummed::kPartial}) {
    SkBuff c = AtPreRouting(Corrupt(V4(6), 34, 6), st);
    NfCtResult r = NfConntrackIn(c, 14, NfHook::kPreRouting, {});
    EXPECT_TRUE(r.tracked);
    EXPECT_FALSE(r.checksum_checked);
  }
}

TEST(KernelConntrackChecksum, GoodChecksumStates) {
  SkBuff n = AtPreRouting(V4(6), IpSummed::kNone);
  NfCtResult r = NfConntrackIn(n, 14, NfHook::kPreRouting, {});
  EXPECT_TRUE(r.tracked);
  EXPECT_EQ(r.OvsCtState(), 0x21);  // +trk+new
  EXPECT_EQ(n.ip_summed, IpSummed::kComplete);
  EXPECT_TRUE(n.csum_valid);
  EXPECT_EQ(Mod(n.csum), Mod(OracleSum(&V4(6)[14], V4(6).size() - 14)));
  SkBuff c = AtPreRouting(V4(6), IpSummed::kComplete);
  EXPECT_TRUE(NfConntrackIn(c, 14, NfHook::kPreRouting, {}).tracked);
  EXPECT_EQ(c.ip_summed, IpSummed::kUnnecessary);
  // A wrong hardware sum over correct bytes: software verifies, and the
  // kernel reports the device (netdev_rx_csum_fault).
  SkBuff w = AtPreRouting(V4(6), IpSummed::kComplete);
  w.csum += 1;
  r = NfConntrackIn(w, 14, NfHook::kPreRouting, {});
  EXPECT_TRUE(r.tracked);
  EXPECT_TRUE(r.rx_csum_fault);
  SkBuff v6 = AtPreRouting(Corrupt(V6Tcp(), 54, 6), IpSummed::kNone);
  EXPECT_EQ(NfConntrackIn(v6, 14, NfHook::kPreRouting, {}).reason, "bad checksum");
  SkBuff v6ok = AtPreRouting(V6Tcp(), IpSummed::kComplete);
  EXPECT_TRUE(NfConntrackIn(v6ok, 14, NfHook::kPreRouting, {}).tracked);
  EXPECT_EQ(v6ok.ip_summed, IpSummed::kUnnecessary);
}

TEST(KernelConntrackChecksum, SkbDataIsWhereItWasAfterTheCheck) {
  // nf_ip_checksum and nf_ip6_checksum sum by offset and leave skb->data
  // alone: wherever it was (the MAC header under OVS, the network header at
  // PRE_ROUTING, past it), it is there afterwards, and the software sum a
  // failed check leaves is the sum of the bytes from there.
  for (bool v6 : {false, true}) {
    const size_t l4 = v6 ? 54 : 34;
    const Bytes f = Corrupt(v6 ? V6Tcp() : V4(6), l4, 6);
    for (uint16_t from : {uint16_t{0}, uint16_t{14}, static_cast<uint16_t>(l4)}) {
      SCOPED_TRACE(std::string(v6 ? "IPv6" : "IPv4") + " data at " + std::to_string(from));
      SkBuff skb;
      skb.pkt = Packet(f);
      skb.csum_from = from;
      const uint16_t r = v6 ? NfIp6Checksum(skb, 14, l4, NfHook::kPreRouting, 6)
                            : NfIpChecksum(skb, 14, l4, NfHook::kPreRouting, 6);
      EXPECT_NE(r, 0);
      EXPECT_EQ(skb.csum_from, from);
      ASSERT_EQ(skb.ip_summed, IpSummed::kComplete);
      EXPECT_EQ(Mod(skb.csum), Mod(OracleSum(&f[from], f.size() - from)));
    }
  }
}

TEST(KernelConntrackTcp, FlagsAndNewConnections) {
  struct Case {
    uint8_t flags;
    bool loose;
    bool tracked;
    const char* reason;
  } cases[] = {
      {0x02, true, true, ""},                               // SYN
      {0x10, true, true, ""},                               // ACK picked up (tcp_loose)
      {0x10, false, false, ""},                             // ACK, tcp_loose=0
      {0x04, true, false, "invalid new"},                   // RST without a connection
      {0x12, true, false, "invalid new"},                   // SYN/ACK without one
      {0x03, true, false, "invalid tcp flag combination"},  // SYN|FIN
      {0x01, true, false, "invalid tcp flag combination"},  // bare FIN
  };
  for (const Case& c : cases) {
    SkBuff skb = AtPreRouting(V4(6, c.flags), IpSummed::kNone);
    NfConntrackConfig cfg;
    cfg.tcp_loose = c.loose;
    NfCtResult r = NfConntrackIn(skb, 14, NfHook::kPreRouting, cfg);
    EXPECT_EQ(r.tracked, c.tracked) << int{c.flags};
    EXPECT_EQ(r.reason, c.reason) << int{c.flags};
  }
  SkBuff est = AtPreRouting(V4(6, 0x04), IpSummed::kNone);
  EXPECT_TRUE(NfConntrackIn(est, 14, NfHook::kPreRouting, {}, NfCtExisting::kEstablished).tracked);
}

TEST(KernelConntrackUdpIcmp, Verdicts) {
  Bytes zero = V4(17);
  Put16(zero, 40, 0);
  SkBuff z = AtPreRouting(zero, IpSummed::kNone);
  NfCtResult r = NfConntrackIn(z, 14, NfHook::kPreRouting, {});
  EXPECT_TRUE(r.tracked);
  EXPECT_FALSE(r.checksum_checked);  // no checksum: nothing to check
  SkBuff bad = AtPreRouting(Corrupt(V4(17), 34, 17), IpSummed::kNone);
  EXPECT_EQ(NfConntrackIn(bad, 14, NfHook::kPreRouting, {}).stat_invalid, 1u);
  Bytes longer = V4(17);
  Put16(longer, 38, 0x30);  // UDP length beyond the packet
  SkBuff l = AtPreRouting(longer, IpSummed::kNone);
  EXPECT_EQ(NfConntrackIn(l, 14, NfHook::kPreRouting, {}).reason, "truncated/malformed packet");
  SkBuff ib = AtPreRouting(Corrupt(V4(1), 34, 1), IpSummed::kNone);
  r = NfConntrackIn(ib, 14, NfHook::kPreRouting, {});
  EXPECT_EQ(r.reason, "bad hw icmp checksum");
  EXPECT_EQ(r.stat_error, 1u);
  EXPECT_EQ(r.stat_invalid, 0u);
  SkBuff echo = AtPreRouting(V4(1), IpSummed::kNone);
  EXPECT_TRUE(NfConntrackIn(echo, 14, NfHook::kPreRouting, {}).tracked);
  Bytes reply = V4(1);
  reply[34] = 0;  // echo reply: cannot start a connection
  Put16(reply, 36, 0);
  Put16(reply, 36, static_cast<uint16_t>(~OracleSum(&reply[34], reply.size() - 34)));
  SkBuff er = AtPreRouting(reply, IpSummed::kNone);
  r = NfConntrackIn(er, 14, NfHook::kPreRouting, {});
  EXPECT_TRUE(r.checksum_ok);
  EXPECT_EQ(r.reason, "invalid new");
  EXPECT_EQ(r.stat_invalid, 1u);
  // The same reply to a tracked echo request matches its entry in the reply
  // direction (icmp_packet: only a packet creating an entry must be a type
  // that may start one, net/netfilter/nf_conntrack_proto_icmp.c).
  SkBuff er2 = AtPreRouting(reply, IpSummed::kNone);
  r = NfConntrackIn(er2, 14, NfHook::kPreRouting, {}, NfCtExisting::kReply);
  EXPECT_TRUE(r.tracked);
  EXPECT_EQ(r.stat_invalid, 0u);
}

TEST(KernelConntrackUdpIcmp, IcmpErrorTypesNeedATrackedInnerPacket) {
  // nf_conntrack_icmpv4_error: destination unreachable, source quench,
  // redirect, time exceeded and parameter problem (types 3, 4, 5, 11, 12)
  // are errors, related to the connection their quoted packet belongs to
  // and invalid without one.
  for (uint8_t type : {3, 4, 5, 11, 12}) {
    SCOPED_TRACE(int{type});
    Bytes f = V4(1);
    f[34] = type;
    Put16(f, 36, 0);
    Put16(f, 36, static_cast<uint16_t>(~OracleSum(&f[34], f.size() - 34)));
    SkBuff lone = AtPreRouting(f, IpSummed::kNone);
    EXPECT_EQ(NfConntrackIn(lone, 14, NfHook::kPreRouting, {}).reason, "no match for inner packet");
    SkBuff rel = AtPreRouting(f, IpSummed::kNone);
    NfCtResult r = NfConntrackIn(rel, 14, NfHook::kPreRouting, {}, NfCtExisting::kRelated);
    EXPECT_TRUE(r.tracked);
    EXPECT_EQ(r.ctinfo, NfCtInfo::kRelated);
  }
}

// NAT: the rewritten packet is correct for every state, PARTIAL after the
// software completion, COMPLETE with the sum still matching the bytes.
TEST(KernelConntrackNat, SnatDnatEveryState) {
  for (uint8_t proto : {6, 17}) {
    for (IpSummed st :
         {IpSummed::kNone, IpSummed::kUnnecessary, IpSummed::kComplete, IpSummed::kPartial}) {
      Bytes f = V4(proto);
      if (st == IpSummed::kPartial) {
        size_t len = 0;
        Put16(f, 34 + CsumOfs(proto), static_cast<uint16_t>(OraclePseudo(f, 14, 34, proto, &len)));
      }
      SkBuff skb = AtPreRouting(f, st);
      if (st == IpSummed::kPartial) {
        skb.csum_start = 34;
        skb.csum_offset = static_cast<uint16_t>(CsumOfs(proto));
      }
      for (NatManip m : {NatManip::kSrc, NatManip::kDst}) {
        NatTarget t;
        t.manip = m;
        t.addr = {198, 51, 100, static_cast<uint8_t>(m == NatManip::kSrc ? 7 : 9)};
        t.port = 40000;
        ASSERT_TRUE(NfNatManipPkt(skb, 14, t));
      }
      SkBuff done = skb;
      ASSERT_TRUE(SkbCompletePartial(done));
      const Bytes g = done.pkt.bytes();
      EXPECT_EQ(Be16(g, 34), 40000);
      EXPECT_EQ(Be16(g, 36), 40000);
      EXPECT_EQ(OracleSum(&g[14], 20), 0xffff);
      EXPECT_EQ(Be16(g, 34 + CsumOfs(proto)), OracleL4Csum(g, 14, 34, proto, CsumOfs(proto)))
          << int{proto} << " " << IpSummedName(st);
      if (st == IpSummed::kComplete) {
        EXPECT_EQ(Mod(skb.csum), Mod(OracleSum(&g[14], g.size() - 14)));
      }
    }
  }
}

TEST(KernelConntrackNat, ZeroUdpStaysZeroAndNoOpRewriteNormalizes) {
  Bytes f = V4(17);
  Put16(f, 40, 0);
  SkBuff u = AtPreRouting(f, IpSummed::kNone);
  NatTarget t;
  t.addr = {10, 9, 9, 9};
  ASSERT_TRUE(NfNatManipPkt(u, 14, t));
  EXPECT_EQ(Be16(u.pkt.bytes(), 40), 0);
  // A TCP checksum held as 0xffff (the other zero): csum_replace4 with
  // from == to gives ~fold(~0xffff) = 0x0000, so NAT that keeps the address
  // and port still rewrites the field (checksum.h:118 arithmetic).
  for (int b = 0; b < 0x10000; b++) {
    Bytes g = V4(6);
    Put16(g, 64, static_cast<uint16_t>(b));  // payload bytes 10..11
    const uint16_t c = OracleL4Csum(g, 14, 34, 6, 16);
    if (c != 0) continue;
    Put16(g, 50, 0xffff);
    SkBuff skb = AtPreRouting(g, IpSummed::kNone);
    NatTarget same;
    same.addr = {10, 0, 0, 1};
    ASSERT_TRUE(NfNatManipPkt(skb, 14, same));
    EXPECT_EQ(Be16(skb.pkt.bytes(), 50), 0);
    return;
  }
  FAIL() << "no payload gives a zero TCP checksum";
}

// OVS ct(): the hook is PRE_ROUTING, so a bad checksum is +trk+inv; the
// checksum state conntrack leaves is what later actions work with.
OvsSkb OvsRx(const Bytes& f, IpSummed st) { return OvsVportReceive(AtPreRouting(f, st)); }

TEST(KernelOvsCt, BadChecksumInvalidAndStateAfter) {
  OvsSkb s = OvsRx(Corrupt(V4(6), 34, 6), IpSummed::kNone);
  OvsCtOutcome o = OvsCtExecute(s, {}, {});
  EXPECT_EQ(o.err, 0);
  EXPECT_TRUE(o.looked_up);
  EXPECT_EQ(s.ct_state, 0x30);
  EXPECT_EQ(o.ct.stat_invalid, 1u);
  OvsSkb g = OvsRx(V4(6), IpSummed::kNone);
  o = OvsCtExecute(g, {}, {});
  EXPECT_EQ(g.ct_state, 0x21);
  // NONE became COMPLETE from the software check; with the MAC header pushed
  // back the sum covers the whole frame.
  EXPECT_EQ(g.skb.ip_summed, IpSummed::kComplete);
  EXPECT_EQ(g.skb.csum_from, 0);
  EXPECT_EQ(Mod(g.skb.csum), Mod(OracleSum(V4(6).data(), V4(6).size())));
  // A second ct() in the same zone finds the entry on the skb (cached).
  EXPECT_FALSE(OvsCtExecute(g, {}, {}).looked_up);
}

TEST(KernelOvsCt, PaddingTrimmedFromCompleteSum) {
  Bytes f = V4(6);
  f.resize(f.size() + 6, 0xee);  // Ethernet padding after the IP packet
  // The driver's sum covers the padding; the COMPLETE check passes only if
  // the trim takes the padding's share out.
  OvsSkb s = OvsRx(f, IpSummed::kComplete);
  ASSERT_EQ(OvsCtExecute(s, {}, {}).err, 0);
  EXPECT_EQ(s.skb.len(), f.size() - 6);
  EXPECT_EQ(s.skb.ip_summed, IpSummed::kUnnecessary);
  OvsSkb old = OvsRx(f, IpSummed::kComplete);
  const OvsCtOutcome o = OvsCtExecute(old, {}, {}, KernelVersion{4, 14, false});
  ASSERT_EQ(o.err, 0);
  EXPECT_EQ(old.skb.len(), f.size() - 6);
  EXPECT_EQ(old.skb.ip_summed, IpSummed::kComplete);  // NONE, then checked in software
  EXPECT_TRUE(old.skb.csum_valid);
  // NONE means no driver sum is left to disagree: a stale COMPLETE sum would
  // fail nf_ip_checksum's check and raise netdev_rx_csum_fault.
  EXPECT_FALSE(o.ct.rx_csum_fault);
}

TEST(KernelOvsCt, PaddingTrimmedFromCompleteSumAtAnOddLength) {
  // The same with 13 payload bytes: the packet ends at an odd offset, so the
  // padding's sum enters rotated a byte (csum_block_sub, v4.20+); the
  // COMPLETE check passes only if the rotation is right.
  Bytes f = V4(6);
  f.push_back(0x0c);
  Put16(f, 16, static_cast<uint16_t>(Be16(f, 16) + 1));
  Put16(f, 24, 0);
  Put16(f, 24, static_cast<uint16_t>(~OracleSum(&f[14], 20)));
  Put16(f, 50, OracleL4Csum(f, 14, 34, 6, 16));
  ASSERT_EQ((f.size() - 14) % 2, 1u);
  for (uint8_t pad : {uint8_t{0xee}, uint8_t{0x01}}) {
    Bytes padded = f;
    padded.resize(f.size() + 5, pad);
    OvsSkb s = OvsRx(padded, IpSummed::kComplete);
    ASSERT_EQ(OvsCtExecute(s, {}, {}).err, 0);
    EXPECT_EQ(s.skb.pkt.bytes(), f);
    EXPECT_EQ(s.skb.ip_summed, IpSummed::kUnnecessary) << int{pad};
  }
}

TEST(KernelOvsCt, NatOnCommit) {
  OvsSkb s = OvsRx(V4(6), IpSummed::kComplete);
  OvsCtAction a;
  a.commit = true;
  NatTarget t;
  t.addr = {203, 0, 113, 5};
  t.port = 1234;
  a.nat = t;
  OvsCtOutcome o = OvsCtExecute(s, a, {});
  EXPECT_TRUE(o.nat_applied);
  EXPECT_EQ(s.ct_state, 0x21 | 0x40);
  const Bytes g = s.skb.pkt.bytes();
  EXPECT_EQ(g[29], 5);
  EXPECT_EQ(Be16(g, 50), OracleL4Csum(g, 14, 34, 6, 16));
  EXPECT_EQ(s.skb.ip_summed, IpSummed::kUnnecessary);
}

}  // namespace
}  // namespace offlab::kernel
