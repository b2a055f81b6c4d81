// Edges of the kernel conntrack model (models/src/linux/nf_conntrack.cc):
// get_l4proto refusing what it cannot read, the TCP/UDP/ICMP header checks
// of the l4 trackers, TCP's NEW-state table for FIN/RST/SYN-ACK, the ICMP
// types that may start a connection, nf_ip6_checksum leaving UNNECESSARY
// and PARTIAL skbs alone, netdev_rx_csum_fault for a wrong COMPLETE sum,
// and ct_state for a tracked skb without ctinfo.
//
// Source: torvalds/linux v6.18 net/netfilter/nf_conntrack_core.c
// (get_l4proto, ipv4_get_l4proto, ipv6_get_l4proto, resolve_normal_ct),
// nf_conntrack_proto_tcp.c (tcp_error, tcp_new: tcp_conntracks[0][*][NONE]),
// nf_conntrack_proto_udp.c (udp_error), nf_conntrack_proto_icmp.c
// (icmp_error, icmp_packet's valid_new), nf_conntrack_proto_icmpv6.c,
// net/netfilter/utils.c (nf_ip6_checksum), net/core/skbuff.c
// __skb_checksum_complete. Checksums: test_util.h's plain-loop oracle.
#include <gtest/gtest.h>

#include "kernel_test_skb.h"
#include "offlab/linux/nf_conntrack.h"
#include "offlab/linux/ovs_dp.h"

