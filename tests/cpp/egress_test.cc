// Reference §1.1 "Egress" row and §1.3: the TSO policy of netdev_send,
// every step of dp_packet_ol_send_prepare, packet_udp_tunnel_csum (plain and
// under TSO), software GSO and partial GSO.
//
// Expected frames: OVS's vectors (R1-R3, R7) where they apply, else scapy
// 2.8 with oeth = Ether(src="aa:66:aa:66:00:00",dst="aa:66:aa:66:00:01"),
// eth = Ether(src="8a:bf:7e:2f:05:84",dst="0a:8f:39:4f:e0:73"),
// ip4 = IP(src="192.168.123.2",dst="192.168.123.1",ttl=64,id=0,flags=0) and
// the tunnel layers vx(inner) = oeth/IP(src="1.1.2.88",dst="1.1.2.92",ttl=64,
// id=0,flags="DF")/UDP(sport=57363,dport=4789)/VXLAN(vni=123,flags=0x08)/Raw(inner).
#include "offlab/ovs/egress.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "offlab/net/counters.h"
#include "offlab/net/error.h"
#include "offlab/net/work.h"
#include "offlab/nic/caps.h"
#include "offlab/nic/nic.h"
#include "offlab/ovs/gso.h"
#include "offlab/ovs/pipeline.h"
#include "offlab/ovs/rewrite.h"
#include "offlab/ovs/send_prepare.h"
#include "offlab/ovs/tunnel.h"
#include "test_util.h"

