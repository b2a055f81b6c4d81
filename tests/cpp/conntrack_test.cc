// Connection tracking: checksum validation before tracking, states, NAT under
// rule M, NAT of ICMP error quotes, fragment reassembly, the three seeded
// conntrack/ipf faults, and robustness against malformed input.
//
// Frames were generated with scapy (the expression is next to each), so the
// expected bytes, NATed ones included, come from scapy's own checksums, not
// from offlab. Where an incremental update must keep a wrong checksum wrong
// by the same amount, the expected value was computed by hand in Python as
// ~(~wrong + old_correct + ~new_correct) over scapy's correct checksums. The
// "ICMP error NAT" pipeline test uses Open vSwitch's own vector
// (tests/dpif-netdev.at, "dpif-netdev - conntrack").
#include "offlab/ovs/conntrack.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "flow_test_util.h"
#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/net/error.h"
#include "offlab/net/headers.h"
#include "offlab/ovs/complete.h"
#include "offlab/ovs/faults.h"
#include "offlab/ovs/flow.h"
#include "offlab/ovs/parse.h"
#include "offlab/ovs/pipeline.h"
#include "offlab/ovs/send_prepare.h"

namespace offlab {
namespace {

using testing::CtAction;

// E = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02"), ER the reverse.

// E/IP(src="10.0.0.1",dst="10.0.0.2",id=1)/TCP(sport=40000,dport=80,flags="S",seq=1000)
const std::string kTcpSyn =
    "02000000000202000000000108004500002800010000400666cd0a0000010a0000029c400050000003e80000"
    "000050022000db670000";
// E/IP(src="10.0.0.1",dst="10.0.0.9",id=1)/TCP(sport=40000,dport=8080,flags="S",seq=1000)
const std::string kTcpSynDnat =
    "02000000000202000000000108004500002800010000400666c60a0000010a0000099c401f90000003e80000"
    "000050022000bc200000";
// E/IP(src="192.168.0.100",dst="10.0.0.2",id=1)/TCP(sport=40000,dport=80,flags="S",seq=1000)
const std::string kTcpSynSnat =
    "020000000002020000000001080045000028000100004006afc1c0a800640a0000029c400050000003e80000"
    "000050022000245c0000";
// E/IP(src="10.0.0.3",dst="10.0.0.2",id=1)/TCP(sport=40000,dport=80,flags="S",seq=1000)
const std::string kTcpSynC3 =
    "02000000000202000000000108004500002800010000400666cb0a0000030a0000029c400050000003e80000"
    "000050022000db650000";
// ER/IP(src="10.0.0.9",dst="10.0.0.1",id=2)/TCP(sport=8080,dport=40000,flags="SA",seq=5000,ack=1001)
const std::string kTcpSynAckFromNat =
    "02000000000102000000000208004500002800020000400666c50a0000090a0000011f909c40000013880000"
    "03e950122000a8870000";
// ER/IP(src="10.0.0.2",dst="10.0.0.1",id=2)/TCP(sport=80,dport=40000,flags="SA",seq=5000,ack=1001)
const std::string kTcpSynAck =
    "02000000000102000000000208004500002800020000400666cc0a0000020a00000100509c40000013880000"
    "03e950122000c7ce0000";
// E/IP(src="10.0.0.1",dst="10.0.0.2",id=3)/TCP(sport=40000,dport=80,flags="A",seq=1001,ack=5001)
const std::string kTcpAck =
    "02000000000202000000000108004500002800030000400666cb0a0000010a0000029c400050000003e90000"
    "138950102000c7cf0000";
// E/IP(src="10.0.0.1",dst="10.0.0.2",id=4)/TCP(sport=40000,dport=80,flags="R",seq=1001)
const std::string kTcpRst =
    "02000000000202000000000108004500002800040000400666ca0a0000010a0000029c400050000003e90000"
    "000050042000db640000";
// E/IP(src="10.0.0.1",dst="10.0.0.2",id=7)/UDP(sport=5000,dport=53)/Raw(b"query")
const std::string kUdp =
    "02000000000202000000000108004500002100070000401166c30a0000010a00000213880035000d882c7175"
    "657279";
// ER/IP(src="10.0.0.2",dst="10.0.0.1",id=8)/UDP(sport=53,dport=5000)/Raw(b"answer")
const std::string kUdpReply =
    "02000000000102000000000208004500002200080000401166c10a0000020a00000100351388000e9dba616e"
    "73776572";
// E/IP(src="10.0.0.1",dst="10.0.0.2",id=7)/UDP(sport=5000,dport=53,chksum=0)/Raw(b"query")
const std::string kUdpZero =
    "02000000000202000000000108004500002100070000401166c30a0000010a00000213880035000d00007175"
    "657279";
// E/IP(src="10.0.0.1",dst="10.0.0.9",id=7)/UDP(sport=5000,dport=53,chksum=0)/Raw(b"query")
const std::string kUdpZeroDnat =
    "02000000000202000000000108004500002100070000401166bc0a0000010a00000913880035000d00007175"
    "657279";
// E/IP(src="10.0.0.1",dst="10.0.0.2",id=9)/ICMP(type=8,id=0x1234,seq=1)/Raw(b"ping")
const std::string kIcmpEcho =
    "02000000000202000000000108004500002000090000400166d20a0000010a000002080006fa123400017069"
    "6e67";
// ER/IP(src="10.0.0.2",dst="10.0.0.1",id=10)/ICMP(type=0,id=0x1234,seq=1)/Raw(b"ping")
const std::string kIcmpEchoReply =
    "020000000001020000000002080045000020000a0000400166d10a0000020a00000100000efa123400017069"
    "6e67";
// E/IP(src="10.0.0.1",dst="10.0.0.2",id=11)/SCTP(sport=7000,dport=7001,tag=1)/
//   SCTPChunkData(data=b"abcd")
const std::string kSctp =
    "020000000002020000000001080045000034000b0000408466390a0000010a0000021b581b59000000017687"
    "f4700000001400000000000000000000000061626364";
// E/IP(src="10.0.0.1",dst="10.0.0.2",id=5)/GRE()/Raw(b"xx")
const std::string kGre =
    "02000000000202000000000108004500001a00050000402f66ae0a0000010a000002000000007878";
// E/IPv6(src="2001:db8::1",dst="2001:db8::2")/TCP(sport=40000,dport=80,flags="S")
const std::string kTcp6 =
    "02000000000202000000000186dd600000000014064020010db800000000000000000000000120010db80000"
    "000000000000000000029c40005000000000000000005002200097dd0000";
// E/IPv6(src="2001:db8::1",dst="2001:db8::9")/TCP(sport=40000,dport=80,flags="S")
const std::string kTcp6Dnat =
    "02000000000202000000000186dd600000000014064020010db800000000000000000000000120010db80000"
    "000000000000000000099c40005000000000000000005002200097d60000";
// E/IPv6(src="2001:db8::1",dst="2001:db8::2")/ICMPv6EchoRequest(id=7,seq=1,data=b"ping")
const std::string kIcmp6Echo =
    "02000000000202000000000186dd60000000000c3a4020010db800000000000000000000000120010db80000"
    "000000000000000000028000456b0007000170696e67";

// ER/IPv6(src="2001:db8::9",dst="2001:db8::1")/ICMPv6DestUnreach(code=4)/
//   IPv6(src="2001:db8::1",dst="2001:db8::9")/TCP(sport=40000,dport=80,flags="S")
const std::string kIcmp6Err =
    "02000000000102000000000286dd6000000000443a4020010db800000000000000000000000920010db80000"
    "0000000000000000000101043cc700000000600000000014064020010db80000000000000000000000012001"
    "0db80000000000000000000000099c40005000000000000000005002200097d60000";
// ER/IPv6(src="2001:db8::2",dst="2001:db8::1")/ICMPv6DestUnreach(code=4)/
//   IPv6(src="2001:db8::1",dst="2001:db8::2")/TCP(sport=40000,dport=80,flags="S")
const std::string kIcmp6ErrUnnat =
    "02000000000102000000000286dd6000000000443a4020010db800000000000000000000000220010db80000"
    "0000000000000000000101043cce00000000600000000014064020010db80000000000000000000000012001"
    "0db80000000000000000000000029c40005000000000000000005002200097dd0000";

// Port unreachable from the translated server back to the client, quoting
// the translated SYN:
// ER/IP(src="10.0.0.9",dst="10.0.0.1",id=20)/ICMP(type=3,code=3)/
//   IP(src="10.0.0.1",dst="10.0.0.9",id=1)/TCP(sport=40000,dport=8080,flags="S",seq=1000)
const std::string kIcmpErr =
    "020000000001020000000002080045000044001400004001669c0a0000090a00000103031121000000004500"
    "002800010000400666c60a0000010a0000099c401f90000003e80000000050022000bc200000";
// The same as the client must see it:
// ER/IP(src="10.0.0.2",dst="10.0.0.1",id=20)/ICMP(type=3,code=3)/
//   IP(src="10.0.0.1",dst="10.0.0.2",id=1)/TCP(sport=40000,dport=80,flags="S",seq=1000)
const std::string kIcmpErrUnnat =
    "02000000000102000000000208004500004400140000400166a30a0000020a0000010303111a000000004500"
    "002800010000400666cd0a0000010a0000029c400050000003e80000000050022000db670000";
// Quoting only 8 TCP bytes:
// ER/IP(src="10.0.0.9",dst="10.0.0.1",id=21)/ICMP(type=3,code=3)/Raw(bytes(
//   IP(src="10.0.0.1",dst="10.0.0.9",id=1,len=40)/TCP(sport=40000,dport=8080,flags="S",
//   seq=1000))[:28])
const std::string kIcmpErrShort =
    "02000000000102000000000208004500003800150000400166a70a0000090a00000103033d44000000004500"
    "002800010000400666c60a0000010a0000099c401f90000003e8";
// ... the same with src 10.0.0.2 / quoted dst 10.0.0.2:80.
const std::string kIcmpErrShortUnnat =
    "02000000000102000000000208004500003800150000400166ae0a0000020a00000103035c84000000004500"
    "002800010000400666cd0a0000010a0000029c400050000003e8";
// Quoted checksums wrong: q = bytes(IP(src="10.0.0.1",dst="10.0.0.9",id=1)/TCP(sport=40000,
// dport=8080,flags="S",seq=1000)); q[10] ^= 0x01; q[36] ^= 0xff;
// ER/IP(src="10.0.0.9",dst="10.0.0.1",id=22)/ICMP(type=3,code=3)/Raw(q)
const std::string kIcmpErrBadQuote =
    "020000000001020000000002080045000044001600004001669a0a0000090a00000103038921000000004500"
    "002800010000400667c60a0000010a0000099c401f90000003e8000000005002200043200000";
// ... translated; quoted IP checksum 67cd and TCP checksum 6267 are the hand
// computed RFC 1624 updates of the wrong 67c6 / 4320 (correct: 66cd / db67).
const std::string kIcmpErrBadQuoteUnnat =
    "02000000000102000000000208004500004400160000400166a10a0000020a0000010303891a000000004500"
    "002800010000400667cd0a0000010a0000029c400050000003e8000000005002200062670000";

// kTcpSyn with the IP checksum ^= 1 (66cd -> 66cc).
const std::string kTcpSynBadIp =
    "02000000000202000000000108004500002800010000400667cd0a0000010a0000029c400050000003e80000"
    "000050022000db670000";
// kTcpSynDnat with IP checksum 66c5: the RFC 1624 update of 66cc (same error).
const std::string kTcpSynBadIpDnat =
    "02000000000202000000000108004500002800010000400667c60a0000010a0000099c401f90000003e80000"
    "000050022000bc200000";

// UDP datagram of 3000 payload bytes P = bytes(range(256))*11 + bytes(184), fragmented by
// fragment(IP(src="10.0.0.1",dst="10.0.0.2",id=0x4242)/UDP(sport=5000,dport=9999)/Raw(P),
//          fragsize=1400)[k], each behind E. Headers from scapy; the payload is P's slice.
const std::string kFragHdr[3] = {
    "02000000000202000000000108004500058c424220004011ff1c0a0000010a0000021388270f0bc05717",
    "02000000000202000000000108004500058c424220af4011fe6d0a0000010a000002",
    "0200000000020200000000010800450000e44242015e401122670a0000010a000002"};
// The same datagram to 10.0.0.9:5353, fragmented the same way.
const std::string kNatFragHdr[3] = {
    "02000000000202000000000108004500058c424220004011ff150a0000010a000009138814e90bc06936",
    "02000000000202000000000108004500058c424220af4011fe660a0000010a000009",
    "0200000000020200000000010800450000e44242015e401122600a0000010a000009"};

// Open vSwitch tests/dpif-netdev.at "dpif-netdev - conntrack" frames: G is
// `ovs-ofctl compose-packet --bare` of 192.168.123.2:54392 -> .1:5201 ACK.
const std::string kOvsPay =
    "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b"
    "2c2d2e2f303132333435363738393a3b3c3d3e3f";
const std::string kOvsG =
    "0a8f394fe0738abf7e2f05840800"
    "45000068000000000006433cc0a87b02c0a87b01"
    "d47814510000000000000000501000006b720000" +
    kOvsPay;
const std::string kOvsGNat =
    "0a8f394fe0738abf7e2f05840800"
    "45000068000000000006bd3cc0a87b02c0a80101"
    "d4781451000000000000000050100000e5720000" +
    kOvsPay;
const std::string kOvsIcmp =
    "0a8f393fe0738abf7e2f05840800450000440001000040010364c0a87b02c0a87b010303746c000000004500"
    "0028000100004006037bc0a87b01c0a87b021451d4780000000000000000500220002fc40000";
const std::string kOvsIcmpNat =
    "0a8f393fe0738abf7e2f05840800450000440001000040017d64c0a87b02c0a801010303fa6b000000004500"
    "00280001000040067d7bc0a80101c0a87b021451d478000000000000000050022000a9c40000";

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  size_t pos = s.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  s.replace(pos, from.size(), to);
  return s;
}

Packet Make(const std::string& hex, CsumStatus ip = CsumStatus::kUnknown,
            CsumStatus l4 = CsumStatus::kUnknown) {
  Packet p(FromHex(hex));
  p.offloads.set_ip(ip);
  p.offloads.set_l4(l4);
  Parse(p);
  return p;
}

// Runs ct on one packet that is not a fragment.
Packet Track(Conntrack& ct, Packet p, const std::string& args, Counters* c = nullptr) {
  EXPECT_TRUE(ct.Execute(p, CtAction(args), c));
  return p;
}

std::string Hex(const Packet& p) { return ToHex(p.bytes()); }

Bytes FragPayload() {
  Bytes b;
  for (int r = 0; r < 11; r++) {
    for (int i = 0; i < 256; i++) b.push_back(static_cast<uint8_t>(i));
  }
  b.resize(3000, 0);
  return b;
}

// Fragment k of the datagram whose fragment headers are `hdrs`.
Bytes Frag(const std::string* hdrs, int k) {
  static const Bytes pay = FragPayload();
  static const size_t kBegin[3] = {0, 1392, 2792}, kEnd[3] = {1392, 2792, 3000};
  Bytes b = FromHex(hdrs[k]);
  b.insert(b.end(), pay.begin() + kBegin[k], pay.begin() + kEnd[k]);
  return b;
}

constexpr uint32_t kTrk = ct::kTracked;

// --- Validation in conn_key_extract ---------------------------------------

struct ValidationRow {
  const char* name;
  std::string frame;
  CsumStatus ip, l4;
  bool invalid;
  uint64_t l3_checked, l3_err, l4_checked, l4_err;
  CsumStatus ip_after, l4_after;
};

TEST(CtValidation, ChecksumRowsAndCounters) {
  using S = CsumStatus;
  const std::string tcp_bad_ip = Replace(kTcpSyn, "66cd", "66cc");
  const std::string tcp_bad_l4 = Replace(kTcpSyn, "db67", "db66");
  const ValidationRow rows[] = {
      {"tcp unknown", kTcpSyn, S::kUnknown, S::kUnknown, false, 1, 0, 1, 0, S::kGood, S::kGood},
      {"ip bad: no check", kTcpSyn, S::kBad, S::kUnknown, true, 0, 1, 0, 0, S::kBad, S::kUnknown},
      {"ip unknown corrupt", tcp_bad_ip, S::kUnknown, S::kUnknown, true, 1, 1, 0, 0, S::kBad,
       S::kUnknown},
      {"ip good trusted", tcp_bad_ip, S::kGood, S::kUnknown, false, 0, 0, 1, 0, S::kGood, S::kGood},
      {"ip partial trusted", tcp_bad_ip, S::kPartial, S::kUnknown, false, 0, 0, 1, 0, S::kPartial,
       S::kGood},
      {"l4 bad: no check", kTcpSyn, S::kUnknown, S::kBad, true, 1, 0, 0, 1, S::kGood, S::kBad},
      {"l4 unknown corrupt", tcp_bad_l4, S::kUnknown, S::kUnknown, true, 1, 0, 1, 1, S::kGood,
       S::kBad},
      {"l4 good trusted", tcp_bad_l4, S::kGood, S::kGood, false, 0, 0, 0, 0, S::kGood, S::kGood},
      {"l4 partial trusted", tcp_bad_l4, S::kGood, S::kPartial, false, 0, 0, 0, 0, S::kGood,
       S::kPartial},
      {"udp", kUdp, S::kUnknown, S::kUnknown, false, 1, 0, 1, 0, S::kGood, S::kGood},
      {"udp corrupt", Replace(kUdp, "882c", "882d"), S::kUnknown, S::kUnknown, true, 1, 0, 1, 1,
       S::kGood, S::kBad},
      {"udp checksum 0 skipped", kUdpZero, S::kUnknown, S::kUnknown, false, 1, 0, 0, 0, S::kGood,
       S::kUnknown},
      {"icmp always checked", kIcmpEcho, S::kGood, S::kGood, false, 0, 0, 1, 0, S::kGood, S::kGood},
      {"icmp unknown", kIcmpEcho, S::kUnknown, S::kUnknown, false, 1, 0, 1, 0, S::kGood,
       S::kUnknown},
      {"icmp corrupt despite good", Replace(kIcmpEcho, "06fa", "06fb"), S::kGood, S::kGood, true, 0,
       0, 1, 1, S::kGood, S::kGood},
      {"sctp", kSctp, S::kUnknown, S::kUnknown, false, 1, 0, 1, 0, S::kGood, S::kGood},
      {"sctp corrupt", Replace(kSctp, "7687f470", "7687f471"), S::kUnknown, S::kUnknown, true, 1, 0,
       1, 1, S::kGood, S::kBad},
      {"gre has no l4 check", kGre, S::kUnknown, S::kUnknown, false, 1, 0, 0, 0, S::kGood,
       S::kUnknown},
      {"tcp6", kTcp6, S::kUnknown, S::kUnknown, false, 0, 0, 1, 0, S::kUnknown, S::kGood},
      {"tcp6 corrupt", Replace(kTcp6, "97dd", "97de"), S::kUnknown, S::kUnknown, true, 0, 0, 1, 1,
       S::kUnknown, S::kBad},
      {"icmp6", kIcmp6Echo, S::kUnknown, S::kUnknown, false, 0, 0, 1, 0, S::kUnknown, S::kUnknown},
      {"icmp6 corrupt", Replace(kIcmp6Echo, "456b", "456c"), S::kUnknown, S::kUnknown, true, 0, 0,
       1, 1, S::kUnknown, S::kUnknown},
  };
  for (const ValidationRow& r : rows) {
    SCOPED_TRACE(r.name);
    Conntrack ct;
    Counters c;
    Packet p = Track(ct, Make(r.frame, r.ip, r.l4), "commit", &c);
    EXPECT_EQ(p.md.ct_state, r.invalid ? kTrk | ct::kInvalid : kTrk | ct::kNew);
    EXPECT_EQ(ct.connections(), r.invalid ? 0u : 1u) << "invalid packets are not tracked";
    EXPECT_EQ(c.Get("conntrack_l3csum_checked"), r.l3_checked);
    EXPECT_EQ(c.Get("conntrack_l3csum_err"), r.l3_err);
    EXPECT_EQ(c.Get("conntrack_l4csum_checked"), r.l4_checked);
    EXPECT_EQ(c.Get("conntrack_l4csum_err"), r.l4_err);
    EXPECT_EQ(p.offloads.ip(), r.ip_after);
    EXPECT_EQ(p.offloads.l4(), r.l4_after);
    EXPECT_EQ(Hex(p), r.frame) << "validation never changes bytes";
  }
}

TEST(CtValidation, SoftwareCheckRecordsL4Protocol) {
  for (auto [frame, proto] : {std::pair{kTcpSyn, L4Proto::kTcp}, std::pair{kUdp, L4Proto::kUdp},
                              std::pair{kSctp, L4Proto::kSctp}}) {
    Conntrack ct;
    Packet p = Make(frame);
    p.offloads.set_l4_proto(L4Proto::kNone);
    p = Track(ct, std::move(p), "");
    EXPECT_EQ(p.offloads.l4_proto(), proto);
  }
}

TEST(CtValidation, Ipv6ExtensionHeaderBeforeTheTcpHeader) {
  // kTcp6 with an 8-byte destination options header (next TCP, PadN of 6):
  // conntrack steps over it to the TCP header (its checksum, which does
  // not cover extension headers, stays 97dd) and checks it there.
  std::string with_opts = Replace(kTcp6, "600000000014064020010db8", "60000000001c3c4020010db8");
  with_opts.insert(2 * 54, "0600010400000000");
  for (bool corrupt : {false, true}) {
    Conntrack ct;
    Counters c;
    const std::string f = corrupt ? Replace(with_opts, "97dd", "97de") : with_opts;
    Packet p = Track(ct, Make(f), "", &c);
    EXPECT_EQ(p.md.ct_state, corrupt ? kTrk | ct::kInvalid : kTrk | ct::kNew) << corrupt;
    EXPECT_EQ(c.Get("conntrack_l4csum_err"), corrupt ? 1u : 0u);
  }
}

TEST(CtValidation, InvalidPacketIsNotNated) {
  Conntrack ct;
  Packet p = Track(ct, Make(kTcpSyn, CsumStatus::kBad), "commit,nat(dst=10.0.0.9:8080)");
  EXPECT_EQ(p.md.ct_state, kTrk | ct::kInvalid);
  EXPECT_EQ(Hex(p), kTcpSyn);
  EXPECT_EQ(ct.connections(), 0u);
}

// --- States ---------------------------------------------------------------

TEST(CtState, WithoutCommitNothingIsStored) {
  Conntrack ct;
  EXPECT_EQ(Track(ct, Make(kUdp), "").md.ct_state, kTrk | ct::kNew);
  EXPECT_EQ(Track(ct, Make(kUdp), "").md.ct_state, kTrk | ct::kNew);
  EXPECT_EQ(ct.connections(), 0u);
  EXPECT_EQ(Track(ct, Make(kUdpReply), "").md.ct_state, kTrk | ct::kNew) << "no entry to reply to";
}

TEST(CtState, UdpNewThenReplyThenEstablished) {
  Conntrack ct;
  EXPECT_EQ(Track(ct, Make(kUdp), "commit").md.ct_state, kTrk | ct::kNew);
  EXPECT_EQ(ct.connections(), 1u);
  // Until the other side answered, the original direction is still new.
  EXPECT_EQ(Track(ct, Make(kUdp), "").md.ct_state, kTrk | ct::kNew);
  EXPECT_EQ(Track(ct, Make(kUdpReply), "").md.ct_state, kTrk | ct::kEstablished | ct::kReplyDir);
  EXPECT_EQ(Track(ct, Make(kUdp), "").md.ct_state, kTrk | ct::kEstablished);
  EXPECT_EQ(ct.connections(), 1u);
}

TEST(CtState, ZonesAreSeparate) {
  Conntrack ct;
  Packet p = Track(ct, Make(kUdp), "commit,zone=1");
  EXPECT_EQ(p.md.ct_zone, 1);
  EXPECT_EQ(Track(ct, Make(kUdpReply), "zone=2").md.ct_state, kTrk | ct::kNew);
  EXPECT_EQ(Track(ct, Make(kUdpReply), "zone=1").md.ct_state,
            kTrk | ct::kEstablished | ct::kReplyDir);
}

TEST(CtState, TcpHandshakeRstAndReopen) {
  Conntrack ct;
  EXPECT_EQ(Track(ct, Make(kTcpSyn), "commit").md.ct_state, kTrk | ct::kNew);
  EXPECT_EQ(Track(ct, Make(kTcpSyn), "").md.ct_state, kTrk | ct::kNew) << "SYN retransmission";
  EXPECT_EQ(Track(ct, Make(kTcpSynAck), "").md.ct_state, kTrk | ct::kEstablished | ct::kReplyDir);
  EXPECT_EQ(Track(ct, Make(kTcpAck), "").md.ct_state, kTrk | ct::kEstablished);
  EXPECT_EQ(Track(ct, Make(kTcpRst), "").md.ct_state, kTrk | ct::kEstablished);
  // After the reset a SYN opens a new connection on the same tuple.
  EXPECT_EQ(Track(ct, Make(kTcpSyn), "commit").md.ct_state, kTrk | ct::kNew);
  EXPECT_EQ(ct.connections(), 1u);
  EXPECT_EQ(Track(ct, Make(kTcpSynAck), "").md.ct_state, kTrk | ct::kEstablished | ct::kReplyDir);
}

TEST(CtState, TcpSynAckOrBadFlagsCannotOpen) {
  Conntrack ct;
  EXPECT_EQ(Track(ct, Make(kTcpSynAck), "commit").md.ct_state, kTrk | ct::kInvalid);
  // SYN+RST (flags 0x06): 0x5002 -> 0x5006, checksum db67 -> db63.
  std::string syn_rst = Replace(kTcpSyn, "50022000db67", "50062000db63");
  EXPECT_EQ(Track(ct, Make(syn_rst), "commit").md.ct_state, kTrk | ct::kInvalid);
  EXPECT_EQ(ct.connections(), 0u);
}

TEST(CtState, IcmpEchoAndRelatedError) {
  Conntrack ct;
  EXPECT_EQ(Track(ct, Make(kIcmpEchoReply), "commit").md.ct_state, kTrk | ct::kInvalid)
      << "only a request opens an ICMP connection";
  EXPECT_EQ(Track(ct, Make(kIcmpEcho), "commit").md.ct_state, kTrk | ct::kNew);
  EXPECT_EQ(Track(ct, Make(kIcmpEchoReply), "").md.ct_state,
            kTrk | ct::kEstablished | ct::kReplyDir);

  // An ICMP error quoting a packet of no known connection is invalid.
  EXPECT_EQ(Track(ct, Make(kIcmpErrUnnat), "commit").md.ct_state, kTrk | ct::kInvalid);
  // Once the SYN is committed, the error about it (coming back) is related.
  Track(ct, Make(kTcpSyn), "commit");
  EXPECT_EQ(Track(ct, Make(kIcmpErrUnnat), "").md.ct_state, kTrk | ct::kRelated | ct::kReplyDir);
  EXPECT_EQ(ct.connections(), 2u) << "a related error creates nothing";
}

// --- NAT under rule M ------------------------------------------------------

TEST(CtNat, ValidStatusDefersChecksumsBothDirections) {
  Conntrack ct;
  Packet p = Track(ct, Make(kTcpSyn, CsumStatus::kGood, CsumStatus::kGood),
                   "commit,nat(dst=10.0.0.9:8080)");
  EXPECT_EQ(p.md.ct_state, kTrk | ct::kNew | ct::kDstNat);
  // Addresses and ports are translated; both checksums are left as they were
  // and marked partial for whoever finishes them.
  std::string deferred = Replace(Replace(kTcpSynDnat, "66c6", "66cd"), "bc20", "db67");
  EXPECT_EQ(Hex(p), deferred);
  EXPECT_EQ(p.offloads.ip(), CsumStatus::kPartial);
  EXPECT_EQ(p.offloads.l4(), CsumStatus::kPartial);
  SendPrepare(p, 0);
  EXPECT_EQ(Hex(p), kTcpSynDnat);

  // The reply comes from the translated address and goes back translated.
  Packet r = Track(ct, Make(kTcpSynAckFromNat, CsumStatus::kGood, CsumStatus::kGood), "nat");
  EXPECT_EQ(r.md.ct_state, kTrk | ct::kEstablished | ct::kReplyDir | ct::kSrcNat);
  EXPECT_EQ(r.offloads.ip(), CsumStatus::kPartial);
  SendPrepare(r, 0);
  EXPECT_EQ(Hex(r), kTcpSynAck);

  Packet a = Track(ct, Make(kTcpAck), "nat");
  EXPECT_EQ(a.md.ct_state, kTrk | ct::kEstablished | ct::kDstNat);
  SendPrepare(a, 0);
  const uint8_t* ip = a.l3();
  EXPECT_EQ(ToHex(ip + hdr::kIpv4DstOfs, 4), "0a000009");
  EXPECT_EQ(GetBe16(a.l4() + 2), 8080);
  EXPECT_TRUE(csum::Verify(ip, 20));
  EXPECT_TRUE(csum::Verify(a.l4(), 20, csum::PseudoIpv4(ip + 12, ip + 16, 6, 20)));
}

TEST(CtNat, UnknownStatusIsCheckedThenDeferred) {
  Conntrack ct;
  Counters c;
  Packet p = Track(ct, Make(kTcpSyn), "commit,nat(dst=10.0.0.9:8080)", &c);
  EXPECT_EQ(c.Get("conntrack_l3csum_checked"), 1u);
  EXPECT_EQ(c.Get("conntrack_l4csum_checked"), 1u);
  EXPECT_EQ(p.offloads.ip(), CsumStatus::kPartial);
  EXPECT_EQ(p.offloads.l4(), CsumStatus::kPartial);
  SendPrepare(p, 0);
  EXPECT_EQ(Hex(p), kTcpSynDnat);
}

TEST(CtNat, UdpChecksumZeroStaysZero) {
  Conntrack ct;
  Packet p = Track(ct, Make(kUdpZero), "commit,nat(dst=10.0.0.9)");
  EXPECT_EQ(p.offloads.l4(), CsumStatus::kUnknown);
  EXPECT_EQ(GetBe16(p.l4() + hdr::kUdpCsumOfs), 0);
  SendPrepare(p, 0);
  EXPECT_EQ(Hex(p), kUdpZeroDnat);
}

TEST(CtNat, SnatAndSourcePortCollision) {
  Conntrack ct;
  Packet p = Track(ct, Make(kTcpSyn), "commit,nat(src=192.168.0.100)");
  EXPECT_EQ(p.md.ct_state, kTrk | ct::kNew | ct::kSrcNat);
  SendPrepare(p, 0);
  EXPECT_EQ(Hex(p), kTcpSynSnat);
  // Another client with the same source port would map to the same reply
  // tuple: its source port moves.
  Packet q = Track(ct, Make(kTcpSynC3), "commit,nat(src=192.168.0.100)");
  SendPrepare(q, 0);
  EXPECT_EQ(ToHex(q.l3() + hdr::kIpv4SrcOfs, 4), "c0a80064");
  EXPECT_NE(GetBe16(q.l4()), 40000);
  const uint8_t* ip = q.l3();
  EXPECT_TRUE(csum::Verify(q.l4(), 20, csum::PseudoIpv4(ip + 12, ip + 16, 6, 20)));
  EXPECT_EQ(ct.connections(), 2u);
}

TEST(CtNat, Ipv6Dnat) {
  Conntrack ct;
  Packet p = Track(ct, Make(kTcp6, CsumStatus::kUnknown, CsumStatus::kGood),
                   "commit,nat(dst=2001:db8::9)");
  EXPECT_EQ(p.md.ct_state, kTrk | ct::kNew | ct::kDstNat);
  EXPECT_EQ(p.offloads.l4(), CsumStatus::kPartial);
  SendPrepare(p, 0);
  EXPECT_EQ(Hex(p), kTcp6Dnat);
}

TEST(CtNat, OnlyCtWithNatTranslates) {
  Conntrack ct;
  Track(ct, Make(kTcpSyn), "commit,nat(dst=10.0.0.9:8080)");
  // As in OVS, a ct() without nat tracks the packet but leaves it alone.
  Packet p = Track(ct, Make(kTcpAck), "");
  EXPECT_EQ(p.md.ct_state, kTrk | ct::kEstablished);
  EXPECT_EQ(Hex(p), kTcpAck);
}

TEST(CtNat, NotTranslatedTwiceInOneZone) {
  Conntrack ct;
  Packet p = Track(ct, Make(kTcpSyn), "commit,nat(dst=10.0.0.9:8080)");
  const std::string once = Hex(p);
  // A second ct(nat) in the zone finds the connection from the translated tuple.
  p = Track(ct, std::move(p), "nat");
  EXPECT_EQ(p.md.ct_state, kTrk | ct::kNew | ct::kDstNat);
  EXPECT_EQ(Hex(p), once);
  EXPECT_EQ(ct.connections(), 1u);
}

// --- ICMP error NAT (nat_inner_packet) ---------------------------------------

// Commits the client's SYN to 10.0.0.2:80 translated to 10.0.0.9:8080.
void CommitDnat(Conntrack& ct) { Track(ct, Make(kTcpSyn), "commit,nat(dst=10.0.0.9:8080)"); }

TEST(CtIcmpError, QuotedHeadersTranslatedIncrementally) {
  Conntrack ct;
  CommitDnat(ct);
  Packet p = Track(ct, Make(kIcmpErr, CsumStatus::kGood, CsumStatus::kGood), "nat");
  EXPECT_EQ(p.md.ct_state, kTrk | ct::kRelated | ct::kReplyDir | ct::kSrcNat);
  // The quoted checksums are final right away; only the outer IP is partial,
  // and the outer L4 status is what it was.
  EXPECT_EQ(ToHex(p.bytes()).substr(2 * 14 + 2 * 28), kIcmpErrUnnat.substr(2 * 14 + 2 * 28));
  EXPECT_EQ(p.offloads.ip(), CsumStatus::kPartial);
  EXPECT_EQ(p.offloads.l4(), CsumStatus::kGood);
  SendPrepare(p, 0);
  EXPECT_EQ(Hex(p), kIcmpErrUnnat);
}

TEST(CtIcmpError, ShortQuoteGetsItsPortsTranslated) {
  Conntrack ct;
  CommitDnat(ct);
  Packet p = Track(ct, Make(kIcmpErrShort), "nat");
  EXPECT_EQ(p.md.ct_state, kTrk | ct::kRelated | ct::kReplyDir | ct::kSrcNat);
  SendPrepare(p, 0);
  EXPECT_EQ(Hex(p), kIcmpErrShortUnnat);
}

TEST(CtIcmpError, WrongQuotedChecksumsKeepTheirError) {
  Conntrack ct;
  CommitDnat(ct);
  Packet p = Track(ct, Make(kIcmpErrBadQuote, CsumStatus::kGood, CsumStatus::kGood), "nat");
  SendPrepare(p, 0);
  EXPECT_EQ(Hex(p), kIcmpErrBadQuoteUnnat);
}

TEST(CtIcmpError, Ipv6QuotedHeadersTranslated) {
  Conntrack ct;
  Counters c;
  Track(ct, Make(kTcp6), "commit,nat(dst=2001:db8::9)");
  Packet p = Track(ct, Make(kIcmp6Err, CsumStatus::kUnknown, CsumStatus::kGood), "nat", &c);
  EXPECT_EQ(p.md.ct_state, kTrk | ct::kRelated | ct::kReplyDir | ct::kSrcNat);
  EXPECT_EQ(c.Get("conntrack_l4csum_checked"), 1u) << "ICMPv6 is checked whatever the status";
  EXPECT_EQ(p.offloads.l4(), CsumStatus::kGood);
  SendPrepare(p, 0);
  EXPECT_EQ(Hex(p), kIcmp6ErrUnnat);
}

// Ports p1 (no RX flag) and p3 (ol_ip_rx_csum_set_good) stand for OVS's p1
// before and after `ovs-vsctl set Interface p1 options:ol_ip_rx_csum_set_good=true`.
std::vector<Sent> OvsIcmpVector(bool with_fault) {
  Pipeline br;
  br.AddPort({.name = "p1"});
  br.AddPort({.name = "p2"});
  br.AddPort({.name = "p3", .options = {{"ol_ip_rx_csum_set_good", "true"}}});
  br.AddFlow("in_port=p1,ip,actions=ct(commit,nat(dst=192.168.1.1)),output:p2");
  br.AddFlow("in_port=p3,icmp,actions=ct(commit,nat(dst=192.168.1.1)),output:p2");
  auto out = br.Receive("p1", FromHex(kOvsG));
  EXPECT_EQ(out.size(), 1u);
  if (!out.empty()) {
    EXPECT_EQ(ToHex(out[0].frame), kOvsGNat);
  }
  std::optional<ScopedFault> fault;
  if (with_fault) fault.emplace(Fault::kCtIcmpErrorKeepsOuterStatus);
  return br.Receive("p3", FromHex(kOvsIcmp));
}

TEST(CtIcmpError, OvsVector) {
  auto out = OvsIcmpVector(false);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(ToHex(out[0].frame), kOvsIcmpNat);
}

// --- Seeded faults --------------------------------------------------------

TEST(CtFaults, IcmpErrorKeepsOuterStatusLeavesQuotedChecksumsStale) {
  auto out = OvsIcmpVector(true);
  ASSERT_EQ(out.size(), 1u);
  const std::string got = ToHex(out[0].frame);
  EXPECT_NE(got, kOvsIcmpNat);
  // The quoted IP header got its new source but kept its old checksum.
  const Bytes f = out[0].frame;
  const uint8_t* quoted = f.data() + 14 + 20 + 8;
  EXPECT_EQ(ToHex(quoted + hdr::kIpv4SrcOfs, 4), "c0a80101");
  EXPECT_EQ(GetBe16(quoted + hdr::kIpv4CsumOfs), 0x037b);
  EXPECT_FALSE(csum::Verify(quoted, 20));

  // Same at the conntrack level with both outer statuses valid: the quoted
  // TCP checksum is stale too.
  ScopedFault fault(Fault::kCtIcmpErrorKeepsOuterStatus);
  Conntrack ct;
  CommitDnat(ct);
  Packet p = Track(ct, Make(kIcmpErr, CsumStatus::kGood, CsumStatus::kGood), "nat");
  SendPrepare(p, 0);
  EXPECT_NE(Hex(p), kIcmpErrUnnat);
  const uint8_t* q = p.data() + 14 + 20 + 8;
  EXPECT_EQ(GetBe16(q + hdr::kIpv4CsumOfs), 0x66c6);
  EXPECT_EQ(GetBe16(q + 20 + hdr::kTcpCsumOfs), 0xbc20);
}

TEST(CtFaults, SkipsUnknownIpCheckTracksAndNatsCorruptHeader) {
  {
    Conntrack ct;
    Counters c;
    Packet p = Track(ct, Make(kTcpSynBadIp), "commit,nat(dst=10.0.0.9:8080)", &c);
    EXPECT_EQ(p.md.ct_state, kTrk | ct::kInvalid);
    EXPECT_EQ(c.Get("conntrack_l3csum_checked"), 1u);
    EXPECT_EQ(c.Get("conntrack_l3csum_err"), 1u);
    EXPECT_EQ(ct.connections(), 0u);
    EXPECT_EQ(Hex(p), kTcpSynBadIp);
  }
  ScopedFault fault(Fault::kCtSkipsUnknownIpCheck);
  Conntrack ct;
  Counters c;
  Packet p = Track(ct, Make(kTcpSynBadIp), "commit,nat(dst=10.0.0.9:8080)", &c);
  EXPECT_EQ(p.md.ct_state, kTrk | ct::kNew | ct::kDstNat);
  EXPECT_EQ(c.Get("conntrack_l3csum_checked"), 0u);
  EXPECT_EQ(c.Get("conntrack_l3csum_err"), 0u);
  EXPECT_EQ(ct.connections(), 1u);
  // The unknown IP checksum is updated incrementally: still wrong by one.
  EXPECT_EQ(p.offloads.ip(), CsumStatus::kUnknown);
  SendPrepare(p, 0);
  EXPECT_EQ(Hex(p), kTcpSynBadIpDnat);
}

TEST(CtFaults, IpfChecksNonFragmentsStealsTheCounter) {
  {
    Conntrack ct;
    Counters c;
    EXPECT_EQ(Track(ct, Make(kTcpSyn, CsumStatus::kBad), "", &c).md.ct_state, kTrk | ct::kInvalid);
    EXPECT_EQ(c.Get("conntrack_l3csum_err"), 1u);
    EXPECT_EQ(c.Get("ipf_l3csum_err"), 0u);
  }
  ScopedFault fault(Fault::kIpfChecksNonFragments);
  Conntrack ct;
  Counters c;
  EXPECT_EQ(Track(ct, Make(kTcpSyn, CsumStatus::kBad), "", &c).md.ct_state, kTrk | ct::kInvalid);
  EXPECT_EQ(c.Get("conntrack_l3csum_err"), 0u);
  EXPECT_EQ(c.Get("ipf_l3csum_err"), 1u);
}

// --- ipf ------------------------------------------------------------------

TEST(Ipf, NonFragmentsAreLeftToConntrack) {
  Conntrack ct;
  Counters c;
  Track(ct, Make(kTcpSyn), "", &c);
  EXPECT_EQ(c.Get("ipf_l3csum_checked"), 0u);
  EXPECT_EQ(c.Get("ipf_l3csum_err"), 0u);
}

TEST(Ipf, FragmentsReassembledNatedAndReleased) {
  Conntrack ct;
  Counters c;
  const CtSpec spec = CtAction("commit,nat(dst=10.0.0.9:5353)");
  // Out of order: last, first, middle.
  EXPECT_TRUE(ct.Execute(PacketBatch{Make(ToHex(Frag(kFragHdr, 2)))}, spec, &c).empty());
  EXPECT_EQ(ct.held_fragments(), 1u);
  EXPECT_TRUE(ct.Execute(PacketBatch{Make(ToHex(Frag(kFragHdr, 0)))}, spec, &c).empty());
  EXPECT_EQ(ct.held_fragments(), 2u);
  PacketBatch out = ct.Execute(PacketBatch{Make(ToHex(Frag(kFragHdr, 1)))}, spec, &c);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(ct.held_fragments(), 0u);
  EXPECT_EQ(ct.connections(), 1u);
  EXPECT_EQ(c.Get("ipf_l3csum_checked"), 3u);
  EXPECT_EQ(c.Get("ipf_l3csum_err"), 0u);
  // The reassembly's IP header was verified by ipf; its UDP checksum by conntrack.
  EXPECT_EQ(c.Get("conntrack_l3csum_checked"), 0u);
  EXPECT_EQ(c.Get("conntrack_l4csum_checked"), 1u);
  for (int k = 0; k < 3; k++) {
    SCOPED_TRACE(k);
    Packet& f = out[k];
    EXPECT_EQ(f.md.ct_state, kTrk | ct::kNew | ct::kDstNat);
    // The first fragment's UDP header is final already: it was computed over
    // the whole translated datagram before being copied back.
    if (k == 0) {
      EXPECT_EQ(ToHex(f.l3() + 20, 8), kNatFragHdr[0].substr(2 * 34));
    }
    EXPECT_EQ(f.offloads.ip(), CsumStatus::kPartial);
    SendPrepare(f, 0);
    EXPECT_EQ(f.bytes(), Frag(kNatFragHdr, k));
  }
}

TEST(Ipf, FragmentChecksumValidation) {
  const Bytes frag0 = Frag(kFragHdr, 0);
  {
    Conntrack ct;
    Counters c;
    Packet p = Make(ToHex(frag0), CsumStatus::kBad);
    ASSERT_TRUE(ct.Execute(p, CtAction("commit"), &c));
    EXPECT_EQ(p.md.ct_state, kTrk | ct::kInvalid);
    EXPECT_EQ(c.Get("ipf_l3csum_checked"), 0u);
    EXPECT_EQ(c.Get("ipf_l3csum_err"), 1u);
    EXPECT_EQ(c.Get("conntrack_l3csum_err"), 0u);
    EXPECT_EQ(ct.held_fragments(), 0u);
  }
  {
    Conntrack ct;
    Counters c;
    Packet p = Make(Replace(ToHex(frag0), "ff1c", "ff1d"));
    ASSERT_TRUE(ct.Execute(p, CtAction("commit"), &c));
    EXPECT_EQ(p.md.ct_state, kTrk | ct::kInvalid);
    EXPECT_EQ(p.offloads.ip(), CsumStatus::kBad);
    EXPECT_EQ(c.Get("ipf_l3csum_checked"), 1u);
    EXPECT_EQ(c.Get("ipf_l3csum_err"), 1u);
  }
  {
    // Trusted statuses are not checked again.
    Conntrack ct;
    Counters c;
    Packet p = Make(ToHex(frag0), CsumStatus::kGood);
    EXPECT_FALSE(ct.Execute(p, CtAction("commit"), &c));
    EXPECT_EQ(c.Get("ipf_l3csum_checked"), 0u);
    EXPECT_EQ(ct.held_fragments(), 1u);
  }
}

TEST(Ipf, DuplicateAndTooSmallFragmentsAreInvalid) {
  Conntrack ct;
  Packet a = Make(ToHex(Frag(kFragHdr, 0)));
  EXPECT_FALSE(ct.Execute(a, CtAction("")));
  Packet b = Make(ToHex(Frag(kFragHdr, 0)));
  ASSERT_TRUE(ct.Execute(b, CtAction("")));
  EXPECT_EQ(b.md.ct_state, kTrk | ct::kInvalid);

  Conntrack strict(IpfConfig{.min_v4_frag_size = 1500});
  Packet c = Make(ToHex(Frag(kFragHdr, 0)));
  ASSERT_TRUE(strict.Execute(c, CtAction("")));
  EXPECT_EQ(c.md.ct_state, kTrk | ct::kInvalid);
  // The last fragment may be short.
  Packet d = Make(ToHex(Frag(kFragHdr, 2)));
  EXPECT_FALSE(strict.Execute(d, CtAction("")));
}

TEST(Ipf, SinglePacketFormCannotReturnSeveral) {
  Conntrack ct;
  Packet a = Make(ToHex(Frag(kFragHdr, 0)));
  Packet b = Make(ToHex(Frag(kFragHdr, 1)));
  Packet c = Make(ToHex(Frag(kFragHdr, 2)));
  EXPECT_FALSE(ct.Execute(a, CtAction("")));
  EXPECT_FALSE(ct.Execute(b, CtAction("")));
  EXPECT_THROW(ct.Execute(c, CtAction("")), Error);
}

// --- Pipeline -------------------------------------------------------------

class CtPipeline : public ::testing::Test {
 protected:
  void SetUp() override {
    br_.AddPort(
        {.name = "p1",
         .options = {{"ol_ip_rx_csum_set_good", "true"}, {"ol_l4_rx_csum_set_good", "true"}}});
    br_.AddPort({.name = "p2"});
    br_.AddFlow("table=0,in_port=p1,ip,actions=ct(commit,nat(dst=10.0.0.9:8080),table=1)");
    br_.AddFlow("table=0,in_port=p2,ip,actions=ct(nat,table=1)");
    br_.AddFlow("table=1,in_port=p1,ct_state=+trk,actions=output:p2");
    br_.AddFlow("table=1,in_port=p2,ct_state=+trk+est,actions=output:p1");
  }
  Pipeline br_;
};

TEST_F(CtPipeline, DnatAndReplyOnTheWire) {
  auto out = br_.Receive("p1", FromHex(kTcpSyn));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].port, "p2");
  EXPECT_EQ(ToHex(out[0].frame), kTcpSynDnat);

  out = br_.Receive("p2", FromHex(kTcpSynAckFromNat));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].port, "p1");
  EXPECT_EQ(ToHex(out[0].frame), kTcpSynAck);
  EXPECT_EQ(br_.conntrack().connections(), 1u);

  // A reply with no connection behind it is new, not established: dropped.
  out = br_.Receive("p2", FromHex(kUdpReply));
  EXPECT_TRUE(out.empty());
}