namespace offlab::kernel {
namespace {

using testing::Ipv4Frame;
using testing::Ipv6Frame;
using testing::NetworkSkb;
using testing::OracleL4Csum;
using testing::OracleSum;
using testing::Put16;

const std::string kTcpAck = "d478145100000001000000005010010000000000";

// `f` with its TCP/UDP checksum (at l4 + ofs) made right.
Bytes Fixed(Bytes f, size_t l4, uint8_t proto, size_t ofs) {
  Put16(f, l4 + ofs, OracleL4Csum(f, 14, l4, proto, ofs));
  return f;
}

// A TCPv4 frame with flags byte `flags`, checksum right.
Bytes Tcp4(uint8_t flags) {
  Bytes f = Ipv4Frame(6, kTcpAck);
  f[47] = flags;
  return Fixed(f, 34, 6, 16);
}

NfCtResult Track(const Bytes& f, NfCtExisting e = NfCtExisting::kNone,
                 IpSummed st = IpSummed::kNone, NfConntrackConfig cfg = {}) {
  SkBuff skb = NetworkSkb(f, st);
  return NfConntrackIn(skb, 14, NfHook::kPreRouting, cfg, e);
}

void ExpectInvalid(const NfCtResult& r, bool error_counter = false) {
  EXPECT_FALSE(r.tracked);
  EXPECT_EQ(r.OvsCtState(), ovs_cs::kTracked | ovs_cs::kInvalid);
  EXPECT_EQ(r.stat_invalid, error_counter ? 0u : 1u);
  EXPECT_EQ(r.stat_error, error_counter ? 1u : 0u);
}

TEST(KernelConntrackEdges, HeadersGetL4ProtoCannotReadAreNotTracked) {
  // ipv4_get_l4proto: the 20-byte header must be there; ipv6_get_l4proto:
  // ipv6_skip_exthdr fails on NEXTHDR_NONE (59) and on an extension header
  // cut short. A version that is neither 4 nor 6, or an skb that ends at
  // the network header, has no L4 protocol at all.
  const Bytes v4 = Ipv4Frame(6, kTcpAck);
  ExpectInvalid(Track(Bytes(v4.begin(), v4.begin() + 33)));
  ExpectInvalid(Track(Bytes(v4.begin(), v4.begin() + 14)));
  Bytes v5 = v4;
  v5[14] = 0x55;
  ExpectInvalid(Track(v5));
  const Bytes v6 = Ipv6Frame(6, "", kTcpAck);
  ExpectInvalid(Track(Bytes(v6.begin(), v6.begin() + 53)));
  ExpectInvalid(Track(Ipv6Frame(59, "", kTcpAck)));
  // One byte of a hop-by-hop header: ipv6_skip_exthdr cannot read its
  // 2-byte option header (-1).
  ExpectInvalid(Track(Ipv6Frame(0, "06", "")));
  // Whole, the same header leads to a tracked TCP packet.
  const Bytes hbh = Fixed(Ipv6Frame(0, "0600000000000000", kTcpAck), 62, 6, 16);
  EXPECT_TRUE(Track(hbh).tracked);
}

TEST(KernelConntrackEdges, AnIpv6TransportHeaderPastTheEndIsTheTrackersToRefuse) {
  // Four bytes of a hop-by-hop header (length 8): ipv6_skip_exthdr reads
  // its option header and returns 62, past the 58-byte packet, and
  // ipv6_get_l4proto (unlike ipv4_get_l4proto) does not check that. TCP
  // then has no ports to read (nf_ct_get_tuple fails: invalid); a protocol
  // without a tuple of its own (253) is tracked by the generic tracker;
  // ICMPv6 is icmpv6_error's "short packet" (error).
  ExpectInvalid(Track(Ipv6Frame(0, "06000000", "")));
  EXPECT_TRUE(Track(Ipv6Frame(0, "fd000000", "")).tracked);
  ExpectInvalid(Track(Ipv6Frame(0, "3a000000", "")), true);
}

TEST(KernelConntrackEdges, TcpDataOffsetMustFitTheSegment) {
  // tcp_error: "if (th->doff*4 < sizeof(struct tcphdr) || tcplen <
  // th->doff*4)" -> "truncated packet", invalid.
  Bytes doff4 = Tcp4(0x10);
  doff4[46] = 0x40;
  ExpectInvalid(Track(Fixed(doff4, 34, 6, 16)));
  Bytes doff6 = Tcp4(0x10);
  doff6[46] = 0x60;  // 24 bytes of header in a 20-byte segment
  ExpectInvalid(Track(Fixed(doff6, 34, 6, 16)));
  EXPECT_EQ(Track(Fixed(doff6, 34, 6, 16)).reason, "truncated packet");
}

TEST(KernelConntrackEdges, FromNoneOnlySynOrALooseAckStartAConnection) {
  // tcp_conntracks[0][*][TCP_CONNTRACK_NONE]: SYN -> SYN_SENT, ACK ->
  // ESTABLISHED (tcp_loose); SYN|ACK, FIN|ACK and RST -> INVALID.
  EXPECT_TRUE(Track(Tcp4(0x02)).tracked);
  EXPECT_TRUE(Track(Tcp4(0x10)).tracked);
  for (uint8_t flags : {uint8_t{0x12}, uint8_t{0x11}, uint8_t{0x04}, uint8_t{0x14}}) {
    const NfCtResult r = Track(Tcp4(flags));
    ExpectInvalid(r);
    EXPECT_EQ(r.reason, "invalid new") << int{flags};
  }
  // For an existing connection the same FIN|ACK is fine.
  EXPECT_TRUE(Track(Tcp4(0x11), NfCtExisting::kEstablished).tracked);
}

TEST(KernelConntrackEdges, UdpLengthsMustBeConsistent) {
  // udp_error: fewer than 8 bytes -> "short packet"; uh->len above the
  // bytes there or below 8 -> "truncated/malformed packet".
  const NfCtResult six = Track(Ipv4Frame(17, "1f9000350008"));
  ExpectInvalid(six);
  EXPECT_EQ(six.reason, "short packet");
  for (const char* len : {"0011", "0007"}) {
    const NfCtResult r = Track(Ipv4Frame(17, std::string("1f900035") + len + "000000000000000000"));
    ExpectInvalid(r);
    EXPECT_EQ(r.reason, "truncated/malformed packet") << len;
  }
}

TEST(KernelConntrackEdges, UdpCompleteSumIsCheckedAndTrusted) {
  // nf_ip_checksum: a COMPLETE sum that verifies with the pseudo header
  // turns the skb UNNECESSARY (no software pass).
  const Bytes f = Fixed(Ipv4Frame(17, "1f900035000d00000102030405"), 34, 17, 6);
  SkBuff skb = NetworkSkb(f, IpSummed::kComplete);
  const NfCtResult r = NfConntrackIn(skb, 14, NfHook::kPreRouting, {});
  EXPECT_TRUE(r.tracked);
  EXPECT_TRUE(r.checksum_checked);
  EXPECT_TRUE(r.checksum_ok);
  EXPECT_EQ(skb.ip_summed, IpSummed::kUnnecessary);
}

TEST(KernelConntrackEdges, IcmpErrorsAndTheTypesThatMayStartAConnection) {
  // icmp_error: fewer than 8 bytes -> error counter; icmp_packet: only
  // echo (8), timestamp (13), info (15) and address mask (17) requests may
  // be NEW; an echo reply (0) may not.
  ExpectInvalid(Track(Ipv4Frame(1, "0800f7ff")), true);
  for (uint8_t type : {uint8_t{13}, uint8_t{15}, uint8_t{17}}) {
    Bytes f = Ipv4Frame(1, "0000000000000000");
    f[34] = type;
    Put16(f, 36, static_cast<uint16_t>(~OracleSum(&f[34], 8)));
    EXPECT_TRUE(Track(f).tracked) << int{type};
  }
  const NfCtResult reply = Track(Ipv4Frame(1, "0000ffff00000000"));
  ExpectInvalid(reply);
  EXPECT_EQ(reply.reason, "invalid new");
  // A bad ICMP checksum in PRE_ROUTING is an error.
  const NfCtResult bad = Track(Ipv4Frame(1, "0800000000000000"));
  ExpectInvalid(bad, true);
  EXPECT_EQ(bad.reason, "bad hw icmp checksum");
}

TEST(KernelConntrackEdges, Icmpv6ChecksumAndNewTypes) {
  // icmpv6_error: nf_ip6_checksum over the pseudo header -> "ICMPv6
  // checksum failed" (error); a node information query (139) may be NEW,
  // an echo reply (129) may not.
  const NfCtResult bad = Track(Ipv6Frame(58, "", "8000000000000001"));
  ExpectInvalid(bad, true);
  EXPECT_EQ(bad.reason, "ICMPv6 checksum failed");
  const Bytes query = Fixed(Ipv6Frame(58, "", "8b00000000000001"), 54, 58, 2);
  EXPECT_TRUE(Track(query).tracked);
  const NfCtResult reply = Track(Fixed(Ipv6Frame(58, "", "8100000000000001"), 54, 58, 2));
  ExpectInvalid(reply);
}

TEST(KernelConntrackEdges, PortProtocolsNeedTheirFourPortBytes) {
  // resolve_normal_ct / nf_ct_get_tuple: UDP-Lite (136) and DCCP (33) carry
  // ports; with 3 bytes after the IP header there is no tuple.
  for (uint8_t proto : {uint8_t{136}, uint8_t{33}, uint8_t{132}}) {
    ExpectInvalid(Track(Ipv4Frame(proto, "1f9000")));
  }
  // GRE (47) has none: tracked by the generic tracker.
  EXPECT_TRUE(Track(Ipv4Frame(47, "00")).tracked);
}

TEST(KernelConntrackEdges, Ip6ChecksumTrustsUnnecessaryAndPartial) {
  // nf_ip6_checksum's switch has no case for them: 0, skb untouched.
  Bytes f = Fixed(Ipv6Frame(6, "", kTcpAck), 54, 6, 16);
  f[70] ^= 0xff;  // the checksum is wrong now
  for (IpSummed st : {IpSummed::kUnnecessary, IpSummed::kPartial}) {
    SkBuff skb = NetworkSkb(f, st);
    EXPECT_EQ(NfIp6Checksum(skb, 14, 54, NfHook::kPreRouting, 6), 0);
    EXPECT_EQ(skb.ip_summed, st);
    EXPECT_FALSE(skb.csum_valid);
  }
  // CHECKSUM_NONE: the software sum finds the error.
  SkBuff none = NetworkSkb(f, IpSummed::kNone);
  EXPECT_NE(NfIp6Checksum(none, 14, 54, NfHook::kPreRouting, 6), 0);
  EXPECT_EQ(none.ip_summed, IpSummed::kComplete);
}

TEST(KernelConntrackEdges, AWrongCompleteSumOverARightPacketIsAnRxCsumFault) {
  // __skb_checksum_complete: the COMPLETE sum disagreed but the software sum
  // verifies -> netdev_rx_csum_fault; the skb keeps the recomputed sum.
  for (bool v6 : {false, true}) {
    const Bytes f = v6 ? Fixed(Ipv6Frame(6, "", kTcpAck), 54, 6, 16) : Tcp4(0x10);
    SkBuff skb = NetworkSkb(f, IpSummed::kComplete);
    skb.csum += 1;
    const NfCtResult r = NfConntrackIn(skb, 14, NfHook::kPreRouting, {});
    EXPECT_TRUE(r.tracked) << v6;
    EXPECT_TRUE(r.rx_csum_fault) << v6;
    EXPECT_TRUE(skb.csum_valid) << v6;
    EXPECT_EQ(skb.ip_summed, IpSummed::kComplete) << v6;
  }
}

TEST(KernelConntrackEdges, NfIpChecksumRefusesOffsetsBeyondThePacket) {
  // The model answers 0 and leaves the skb alone when the IP header or the
  // transport offset is not in the skb.
  const Bytes f = Tcp4(0x10);
  SkBuff skb = NetworkSkb(f, IpSummed::kNone);
  EXPECT_EQ(NfIpChecksum(skb, 14, f.size() + 1, NfHook::kPreRouting, 6), 0);
  EXPECT_EQ(NfIpChecksum(skb, f.size() - 19, f.size(), NfHook::kPreRouting, 6), 0);
  EXPECT_EQ(skb.ip_summed, IpSummed::kNone);
  SkBuff v6 = NetworkSkb(Ipv6Frame(6, "", kTcpAck), IpSummed::kNone);
  EXPECT_EQ(NfIp6Checksum(v6, 14, 13, NfHook::kPreRouting, 6), 0);
  EXPECT_EQ(v6.ip_summed, IpSummed::kNone);
}

TEST(KernelConntrackEdges, ATrackedResultWithoutCtinfoIsJustTracked) {
  NfCtResult r;
  r.tracked = true;
  r.ctinfo = NfCtInfo::kNone;
  EXPECT_EQ(r.OvsCtState(), ovs_cs::kTracked);
  r.ctinfo = NfCtInfo::kEstablishedReply;
  EXPECT_EQ(r.OvsCtState(), ovs_cs::kTracked | ovs_cs::kEstablished | ovs_cs::kReplyDir);
  r.ctinfo = NfCtInfo::kRelated;
  EXPECT_EQ(r.OvsCtState(), ovs_cs::kTracked | ovs_cs::kRelated);
}

}  // namespace
}  // namespace offlab::kernel