namespace offlab {
namespace {

using testing::H;
using testing::Hex;
using testing::kFrameG;
using testing::kFrameR2;
using testing::Parsed;
using testing::Push;
using testing::R3Outer;
using testing::R3Tunnel;
using testing::Sub;
using testing::With;

constexpr CsumStatus kUnknown = CsumStatus::kUnknown;
constexpr CsumStatus kBad = CsumStatus::kBad;
constexpr CsumStatus kGood = CsumStatus::kGood;
constexpr CsumStatus kPartial = CsumStatus::kPartial;

// G after mod_nw_dst:192.168.1.1 with valid statuses: the address is new,
// both checksums (433c, 6b72) stale and partial.
const std::string kR1Stale = Sub(kFrameG, "c0a87b01d478", "c0a80101d478");
// R1 gexp.
const std::string kR1 = Sub(Sub(kR1Stale, "433c", "bd3c"), "6b72", "e572");
// G after mod_tp_dst:2222 on a valid L4: new port, stale 6b72.
const std::string kR2Stale = Sub(kFrameG, "d4781451", "d47808ae");

// ip4/UDP(sport=5000,dport=6000)/Raw(bytes(range(32))) -> 6c50.
const std::string kUdp4 =
    H("0a8f394fe0738abf7e2f05840800 4500003c000000004011035dc0a87b02c0a87b01"
      "1388177000286c50 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
// ip4/SCTP(sport=5000,dport=6000,tag=0x01020304)/Raw(bytes(range(16))) -> a7c0ffe4.
const std::string kSctp4 =
    H("0a8f394fe0738abf7e2f05840800 4500003000000000408402f6c0a87b02c0a87b01"
      "1388177001020304a7c0ffe4 000102030405060708090a0b0c0d0e0f");

// --- step 1 ------------------------------------------------------------------------

TEST(SendPrepareStep1, NothingPartialLeavesThePacketAlone) {
  // Bad statuses over wrong bytes are never "fixed" at egress.
  Packet p = With(Sub(Sub(kFrameG, "433c", "433d"), "6b72", "dead"), kBad, kBad);
  const std::string before = Hex(p);
  SendPrepare(p, 0);
  EXPECT_EQ(Hex(p), before);
  EXPECT_EQ(p.offloads.word(), 0x10u | 0x08 | 0x200);

  Packet t = Parsed(R3Outer("339e", "bf4d") + kFrameR2);
  ASSERT_TRUE(ParseInner(t, 50));
  t.offloads.set_word(0x03801580);
  SendPrepare(t, 0);
  EXPECT_EQ(t.offloads.word(), 0x03801580u);
  EXPECT_EQ(Hex(t), R3Outer("339e", "bf4d") + kFrameR2);
}

// A finished inner frame in a VXLAN tunnel without outer UDP checksum: only
// the outer IPv4 checksum (template 0) is partial.
Packet OuterOnlyPartial() {
  Packet p = Push(With(kFrameR2, kGood, kGood), R3Tunnel(false));
  EXPECT_EQ(p.offloads.word(), 0x03801590u);
  return p;
}

TEST(SendPrepareStep1, OuterOnlyPartialDropsTheTunnelBits) {
  // Now a plain packet: its IP checksum needs IPV4_CKSUM, not OUTER_IP_CKSUM.
  Packet p = OuterOnlyPartial();
  SendPrepare(p, cap::kOuterIpCksum);
  EXPECT_EQ(p.offloads.word(), 0x03800580u);
  EXPECT_EQ(Hex(p), R3Outer("339e", "0000") + kFrameR2);

  Packet q = OuterOnlyPartial();
  SendPrepare(q, cap::kIpv4Cksum);
  EXPECT_EQ(q.offloads.word(), 0x03800590u);
  EXPECT_EQ(Hex(q), R3Outer("0000", "0000") + kFrameR2);
}

TEST(SendPrepareStep1, TsoPacketKeepsTheTunnelBits) {
  Packet p = OuterOnlyPartial();
  p.tso_segsz = 500;
  SendPrepare(p, cap::kOuterIpCksum);
  EXPECT_EQ(p.offloads.word(), 0x03801590u);
  EXPECT_EQ(Hex(p), R3Outer("0000", "0000") + kFrameR2);

  Packet q = OuterOnlyPartial();
  q.tso_segsz = 500;
  SendPrepare(q, cap::kIpv4Cksum);
  EXPECT_EQ(q.offloads.word(), 0x03801580u);
  EXPECT_EQ(Hex(q), R3Outer("339e", "0000") + kFrameR2);
}

// --- step 2: plain packets -----------------------------------------------------------

TEST(SendPrepareStep2, IpAndTcpPerCapability) {
  struct Case {
    uint32_t caps;
    std::string bytes;
    uint32_t word;
  };
  const Case cases[] = {
      {0, kR1, 0x80 | 0x100 | 0x200},
      {cap::kIpv4Cksum, Sub(kR1, "bd3c", "433c"), 0x90 | 0x100 | 0x200},
      {cap::kTcpCksum, Sub(kR1, "e572", "6b72"), 0x80 | 0x108 | 0x200},
      // UDP and SCTP capabilities do not cover TCP; outer ones do not apply.
      {cap::kUdpCksum | cap::kSctpCksum | cap::kOuterIpCksum | cap::kOuterUdpCksum, kR1,
       0x80 | 0x100 | 0x200},
      {cap::kAll, kR1Stale, 0x90 | 0x108 | 0x200},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(CapsToString(c.caps));
    Packet p = With(kR1Stale, kPartial, kPartial);
    SendPrepare(p, c.caps);
    EXPECT_EQ(Hex(p), c.bytes);
    EXPECT_EQ(p.offloads.word(), c.word);
  }
}

TEST(SendPrepareStep2, UdpPerCapability) {
  const std::string stale = Sub(kUdp4, "6c50", "1234");
  Packet p = With(stale, kGood, kPartial);
  SendPrepare(p, cap::kTcpCksum | cap::kSctpCksum);
  EXPECT_EQ(Hex(p), kUdp4);
  EXPECT_EQ(p.offloads.word(), 0x80u | 0x100 | 0x400);

  Packet q = With(stale, kGood, kPartial);
  SendPrepare(q, cap::kUdpCksum);
  EXPECT_EQ(Hex(q), stale);
  EXPECT_EQ(q.offloads.word(), 0x80u | 0x108 | 0x400);
}

TEST(SendPrepareStep2, UdpZeroLeftZeroAndComputedZeroSentAsFfff) {
  Packet z = With(Sub(kUdp4, "6c50", "0000"), kGood, kPartial);
  SendPrepare(z, 0);
  EXPECT_EQ(Hex(z), Sub(kUdp4, "6c50", "0000"));
  EXPECT_EQ(z.offloads.l4(), kGood);

  // ip4/UDP(sport=5000,dport=33728)/Raw(bytes(range(32))) sums to 0: scapy ffff.
  const std::string ffff = Sub(kUdp4, "1388177000286c50", "138883c00028ffff");
  Packet p = With(Sub(ffff, "0028ffff", "00281234"), kGood, kPartial);
  SendPrepare(p, 0);
  EXPECT_EQ(Hex(p), ffff);
}

TEST(SendPrepareStep2, SctpPerCapability) {
  const std::string stale = Sub(kSctp4, "a7c0ffe4", "00000000");
  Packet p = With(stale, kGood, kPartial);
  SendPrepare(p, cap::kTcpCksum | cap::kUdpCksum);
  EXPECT_EQ(Hex(p), kSctp4);
  EXPECT_EQ(p.offloads.word(), 0x80u | 0x100 | 0x600);

  Packet q = With(stale, kGood, kPartial);
  SendPrepare(q, cap::kSctpCksum);
  EXPECT_EQ(Hex(q), stale);
}

TEST(SendPrepareStep2, PartialL4WithoutProtoIsRefused) {
  // OVS asserts (the SCTP fallback); the model throws instead of guessing.
  Packet p = With(H("0a8f394fe0738abf7e2f05840800 4500002c000000004001037dc0a87b02c0a87b01"
                    "0800ad8a12340001000102030405060708090a0b0c0d0e0f"),
                  kGood, kPartial);
  EXPECT_THROW(SendPrepare(p, 0), Error);
}

TEST(SendPrepareStep2, IpHeaderOnlyIsMarkedGoodButNotWritten) {
  // dp_packet_ip_set_header_csum writes only if IHL*4 < the L3 size. A bare
  // 20-byte IPv4 header (protocol 59, no payload) keeps its field; the status
  // is set good regardless.
  const std::string bare =
      H("0a8f394fe0738abf7e2f05840800 4500001400000000403b 1234 c0a87b02c0a87b01");
  Packet p = With(bare, kPartial, kUnknown);
  SendPrepare(p, 0);
  EXPECT_EQ(Hex(p), bare);
  EXPECT_EQ(p.offloads.ip(), kGood);
}

// --- step 3: the payload-independent outer UDP checksum ------------------------------

// R2 partial inside the R3 tunnel with csum=true.
Packet VxR2() {
  Packet inner = Parsed(kR2Stale);
  inner.offloads.set_ip(kGood);
  inner.offloads.set_l4(kPartial);
  return Push(inner, R3Tunnel(true));
}

TEST(SendPrepareStep3, TunnelCsumKeepsInnerOffloadForTheNic) {
  Packet p = VxR2();
  SendPrepare(p, cap::kTcpCksum | cap::kIpv4Cksum);
  // Outer UDP bf4d: R3's csum=true value, written before the inner TCP is
  // finished; outer IP 339e computed (no OUTER_IP_CKSUM); inner left partial.
  EXPECT_EQ(Hex(p), R3Outer("339e", "bf4d") + kR2Stale);
  EXPECT_EQ(p.offloads.word(), 0x03881580u);
}

TEST(SendPrepareStep3, WithOuterUdpCapabilityNothingIsComputed) {
  Packet p = VxR2();
  SendPrepare(p, cap::kTcpCksum | cap::kOuterIpCksum | cap::kOuterUdpCksum);
  EXPECT_EQ(Hex(p), R3Outer("0000", "ffff") + kR2Stale);
  EXPECT_EQ(p.offloads.word(), 0x03881598u);
}

// ip4/TCP(sport=54392,dport=5201,flags="A",seq=0,ack=0,window=0): no payload.
const std::string kAck =
    H("0a8f394fe0738abf7e2f05840800 45000028000000004006037cc0a87b02c0a87b01"
      "d47814510000000000000000501000004fb60000");

TEST(SendPrepareStep3, FailedTunnelCsumDropsInnerCapabilities) {
  // A TCP segment without payload does not qualify for packet_udp_tunnel_csum,
  // so TCP_CKSUM is withdrawn and the inner TCP is computed here (step 5),
  // then the full outer UDP checksum (step 7). scapy: vx(<kAck>) -> bf8d.
  Packet inner = With(Sub(kAck, "4fb6", "0000"), kGood, kPartial);
  Packet p = Push(inner, R3Tunnel(true));
  SendPrepare(p, cap::kTcpCksum | cap::kUdpCksum | cap::kIpv4Cksum | cap::kOuterIpCksum);
  EXPECT_EQ(Hex(p), H("aa66aa660001aa66aa6600000800 4500005a0000400040110000010102580101025c"
                      "e01312b50046bf8d 0800000000007b00") +
                        kAck);
  EXPECT_EQ(p.offloads.word(), 0x03801590u);
}

TEST(SendPrepareStep3, InnerSctpCapabilityIsWithdrawn) {
  // scapy: vx(ip4/SCTP(sport=5000,dport=6000,tag=0x01020304)/Raw(bytes(range(16))))
  //   -> outer IP 33d6, UDP 392a, SCTP a7c0ffe4.
  Packet inner = With(Sub(kSctp4, "a7c0ffe4", "00000000"), kGood, kPartial);
  Packet p = Push(inner, R3Tunnel(true));
  SendPrepare(p, cap::kSctpCksum);
  EXPECT_EQ(Hex(p), H("aa66aa660001aa66aa6600000800 45000062000040004011 33d6 010102580101025c"
                      "e01312b5004e392a 0800000000007b00") +
                        kSctp4);

  // With OUTER_UDP_CKSUM the inner SCTP stays with the NIC.
  Packet q = Push(inner, R3Tunnel(true));
  SendPrepare(q, cap::kSctpCksum | cap::kOuterUdpCksum | cap::kOuterIpCksum);
  EXPECT_EQ(Hex(q).substr(2 * 50), Sub(kSctp4, "a7c0ffe4", "00000000"));
  EXPECT_EQ(q.offloads.l4(Level::kInner), kPartial);
}

// --- steps 4-7 ------------------------------------------------------------------------

// R1 (both checksums partial) inside the R3 tunnel without outer UDP checksum.
Packet VxR1() { return Push(With(kR1Stale, kPartial, kPartial), R3Tunnel(false)); }

TEST(SendPrepareSteps4To7, EachChecksumAgainstItsCapability) {
  // Outer: the R1 inner is 118 bytes like G, so R3's outer applies.
  struct Case {
    uint32_t caps;
    std::string bytes;
    uint32_t word;
  };
  const Case cases[] = {
      {0, R3Outer("339e", "0000") + kR1, 0x03801580},
      // Step 4: inner IP needs IPV4_CKSUM.
      {cap::kIpv4Cksum, R3Outer("339e", "0000") + Sub(kR1, "bd3c", "433c"), 0x03901580},
      // Step 5: inner TCP needs TCP_CKSUM.
      {cap::kTcpCksum, R3Outer("339e", "0000") + Sub(kR1, "e572", "6b72"), 0x03881580},
      // Step 6: outer IP needs OUTER_IP_CKSUM.
      {cap::kOuterIpCksum, R3Outer("0000", "0000") + kR1, 0x03801590},
      {cap::kIpv4Cksum | cap::kTcpCksum | cap::kOuterIpCksum, R3Outer("0000", "0000") + kR1Stale,
       0x03981590},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(CapsToString(c.caps));
    Packet p = VxR1();
    SendPrepare(p, c.caps);
    EXPECT_EQ(Hex(p), c.bytes);
    EXPECT_EQ(p.offloads.word(), c.word);
  }
}

TEST(SendPrepareSteps4To7, OuterUdpFullChecksumOrLeftForTheNic) {
  // Step 7 after step 3 failed (inner L4 unknown, so no tunnel checksum): the
  // full outer UDP checksum over the bytes as they are. scapy: vx(<kR1>) -> 454d.
  Packet p = Push(With(kR1, kPartial, kUnknown), R3Tunnel(true));
  SendPrepare(p, 0);
  EXPECT_EQ(Hex(p), R3Outer("339e", "454d") + kR1);
  EXPECT_EQ(p.offloads.l4(), kGood);

  Packet q = Push(With(kR1, kPartial, kUnknown), R3Tunnel(true));
  SendPrepare(q, cap::kOuterUdpCksum);
  EXPECT_EQ(Hex(q), R3Outer("339e", "ffff") + kR1);
  EXPECT_EQ(q.offloads.l4(), kPartial);
}

// --- packet_udp_tunnel_csum ----------------------------------------------------------

TEST(UdpTunnelCsum, EqualsTheFullChecksumAfterTheInnerIsFinished) {
  struct Case {
    const char* name;
    std::string inner_stale;  // as the tunnel carries it before completion
    CsumStatus ip;
    std::string outer;  // scapy: the finished frame's outer headers
    std::string inner_done;
    TunnelType type;
  };
  // ip6 = IPv6(src="2001:cafe::88",dst="2001:cafe::92",hlim=64)
  const std::string tcp6 = H("0a8f394fe0738abf7e2f058486dd 6000000000540640"
                             "2001cafe000000000000000000000088 2001cafe000000000000000000000092"
                             "d47814510000000000000000501000000bae0000") +
                           kFrameG.substr(2 * 54);
  const Case cases[] = {
      // R3 with csum=true: bf4d.
      {"tcp4", kR2Stale, kGood, R3Outer("339e", "bf4d"), kFrameR2, TunnelType::kVxlan},
      // Inner IPv4 partial too: its header is skipped. vx(<R1>) -> 454d.
      {"tcp4 ip partial", kR1Stale, kPartial, R3Outer("339e", "454d"), kR1, TunnelType::kVxlan},
      // vx(eth/ip6/TCP(...)/Raw(bytes(range(64)))) -> 625e.
      {"tcp6", Sub(tcp6, "0bae", "0000"), kUnknown,
       H("aa66aa660001aa66aa6600000800 450000ae000040004011338a010102580101025c"
         "e01312b5009a625e 0800000000007b00"),
       tcp6, TunnelType::kVxlan},
      // The same with the inner IP status good (a NIC's L3-OK on IPv6): an
      // IPv6 header has no checksum that makes it sum to -0, so it is summed
      // all the same. -> 625e.
      {"tcp6 ip good", Sub(tcp6, "0bae", "0000"), kGood,
       H("aa66aa660001aa66aa6600000800 450000ae000040004011338a010102580101025c"
         "e01312b5009a625e 0800000000007b00"),
       tcp6, TunnelType::kVxlan},
      // vx(<kUdp4>) -> bf84.
      {"udp4", Sub(kUdp4, "6c50", "1111"), kGood,
       H("aa66aa660001aa66aa6600000800 4500006e00004000401133ca010102580101025c"
         "e01312b5005abf84 0800000000007b00"),
       kUdp4, TunnelType::kVxlan},
      // oeth/IP(...)/UDP(sport=57363,dport=6081)/GENEVE(vni=123,proto=0x6558)/Raw(R2) -> 5ce9.
      {"geneve tcp4", kR2Stale, kGood,
       H("aa66aa660001aa66aa6600000800 4500009a000040004011339e010102580101025c"
         "e01317c100865ce9 0000655800007b00"),
       kFrameR2, TunnelType::kGeneve},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Packet p = Push(With(c.inner_stale, c.ip, kPartial), R3Tunnel(true, c.type));
    const uint32_t inner_before = p.offloads.word() & 0xffff0000u;
    ASSERT_TRUE(UdpTunnelCsum(p));
    EXPECT_EQ(p.offloads.l4(), kGood);
    EXPECT_EQ(p.offloads.word() & 0xffff0000u, inner_before);  // inner still partial
    EXPECT_EQ(Hex(p).substr(2 * 40, 4), c.outer.substr(2 * 40, 4));
    SendPrepare(p, 0);
    EXPECT_EQ(Hex(p), c.outer + c.inner_done);
  }
}

TEST(UdpTunnelCsum, RefusesWhatItCannotDoAndLeavesThePacket) {
  struct Case {
    const char* name;
    Packet p;
  };
  std::vector<Case> cases;
  // Inner L4 not valid: the payload's contribution is unknown.
  cases.push_back({"inner unknown", Push(With(kFrameG, kGood, kUnknown), R3Tunnel(true))});
  cases.push_back({"inner bad", Push(With(kFrameG, kGood, kBad), R3Tunnel(true))});
  cases.push_back({"tcp without payload", Push(With(kAck, kGood, kPartial), R3Tunnel(true))});
  cases.push_back({"inner udp without checksum",
                   Push(With(Sub(kUdp4, "6c50", "0000"), kGood, kPartial), R3Tunnel(true))});
  cases.push_back({"inner sctp", Push(With(kSctp4, kGood, kPartial), R3Tunnel(true))});
  // The inner IP length leaves 4 bytes of UDP: parsing finds no whole UDP
  // header (no inner L4 offset), so there is no checksum field to read.
  cases.push_back(
      {"inner udp cut short",
       Push(With(Sub(kUdp4, "4500003c", "45000018"), kGood, kPartial), R3Tunnel(true))});
  cases.push_back({"gre", Push(With(kR2Stale, kGood, kPartial), R3Tunnel(true, TunnelType::kGre))});
  for (Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string before = Hex(c.p);
    const uint32_t word = c.p.offloads.word();
    EXPECT_FALSE(UdpTunnelCsum(c.p));
    EXPECT_EQ(Hex(c.p), before);
    EXPECT_EQ(c.p.offloads.word(), word);
  }
}

// --- TSO packets -------------------------------------------------------------------------

// An inner TCP frame of `payload` bytes (i % 251), seq 1000, ACK, IPv4 id
// 0x100 or IPv6, both checksum fields 0 and partial as a guest hands TSO over.
std::string Pattern(size_t from, size_t to) {
  std::string s;
  for (size_t i = from; i < to; i++) s += ToHex(Bytes{static_cast<uint8_t>(i % 251)});
  return s;
}

std::string Hex16(size_t v) {
  return ToHex(Bytes{static_cast<uint8_t>(v >> 8), static_cast<uint8_t>(v)});
}

std::string InnerTso(bool v6, size_t payload) {
  const std::string tcp = "d4781451000003e80000000050100000 00000000";
  if (!v6) {
    return H("0a8f394fe0738abf7e2f05840800 4500" + Hex16(40 + payload) +
             "01000000 40060000 c0a87b02c0a87b01" + tcp) +
           Pattern(0, payload);
  }
  return H("0a8f394fe0738abf7e2f058486dd 60000000" + Hex16(20 + payload) +
           "0640 2001cafe000000000000000000000088 2001cafe000000000000000000000092" + tcp) +
         Pattern(0, payload);
}

Packet TsoInTunnel(bool v6, size_t payload, const TunnelConfig& t) {
  Packet inner = With(InnerTso(v6, payload), v6 ? kUnknown : kPartial, kPartial);
  inner.tso_segsz = 500;
  return Push(inner, t);
}

TEST(TsoPolicy, Rule1NoTcpTsoSegmentsEveryTsoPacket) {
  Packet tso = Parsed(testing::R7Frame());
  tso.tso_segsz = 500;
  Packet plain = With(kFrameG, kGood, kGood);
  Counters c;
  PacketBatch out = NetdevSend({tso, plain}, cap::kTnlTsoAny | cap::kOuterUdpCksum, &c);
  ASSERT_EQ(out.size(), 5u);
  for (int k = 0; k < 4; k++) EXPECT_EQ(Hex(out[k]), testing::R7Segment(k)) << k;
  EXPECT_EQ(Hex(out[4]), kFrameG);
  EXPECT_EQ(c.Get("dp_packet_gso"), 1u);
}

TEST(TsoPolicy, Rule2NoTunnelTsoSegmentsTheWholeBatch) {
  // dp_packet_gso_batch segments every TSO packet of the batch once one of
  // them is a tunnelled TSO packet, the plain one included.
  Packet plain = Parsed(testing::R7Frame());
  plain.tso_segsz = 500;
  Packet tunnelled = Push(plain, R3Tunnel(false));
  Counters c;
  PacketBatch out = NetdevSend({tunnelled, plain}, cap::kTcpTso, &c);
  ASSERT_EQ(out.size(), 8u);
  EXPECT_EQ(c.Get("dp_packet_gso"), 2u);
  // scapy: oeth/IP(src="1.1.2.88",dst="1.1.2.92",ttl=64,id=k,flags="DF",tos=1)/
  //   UDP(sport=57363,dport=4789,chksum=0)/VXLAN(vni=123,flags=0x08)/Raw(R7 seg k)
  const char* ip[] = {"000040004011 31e9", "000140004011 31e8", "000240004011 31e7",
                      "000340004011 31e6"};
  for (int k = 0; k < 4; k++) {
    SCOPED_TRACE(k);
    EXPECT_EQ(Hex(out[k]), H(std::string("aa66aa660001aa66aa6600000800 4501024e") + ip[k] +
                             "010102580101025c e01312b5023a0000 0800000000007b00") +
                               testing::R7Segment(k));
    EXPECT_EQ(Hex(out[4 + k]), testing::R7Segment(k));
  }
}

TEST(TsoPolicy, Rule2WithTunnelTsoNothingIsSegmented) {
  Packet plain = Parsed(testing::R7Frame());
  plain.tso_segsz = 500;
  Packet tunnelled = Push(plain, R3Tunnel(false));
  Counters c;
  PacketBatch out = NetdevSend({tunnelled, plain}, cap::kTcpTso | cap::kVxlanTnlTso, &c);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].tso_segsz, 500);
  EXPECT_EQ(out[1].tso_segsz, 500);
  EXPECT_EQ(c.Get("dp_packet_gso"), 0u);
}

TEST(TsoPolicy, Rule3PartialGsoOnlyForUnevenUdpTunnelPayloads) {
  const uint32_t caps = cap::kTcpTso | cap::kVxlanTnlTso | cap::kGeneveTnlTso | cap::kTcpCksum |
                        cap::kIpv4Cksum | cap::kOuterIpCksum;
  struct Case {
    const char* name;
    Packet p;
    uint32_t caps;
    size_t out;
    uint64_t partial;
  };
  std::vector<Case> cases;
  cases.push_back({"uneven vxlan csum", TsoInTunnel(false, 1700, R3Tunnel(true)), caps, 2, 1});
  cases.push_back({"uneven geneve csum",
                   TsoInTunnel(false, 1700, R3Tunnel(true, TunnelType::kGeneve)), caps, 2, 1});
  cases.push_back({"even payload", TsoInTunnel(false, 2000, R3Tunnel(true)), caps, 1, 0});
  // Outer UDP good (no checksum): every segment is independent anyway.
  cases.push_back({"no outer csum", TsoInTunnel(false, 1700, R3Tunnel(false)), caps, 1, 0});
  cases.push_back({"nic has outer udp", TsoInTunnel(false, 1700, R3Tunnel(true)),
                   caps | cap::kOuterUdpCksum, 1, 0});
  cases.push_back({"gre", TsoInTunnel(false, 1700, R3Tunnel(true, TunnelType::kGre)),
                   caps | cap::kGreTnlTso, 1, 0});
  for (Case& c : cases) {
    SCOPED_TRACE(c.name);
    Counters counters;
    PacketBatch out = NetdevSend({c.p}, c.caps, &counters);
    EXPECT_EQ(out.size(), c.out);
    EXPECT_EQ(counters.Get("dp_packet_partial_gso"), c.partial);
    EXPECT_EQ(counters.Get("dp_packet_gso"), 0u);
  }
}

// scapy, before any completion (IPv4 checksums 0, placeholder ffff, TCP 0):
//   oeth/IP(...,id=O,flags="DF",chksum=0)/UDP(sport=57363,dport=4789,chksum=0xffff)/
//   VXLAN(vni=123,flags=0x08)/Raw(eth/IP(src="192.168.123.2",dst="192.168.123.1",
//   ttl=64,id=I,flags=0,chksum=0)/TCP(sport=54392,dport=5201,flags="A",seq=S,ack=0,
//   window=0,chksum=0)/Raw(pattern[a:b])) -- the first 104 bytes.
std::string TsoHeaders(const std::string& outer_len, const std::string& outer_id,
                       const std::string& udp_len, const std::string& inner_len,
                       const std::string& inner_id, const std::string& seq) {
  return H("aa66aa660001aa66aa6600000800 4500" + outer_len + outer_id +
           "400040110000010102580101025c e01312b5" + udp_len +
           "ffff 0800000000007b00 0a8f394fe0738abf7e2f05840800 4500" + inner_len + inner_id +
           "000040060000c0a87b02c0a87b01 d4781451" + seq + "000000005010000000000000");
}

TEST(PartialGso, HeadKeepsAllButTheShortTailForHardwareTso) {
  Packet p = TsoInTunnel(false, 1700, R3Tunnel(true));
  p.md.hash = 0xabcd;
  p.md.mark = 3;
  Counters c;
  PacketBatch out = GsoPartial(p, &c);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(c.Get("dp_packet_partial_gso"), 1u);
  // Head: (4-1)*500 bytes, ids +0, seq 1000 (3e8), still TSO.
  EXPECT_EQ(Hex(out[0]),
            TsoHeaders("0636", "0000", "0622", "0604", "0100", "000003e8") + Pattern(0, 1500));
  EXPECT_EQ(out[0].tso_segsz, 500);
  // Tail: segment number 3: ids +3, seq 1000 + 1500 (9c4), 200 bytes.
  EXPECT_EQ(Hex(out[1]),
            TsoHeaders("0122", "0003", "010e", "00f0", "0103", "000009c4") + Pattern(1500, 1700));
  EXPECT_EQ(out[1].tso_segsz, 0);
  for (const Packet& s : out) {
    // IPv4 partial at both levels, inner TCP partial, outer UDP inherited.
    EXPECT_EQ(s.offloads.word(), 0x03981598u);
    EXPECT_EQ(s.md.hash, 0xabcdu);
    EXPECT_EQ(s.md.mark, 3u);
  }
}

TEST(PartialGso, TwoSegmentsLeaveNoTsoAtAll) {
  Packet p = TsoInTunnel(false, 700, R3Tunnel(true));
  PacketBatch out = GsoPartial(p);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Hex(out[0]),
            TsoHeaders("024e", "0000", "023a", "021c", "0100", "000003e8") + Pattern(0, 500));
  EXPECT_EQ(out[0].tso_segsz, 0);
  EXPECT_EQ(Hex(out[1]),
            TsoHeaders("0122", "0001", "010e", "00f0", "0101", "000005dc") + Pattern(500, 700));
  EXPECT_EQ(out[1].tso_segsz, 0);
}

