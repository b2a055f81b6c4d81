// SPDX-License-Identifier: Apache-2.0
//
// A guest's TSO packet through a sending datapath (encapsulation, egress,
// the NIC's segmentation and checksums), each wire frame through a receiving
// NIC's validation and datapath (decapsulation, output to a guest), and NIC
// receive coalescing: once with the payload as ordinary bytes, once shared
// (PipelineConfig::shared_payloads, the payload a tail of the packet). Every
// byte, status word, verdict, counter and unit of metered work must be the
// same; the byte path is the reference. Payloads are random (not the zeros
// ns-3 sends) and not a multiple of the segment size, and corrupted frames
// must be refused alike.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "offlab/net/addr.h"
#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/net/packet.h"
#include "offlab/net/payload.h"
#include "offlab/net/work.h"
#include "offlab/nic/nic.h"
#include "offlab/nic/nic_profile.h"
#include "offlab/ovs/parse.h"
#include "offlab/ovs/pipeline.h"
#include "offlab/ovs/tunnel.h"

namespace offlab {
namespace {

constexpr uint16_t kMss = 1398;
constexpr size_t kHdrs = 14 + 20 + 32;  // Ethernet, IPv4, TCP with timestamps

Bytes Payload(size_t n, bool zeros) {
  std::mt19937 rng(static_cast<uint32_t>(n));
  Bytes b(n, 0);
  if (!zeros) {
    for (uint8_t& x : b) x = static_cast<uint8_t>(rng());
  }
  return b;
}

// The guest's frame as virtio-net hands it over: IPv4 checksum written, TCP
// checksum partial (the pseudo-header sum), TSO when longer than one segment.
Packet GuestFrame(const Bytes& payload, bool shared) {
  Bytes f(kHdrs, 0);
  const uint8_t eth[14] = {2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 8, 0};
  std::copy(eth, eth + 14, f.begin());
  uint8_t* ip = &f[14];
  ip[0] = 0x45;
  PutBe16(ip + 2, static_cast<uint16_t>(20 + 32 + payload.size()));
  PutBe16(ip + 4, 0x1234);
  PutBe16(ip + 6, 0x4000);
  ip[8] = 64;
  ip[9] = 6;
  const uint8_t addrs[8] = {10, 0, 0, 1, 10, 0, 0, 2};
  std::copy(addrs, addrs + 8, ip + 12);
  PutBe16(ip + 10, csum::Compute(ip, 20));
  uint8_t* tcp = &f[34];
  PutBe16(tcp, 49152);
  PutBe16(tcp + 2, 5201);
  PutBe32(tcp + 4, 0x01020304);
  PutBe32(tcp + 8, 0x0a0b0c0d);
  tcp[12] = 8 << 4;
  tcp[13] = 0x18;  // ACK PSH
  PutBe16(tcp + 14, 502);
  const uint8_t ts[12] = {1, 1, 8, 10, 0, 0, 0, 7, 0, 0, 0, 9};
  std::copy(ts, ts + 12, tcp + 20);
  const uint16_t l4 = static_cast<uint16_t>(32 + payload.size());
  PutBe16(tcp + 16, csum::Fold(csum::PseudoIpv4(ip + 12, ip + 16, 6, l4)));
  Packet p;
  if (shared) {
    p = Packet(f);
    Rope tail;
    tail.Append(Slice{PayloadBuf::Copy(payload.data(), payload.size()), 0, payload.size()});
    p.AppendTail(tail);
  } else {
    f.insert(f.end(), payload.begin(), payload.end());
    p = Packet(f);
  }
  p.offloads.set_l4(CsumStatus::kPartial);
  if (payload.size() > kMss) {
    p.offloads.set_ip(CsumStatus::kPartial);
    p.tso_segsz = kMss;
  }
  return p;
}

struct Case {
  std::string nic;
  TunnelType type;
  bool csum, ipv6;
  bool udp_tunnel_csum = true;
  std::string rx_nic;  // validates the frames on receive (default: nic)
};

TunnelConfig Tunnel(const Case& c) {
  TunnelConfig t;
  bool v6;
  t.type = c.type;
  t.ipv6 = c.ipv6;
  t.ip_src = ParseIp(c.ipv6 ? "2001:db8::1" : "192.0.2.1", &v6);
  t.ip_dst = ParseIp(c.ipv6 ? "2001:db8::2" : "192.0.2.2", &v6);
  t.key = 42;
  t.csum = c.csum;
  return t;
}

std::unique_ptr<Pipeline> Host(const Case& c, bool shared, bool sending) {
  PipelineConfig cfg;
  cfg.userspace_tso = true;
  cfg.shared_payloads = shared;
  cfg.egress.udp_tunnel_csum = c.udp_tunnel_csum;
  cfg.egress.partial_gso = c.udp_tunnel_csum;
  auto dp = std::make_unique<Pipeline>(cfg);
  dp->AddPort({.name = "phy", .profile = c.nic});
  dp->AddPort({.name = "vm", .profile = "virtio"});
  dp->AddPort({.name = "tun", .tunnel = Tunnel(c), .underlay = "phy"});
  if (sending) {
    dp->AddFlow("in_port=vm,actions=output:tun");
  } else {
    const std::string match = c.type == TunnelType::kGre
                                  ? (c.ipv6 ? "ipv6" : "ip") + std::string(",nw_proto=47")
                                  : std::string(c.ipv6 ? "udp6" : "udp") + ",tp_dst=" +
                                        (c.type == TunnelType::kGeneve ? "6081" : "4789");
    dp->AddFlow("in_port=phy," + match + ",actions=tnl_pop:tun");
    dp->AddFlow("in_port=tun,actions=output:vm");
  }
  return dp;
}

// The sent frames must match the reference's, tails joined.
void ExpectSame(const std::vector<Sent>& ref, const std::vector<Sent>& got, const std::string& at) {
  ASSERT_EQ(ref.size(), got.size()) << at;
  for (size_t i = 0; i < ref.size(); i++) {
    EXPECT_TRUE(ref[i].tail.empty());
    EXPECT_EQ(ref[i].port, got[i].port) << at << " frame " << i;
    EXPECT_EQ(ref[i].frame, got[i].Joined()) << at << " frame " << i;
    EXPECT_EQ(ref[i].offloads.word(), got[i].offloads.word()) << at << " frame " << i;
    EXPECT_EQ(ref[i].tso_segsz, got[i].tso_segsz) << at;
    EXPECT_EQ(ref[i].nic_packet, got[i].nic_packet) << at;
    EXPECT_EQ(ref[i].tx, got[i].tx) << at;
  }
}

void ExpectSameWork(const Work& a, const Work& b, const std::string& at) {
  EXPECT_EQ(a.csum_bytes, b.csum_bytes) << at;
  EXPECT_EQ(a.copy_bytes, b.copy_bytes) << at;
  EXPECT_EQ(a.sw_segments, b.sw_segments) << at;
}

Packet Received(const Sent& s, const NicProfile& prof, RxStatus* st) {
  HardwareScope hw;
  Packet f = Packet::Adopt(Bytes(s.frame));
  f.AppendTail(s.tail);
  return NicReceive(std::move(f), prof, st);
}

void ExpectSameStatus(const RxStatus& a, const RxStatus& b, const std::string& at) {
  EXPECT_EQ(a.ip, b.ip) << at;
  EXPECT_EQ(a.l4, b.l4) << at;
  EXPECT_EQ(a.inner_ip, b.inner_ip) << at;
  EXPECT_EQ(a.inner_l4, b.inner_l4) << at;
  EXPECT_EQ(a.tunnel, b.tunnel) << at;
}

// The whole way for one case; returns the receiving NIC's verdicts.
std::vector<RxStatus> RunBoth(const Case& c, const Bytes& payload, size_t corrupt = SIZE_MAX) {
  const std::string at = c.nic + (c.csum ? " csum" : "") + (c.ipv6 ? " v6" : "") + " type " +
                         std::to_string(static_cast<int>(c.type));
  auto txRef = Host(c, false, true), txNew = Host(c, true, true);
  work::Take();
  std::vector<Sent> ref = txRef->ReceivePacket("vm", GuestFrame(payload, false));
  const Work wRef = work::Take();
  std::vector<Sent> got = txNew->ReceivePacket("vm", GuestFrame(payload, true));
  ExpectSameWork(wRef, work::Take(), at + " tx");
  ExpectSame(ref, got, at + " tx");
  EXPECT_EQ(txRef->counters().values(), txNew->counters().values()) << at;
  if (::testing::Test::HasFailure()) return {};
  if (corrupt != SIZE_MAX) {
    // One payload byte of the second frame flipped: in its own copy of the
    // tail (the shared buffer is never written).
    ref[1].frame.at(corrupt) ^= 0x10;
    Bytes whole = got[1].Joined();
    whole.at(corrupt) ^= 0x10;
    const size_t head = got[1].frame.size();
    got[1].tail.Clear();
    got[1].tail.Append(
        Slice{PayloadBuf::Copy(whole.data() + head, whole.size() - head), 0, whole.size() - head});
  }

  const NicProfile& prof = BuiltinProfile(c.rx_nic.empty() ? c.nic : c.rx_nic);
  auto rxRef = Host(c, false, false), rxNew = Host(c, true, false);
  std::vector<RxStatus> verdicts;
  std::vector<std::pair<Packet, RxStatus>> groRef, groNew;
  for (size_t i = 0; i < ref.size(); i++) {
    RxStatus a, b;
    Packet pa = Received(ref[i], prof, &a);
    Packet pb = Received(got[i], prof, &b);
    ExpectSameStatus(a, b, at + " rx frame " + std::to_string(i));
    EXPECT_EQ(pa.bytes(), pb.bytes());
    EXPECT_EQ(pa.offloads.word(), pb.offloads.word());
    verdicts.push_back(a);
    groRef.emplace_back(pa, a);
    groNew.emplace_back(pb, b);
    work::Take();
    const std::vector<Sent> outRef = rxRef->ReceivePacket("phy", std::move(pa));
    const Work w = work::Take();
    const std::vector<Sent> outNew = rxNew->ReceivePacket("phy", std::move(pb));
    ExpectSameWork(w, work::Take(), at + " rx datapath");
    ExpectSame(outRef, outNew, at + " rx datapath frame " + std::to_string(i));
    // The shared way really was taken: the guest gets the payload shared.
    for (const Sent& s : outNew) EXPECT_FALSE(s.tail.empty()) << at;
    EXPECT_EQ(rxRef->events(), rxNew->events());
  }
  EXPECT_EQ(rxRef->counters().values(), rxNew->counters().values()) << at;
  CoalesceStats sa, sb;
  const PacketBatch ma = Coalesce(std::move(groRef), 65535, &sa);
  const PacketBatch mb = Coalesce(std::move(groNew), 65535, &sb);
  EXPECT_EQ(ma.size(), mb.size()) << at;
  for (size_t i = 0; i < ma.size() && i < mb.size(); i++) {
    EXPECT_EQ(ma[i].bytes(), mb[i].bytes()) << at << " coalesced " << i;
    EXPECT_EQ(ma[i].offloads.word(), mb[i].offloads.word());
    EXPECT_EQ(ma[i].tso_segsz, mb[i].tso_segsz);
  }
  EXPECT_EQ(sa.merged, sb.merged);
  EXPECT_EQ(sa.not_validated, sb.not_validated);
  return verdicts;
}

const std::vector<Case> kCases = {
    {"x710", TunnelType::kVxlan, false, false},
    {"x710", TunnelType::kVxlan, true, false},
    {"x710", TunnelType::kVxlan, true, false, false},  // OVS before the payload-independent csum
    {"x710", TunnelType::kGre, false, false},
    {"connectx6dx", TunnelType::kGeneve, true, false},
    {"connectx6dx", TunnelType::kVxlan, true, true},
    {"e810", TunnelType::kVxlan, true, false},
    {"ixgbe_82599", TunnelType::kVxlan, false, false},
    {"e810", TunnelType::kVxlan, true, false, true, "dummy"},  // decap verifies in software
};

TEST(SharedPayloadPaths, RandomPayloadSameEverywhere) {
  for (const Case& c : kCases) RunBoth(c, Payload(20000, false));
}

TEST(SharedPayloadPaths, ZeroPayloadSameEverywhere) {
  for (const Case& c : kCases) RunBoth(c, Payload(64000 - 64000 % kMss, true));
}

TEST(SharedPayloadPaths, OneSegmentAndShortPayloads) {
  for (size_t n : {1u, 2u, 1397u, 1398u, 1399u}) RunBoth(kCases[1], Payload(n, false));
}

// A flipped payload bit is caught wherever the bytes are checked: the X710
// validates the outer UDP checksum of VXLAN and the inner TCP checksum of GRE;
// with a NIC that checks nothing, decapsulation verifies the UDP checksum.
TEST(SharedPayloadPaths, CorruptedPayloadIsRefusedAlike) {
  constexpr size_t kAt = 200;  // well inside the payload of the second frame
  std::vector<RxStatus> v = RunBoth(kCases[1], Payload(20000, false), kAt);
  ASSERT_GT(v.size(), 2u);
  EXPECT_EQ(v[0].l4, CsumStatus::kGood);
  EXPECT_EQ(v[1].l4, CsumStatus::kBad);
  v = RunBoth(kCases[3], Payload(20000, false), kAt);
  ASSERT_GT(v.size(), 2u);
  EXPECT_EQ(v[0].inner_l4, CsumStatus::kGood);
  EXPECT_EQ(v[1].inner_l4, CsumStatus::kBad);
  v = RunBoth(kCases.back(), Payload(20000, false), kAt);
  ASSERT_GT(v.size(), 2u);
  EXPECT_EQ(v[1].l4, CsumStatus::kUnknown);  // the dummy NIC checks nothing
}

TEST(SharedPayloadPaths, SegmentsShareTheGuestsPayloadBuffer) {
  auto tx = Host(kCases[0], true, true);
  const std::vector<Sent> sent = tx->ReceivePacket("vm", GuestFrame(Payload(20000, false), true));
  ASSERT_EQ(sent.size(), (20000 + kMss - 1) / kMss);
  for (const Sent& s : sent) {
    ASSERT_EQ(s.tail.count(), 1u);
    EXPECT_EQ(s.tail.slice(0).buf, sent[0].tail.slice(0).buf);
    EXPECT_EQ(s.frame.size(), 50u + kHdrs);  // outer headers and the guest's
  }
}

}  // namespace
}  // namespace offlab