TEST_F(CtPipeline, FragmentsLeaveAfterTheLastArrives) {
  // The flow translates the destination port to 8080 here.
  EXPECT_TRUE(br_.Receive("p1", Frag(kFragHdr, 0)).empty());
  EXPECT_TRUE(br_.Receive("p1", Frag(kFragHdr, 2)).empty());
  auto out = br_.Receive("p1", Frag(kFragHdr, 1));
  ASSERT_EQ(out.size(), 3u);
  for (int k = 0; k < 3; k++) {
    SCOPED_TRACE(k);
    EXPECT_EQ(out[k].port, "p2");
    const Bytes& f = out[k].frame;
    ASSERT_EQ(f.size(), Frag(kFragHdr, k).size());
    EXPECT_EQ(ToHex(f.data() + 14 + hdr::kIpv4DstOfs, 4), "0a000009");
    EXPECT_TRUE(csum::Verify(f.data() + 14, 20));
  }
  // The first fragment carries the translated UDP header; its checksum covers
  // the whole datagram, so verify it over the reassembled bytes.
  const Bytes& f0 = out[0].frame;
  EXPECT_EQ(GetBe16(f0.data() + 34 + 2), 8080);
  Bytes datagram(f0.begin() + 34, f0.end());
  for (int k = 1; k < 3; k++)
    datagram.insert(datagram.end(), out[k].frame.begin() + 34, out[k].frame.end());
  ASSERT_EQ(datagram.size(), 3008u);
  EXPECT_TRUE(csum::Verify(datagram.data(), datagram.size(),
                           csum::PseudoIpv4(f0.data() + 26, f0.data() + 30, 17, 3008)));
}