TEST(PartialGso, EvenPayloadIsNotSplit) {
  Packet p = TsoInTunnel(false, 1500, R3Tunnel(true));
  EXPECT_EQ(GsoPartialNrSegs(p), 1);
  PacketBatch out = GsoPartial(p);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Hex(out[0]), Hex(p));
  EXPECT_EQ(out[0].tso_segsz, 500);
}

// OVS keeps PSH/FIN on the head while it is still a TSO packet
// (dp_packet_gso_update_segment skips the reset when tso_segsz != 0).
TEST(PartialGso, HeadStillTsoKeepsPsh) {
  const std::string in = Sub(InnerTso(false, 1700), "50100000", "50180000");
  Packet inner = With(in, kPartial, kPartial);
  inner.tso_segsz = 500;
  PacketBatch out = GsoPartial(Push(inner, R3Tunnel(true)));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Hex(out[0]).substr(2 * 96, 4), "5018");
  EXPECT_EQ(Hex(out[1]).substr(2 * 96, 4), "5018");
}

// --- software GSO -----------------------------------------------------------------------

TEST(SoftwareGso, SegmentsCopyMetadataAndForcePartial) {
  // Inner IP bad before: every IPv4 header of a segment is partial anyway.
  Packet inner = With(InnerTso(false, 1200), kBad, kPartial);
  inner.tso_segsz = 500;
  Packet p = Push(inner, R3Tunnel(false));
  p.md.hash = 0x1234;
  p.md.mark = 9;
  PacketBatch segs = Gso(p);
  ASSERT_EQ(segs.size(), 3u);
  const size_t pay[] = {500, 500, 200};
  for (size_t k = 0; k < 3; k++) {
    SCOPED_TRACE(k);
    const Packet& s = segs[k];
    EXPECT_EQ(s.tso_segsz, 0);
    EXPECT_EQ(s.md.hash, 0x1234u);
    EXPECT_EQ(s.md.mark, 9u);
    // Outer UDP good inherited (0x100), both IPv4 partial, inner TCP partial.
    EXPECT_EQ(s.offloads.word(), 0x03981590u);
    EXPECT_EQ(s.size(), 104 + pay[k]);
    const Bytes b = s.bytes();
    EXPECT_EQ(testing::Be16(b, 38), 70 + pay[k]);       // outer UDP length
    EXPECT_EQ(testing::Be16(b, 18), k);                 // outer IP id + k
    EXPECT_EQ(testing::Be16(b, 68), 0x100 + k);         // inner IP id + k
    EXPECT_EQ(GetBe32(b.data() + 88), 1000 + 500 * k);  // seq
    EXPECT_EQ(ToHex(Bytes(b.begin() + 104, b.end())), Pattern(500 * k, 500 * k + pay[k]));
  }
}

TEST(SoftwareGso, GreChecksumRecomputedPerSegment) {
  Packet inner = With(InnerTso(false, 1200), kPartial, kPartial);
  inner.tso_segsz = 500;
  PacketBatch segs = Gso(Push(inner, R3Tunnel(true, TunnelType::kGre)));
  ASSERT_EQ(segs.size(), 3u);
  for (const Packet& s : segs) {
    const Bytes b = s.bytes();
    // Over the segment's bytes as they are now (inner checksums not final).
    EXPECT_EQ(testing::OracleSum(b.data() + 34, b.size() - 34), 0xffffu);
  }
}

// --- outer UDP checksum under TSO, through the NIC ---------------------------------------

// Checks every frame a NIC put on the wire for one UDP-tunnelled TCP flow:
// all checksums verify, the outer UDP one equals a full recomputation, and
// the payload comes back in order.
void ExpectWireFramesCorrect(const PacketBatch& frames, bool v6, size_t payload) {
  const size_t in_l3 = 64, in_l4 = v6 ? 104 : 84, data = in_l4 + 20;
  std::string joined;
  uint32_t next_seq = 1000;
  for (const Packet& f : frames) {
    const Bytes b = f.bytes();
    SCOPED_TRACE(b.size());
    EXPECT_TRUE(testing::OracleIpv4HeaderOk(b, 14));
    EXPECT_EQ(testing::Be16(b, 40), testing::OracleL4Csum(b, 14, 34, 17, 6));
    EXPECT_TRUE(testing::OracleL4Ok(b, 14, 34, 17));
    EXPECT_TRUE(v6 || testing::OracleIpv4HeaderOk(b, in_l3));
    EXPECT_TRUE(testing::OracleL4Ok(b, in_l3, in_l4, 6));
    EXPECT_EQ(GetBe32(b.data() + in_l4 + 4), next_seq);
    next_seq += static_cast<uint32_t>(b.size() - data);
    joined += ToHex(Bytes(b.begin() + data, b.end()));
  }
  EXPECT_EQ(joined, Pattern(0, payload));
}