// --- Malformed input --------------------------------------------------------

TEST(CtMalformed, TruncatedFramesAreInvalidAndDoNotCrash) {
  const std::vector<std::string> frames = {kTcpSyn,
                                           kUdp,
                                           kIcmpEcho,
                                           kSctp,
                                           kTcp6,
                                           kIcmp6Echo,
                                           kIcmpErr,
                                           kIcmpErrShort,
                                           kGre,
                                           ToHex(Frag(kFragHdr, 0)).substr(0, 2 * 200),
                                           ToHex(Frag(kFragHdr, 2))};
  for (const std::string& hex : frames) {
    const Bytes full = FromHex(hex);
    Conntrack ct;
    CommitDnat(ct);
    for (size_t n = 0; n < full.size(); n++) {
      SCOPED_TRACE(hex.substr(0, 40) + " cut at " + std::to_string(n));
      Packet p(full.data(), n);
      Parse(p);
      PacketBatch out = ct.Execute(PacketBatch{p}, CtAction("commit,nat(dst=10.0.0.9:8080)"));
      ASSERT_EQ(out.size(), 1u);
      EXPECT_EQ(out[0].md.ct_state, kTrk | ct::kInvalid);
    }
  }
}

TEST(CtMalformed, StaleOffsetsAndRandomBytesDoNotCrash) {
  Conntrack ct;
  CommitDnat(ct);
  Packet unparsed(FromHex(kTcpSyn));
  EXPECT_EQ(Track(ct, unparsed, "commit").md.ct_state, kTrk | ct::kInvalid);
  Packet stale = Make(kTcpSyn);
  stale.l4_ofs = 1000;
  EXPECT_EQ(Track(ct, stale, "commit").md.ct_state, kTrk | ct::kInvalid);
  stale = Make(kTcpSyn);
  stale.l3_ofs = 40;
  EXPECT_EQ(Track(ct, stale, "commit").md.ct_state, kTrk | ct::kInvalid);

  std::mt19937 rng(1234);
  const std::vector<std::string> seeds = {kTcpSyn, kUdp,       kIcmpErr, kIcmpErrShort,
                                          kTcp6,   kIcmp6Echo, kSctp,    ToHex(Frag(kFragHdr, 2))};
  for (int i = 0; i < 20000; i++) {
    Bytes b = FromHex(seeds[i % seeds.size()]);
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < flips; k++) b[rng() % b.size()] ^= static_cast<uint8_t>(1 + rng() % 255);
    b.resize(b.size() - rng() % 8);
    Packet p(b);
    p.offloads.set_word(static_cast<uint32_t>(rng()) & 0x7f98);
    Parse(p);
    PacketBatch out =
        ct.Execute(PacketBatch{p}, CtAction(i % 2 ? "nat" : "commit,nat(src=10.9.9.9)"));
    ASSERT_LE(out.size(), 3u);
  }
  Pipeline br;
  br.AddPort({.name = "p1"});
  br.AddPort({.name = "p2"});
  br.AddFlow("in_port=p1,ip,actions=ct(commit,nat(dst=10.0.0.9)),output:p2");
  const Bytes err = FromHex(kIcmpErr);
  for (size_t n = 0; n <= err.size(); n++) {
    br.Receive("p1", Bytes(err.begin(), err.begin() + n));
  }
}

}  // namespace
}  // namespace offlab