TEST(TunnelTsoOuterUdp, EverySegmentCarriesACorrectOuterChecksum) {
  // A NIC with tunnel TSO and inner checksum offloads but no OUTER_UDP_CKSUM:
  // the datapath writes one outer UDP checksum for all hardware segments.
  NicTx nic;
  nic.caps = cap::kTcpTso | cap::kVxlanTnlTso | cap::kGeneveTnlTso | cap::kTcpCksum |
             cap::kUdpCksum | cap::kIpv4Cksum | cap::kOuterIpCksum;
  for (bool v6 : {false, true}) {
    for (TunnelType t : {TunnelType::kVxlan, TunnelType::kGeneve}) {
      for (size_t payload : {2000u, 1700u, 700u}) {
        SCOPED_TRACE(std::string(v6 ? "ipv6 " : "ipv4 ") + ToString(t) + " " +
                     std::to_string(payload));
        Counters c;
        PacketBatch ready = NetdevSend({TsoInTunnel(v6, payload, R3Tunnel(true, t))}, nic.caps, &c);
        PacketBatch wire;
        for (const Packet& q : ready) {
          EXPECT_EQ(q.offloads.l4(), kGood);  // written by the datapath
          std::vector<std::string> violations;
          for (Packet& f : NicTransmit(q, nic, &violations)) wire.push_back(std::move(f));
          EXPECT_TRUE(violations.empty()) << violations[0];
        }
        EXPECT_EQ(wire.size(), (payload + 499) / 500);
        ExpectWireFramesCorrect(wire, v6, payload);
      }
    }
  }
}

// --- OVS before the v4.0 checksum series (EgressOptions) ----------------------------

TEST(EgressOptions, WithoutTunnelCsumEverythingIsSoftwareAndCorrect) {
  // R3 csum=true, inner TCP partial, a NIC with inner checksum offload but no
  // outer UDP: the old path finishes the inner TCP and the outer UDP over the
  // bytes, so both verify by the plain oracle and nothing is left partial.
  Packet p = VxR2();
  SendPrepare(p, cap::kTcpCksum | cap::kIpv4Cksum, /*udp_tunnel_csum=*/false);
  const Bytes b = p.bytes();
  EXPECT_TRUE(testing::OracleL4Ok(b, p.inner_l3_ofs, p.inner_l4_ofs, 6));
  EXPECT_TRUE(testing::OracleL4Ok(b, p.l3_ofs, p.l4_ofs, 17));
  EXPECT_NE(p.offloads.l4(Level::kInner), kPartial);
  EXPECT_NE(p.offloads.l4(), kPartial);
}

TEST(EgressOptions, WithoutPartialGsoTheNicWithoutOuterUdpGetsSoftwareSegments) {
  // 1200 bytes at 500: partial GSO would hand the NIC a 1000-byte TSO head and
  // a 200-byte tail; without it, three software segments of 500, 500, 200.
  const uint32_t caps =
      cap::kTcpTso | cap::kTnlTsoAny | cap::kTcpCksum | cap::kIpv4Cksum | cap::kOuterIpCksum;
  Packet p = TsoInTunnel(false, 1200, R3Tunnel(true));
  EXPECT_EQ(NetdevSend({p}, caps).size(), 2u);
  PacketBatch old = NetdevSend({p}, caps, nullptr, nullptr, {.partial_gso = false});
  ASSERT_EQ(old.size(), 3u);
  for (const Packet& s : old) EXPECT_EQ(s.tso_segsz, 0);
  // A payload that is a multiple of the segment size went to software too.
  Packet even = TsoInTunnel(false, 1000, R3Tunnel(true));
  EXPECT_EQ(NetdevSend({even}, caps).size(), 1u);
  EXPECT_EQ(NetdevSend({even}, caps, nullptr, nullptr, {.partial_gso = false}).size(), 2u);
}

TEST(EgressOptions, PartialGsoWithoutTheHeaderOnlyOuterChecksumIsRejected) {
  // The NIC would cut a TSO packet whose outer UDP checksum covers the whole
  // payload: every segment would carry a wrong one. Configurations refuse it.
  EXPECT_THROW(CheckEgressOptions({.udp_tunnel_csum = false, .partial_gso = true}), Error);
  EXPECT_THROW(Pipeline(PipelineConfig{.egress = {.udp_tunnel_csum = false}}), Error);
  EXPECT_NO_THROW(CheckEgressOptions({.udp_tunnel_csum = false, .partial_gso = false}));
  EXPECT_NO_THROW(CheckEgressOptions({.udp_tunnel_csum = true, .partial_gso = false}));
}

TEST(EgressOptions, NetdevSendGivenBothFallsBackToSoftwareSegmentsThatAreCorrect) {
  NicTx nic;
  nic.caps = cap::kTcpTso | cap::kVxlanTnlTso | cap::kGeneveTnlTso | cap::kTcpCksum |
             cap::kUdpCksum | cap::kIpv4Cksum | cap::kOuterIpCksum;
  for (size_t payload : {2000u, 1700u}) {
    SCOPED_TRACE(payload);
    PacketBatch ready = NetdevSend({TsoInTunnel(false, payload, R3Tunnel(true))}, nic.caps, nullptr,
                                   nullptr, {.udp_tunnel_csum = false});
    PacketBatch wire;
    for (const Packet& q : ready) {
      EXPECT_EQ(q.tso_segsz, 0);  // segmented in software, not by the NIC
      for (Packet& f : NicTransmit(q, nic)) wire.push_back(std::move(f));
    }
    EXPECT_EQ(wire.size(), (payload + 499) / 500);
    ExpectWireFramesCorrect(wire, false, payload);
  }
}

// --- the work meter a cost model reads --------------------------------------------------

TEST(WorkMeter, CountsSoftwareSegmentsAndChecksumsButNotHardware) {
  Packet inner = With(InnerTso(false, 1200), kGood, kPartial);
  inner.tso_segsz = 500;
  Packet p = Push(inner, R3Tunnel(false));
  work::Take();
  PacketBatch segs = Gso(p);
  Work gso = work::Take();
  ASSERT_EQ(segs.size(), 3u);
  // Three frames of 104 header bytes plus 500 + 500 + 200 payload.
  EXPECT_EQ(gso.sw_segments, 3u);
  EXPECT_EQ(gso.copy_bytes, 3 * 104u + 1200u);
  {
    HardwareScope hw;
    NicTx nic;
    nic.caps = cap::kTcpCksum | cap::kIpv4Cksum | cap::kOuterIpCksum;
    NicTransmit(segs[0], nic);
  }
  EXPECT_EQ(work::Take().csum_bytes, 0u);
  // Software completion of the inner TCP checksum of the first segment sums
  // its TCP header and payload (20 + 500) and the pseudo-header.
  Packet s = segs[0];
  SendPrepare(s, 0);
  EXPECT_GE(work::Take().csum_bytes, 520u);
}

}  // namespace
}  // namespace offlab
