// SPDX-License-Identifier: Apache-2.0
//
// A packet may hold only its first bytes in its head and the rest as a shared
// tail (offlab/net/packet.h): code that reads headers asks for them with
// Linear(n), which copies the tail in only when byte n-1 is not in the head
// yet. Asking for one byte too few works on every packet whose head happens to
// be long enough, so the usual frames cannot tell. Here every operation that
// reads headers that way runs on the same packet split at every byte of its
// headers, with the buffer past the head holding the complement of the real
// bytes: a header byte read from the head before it is there is then wrong,
// not right by luck, and the result must equal the flat packet's in every
// byte, offset, status word and counter (the contract of packet.h: the bytes
// are the same whatever the split).
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "offlab/net/addr.h"
#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/net/error.h"
#include "offlab/net/packet.h"
#include "offlab/net/payload.h"
#include "offlab/nic/nic.h"
#include "offlab/nic/nic_profile.h"
#include "offlab/ovs/complete.h"
#include "offlab/ovs/gso.h"
#include "offlab/ovs/parse.h"
#include "offlab/ovs/pipeline.h"
#include "offlab/ovs/send_prepare.h"
#include "offlab/ovs/tunnel.h"
#include "test_util.h"

namespace offlab {
namespace {

using testing::OracleSum;
using testing::Put16;
using testing::SplitPoisoned;

std::string Ofs(uint16_t o) { return o == kNoOffset ? "-" : std::to_string(o); }

// Everything about a packet a caller can see.
std::string Describe(const Packet& p) {
  return ToHex(p.bytes()) + " ofs " + Ofs(p.l2_5_ofs) + "/" + Ofs(p.l3_ofs) + "/" + Ofs(p.l4_ofs) +
         "/" + Ofs(p.inner_l2_ofs) + "/" + Ofs(p.inner_l3_ofs) + "/" + Ofs(p.inner_l4_ofs) +
         " word " + std::to_string(p.offloads.word()) + " tso " + std::to_string(p.tso_segsz) +
         " tnl " + std::to_string(p.md.tunnel.present) + "," +
         std::to_string(static_cast<int>(p.md.tunnel.type)) + "," +
         std::to_string(p.md.tunnel.key) + "," + std::to_string(p.md.tunnel.csum) + "," +
         std::to_string(p.md.tunnel.tos) + "," + std::to_string(p.md.tunnel.ttl) + "," +
         std::to_string(p.md.tunnel.tp_src) + " hash " + std::to_string(p.md.hash);
}

std::string Describe(const PacketBatch& b) {
  std::string s = std::to_string(b.size()) + " packets";
  for (const Packet& p : b) s += "\n" + Describe(p);
  return s;
}

std::string Describe(const std::vector<Sent>& sent) {
  std::string s = std::to_string(sent.size()) + " frames";
  for (const Sent& f : sent) {
    s += "\n" + f.port + " " + ToHex(f.Joined()) + " word " + std::to_string(f.offloads.word()) +
         " tso " + std::to_string(f.tso_segsz) + " #" + std::to_string(f.nic_packet) + "/" +
         std::to_string(f.tx);
  }
  return s;
}

std::string Describe(const Counters& c) {
  std::string s;
  for (const auto& [k, v] : c.values()) s += k + "=" + std::to_string(v) + " ";
  return s;
}

// Runs `op` on the flat packet and on every split of it from byte 0 to
// `upto`, and expects the same description from each (an exception's
// message included).
void ExpectSameAtEverySplit(const Packet& flat, size_t upto, const std::string& what,
                            const std::function<std::string(Packet&)>& op) {
  auto run = [&op](Packet& p) {
    try {
      return op(p);
    } catch (const Error& e) {
      return std::string("error: ") + e.what();
    }
  };
  Packet ref = flat;
  const std::string want = run(ref);
  upto = std::min(upto, flat.size());
  for (size_t n = 0; n <= upto; n++) {
    Packet q = SplitPoisoned(flat, n);
    ASSERT_EQ(q.head_size(), std::min(n, flat.size()));
    ASSERT_EQ(q.bytes(), flat.bytes());  // the poison is never part of the bytes
    EXPECT_EQ(run(q), want) << what << ", head of " << n << " bytes";
    if (::testing::Test::HasFailure()) return;
  }
}

Bytes Payload(size_t n) {
  std::mt19937 rng(static_cast<uint32_t>(n) * 7919u);
  Bytes b(n);
  for (uint8_t& x : b) x = static_cast<uint8_t>(rng());
  return b;
}

// A guest's TCP frame as virtio-net hands it over: IPv4 (or IPv6) header
// written, TCP checksum partial (pseudo-header sum), TSO when the payload is
// longer than `mss`. TCP carries 12 bytes of timestamp options.
Packet GuestFrame(size_t payload, bool ipv6, uint16_t mss = 1000) {
  const Bytes pay = Payload(payload);
  const size_t l3 = 14, iplen = ipv6 ? 40 : 20, l4 = l3 + iplen, thl = 32;
  Bytes f(l4 + thl, 0);
  const uint8_t eth[12] = {2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1};
  std::copy(eth, eth + 12, f.begin());
  Put16(f, 12, ipv6 ? 0x86dd : 0x0800);
  uint8_t* ip = &f[l3];
  const uint16_t seglen = static_cast<uint16_t>(thl + pay.size());
  uint64_t pseudo;
  if (ipv6) {
    ip[0] = 0x60;
    ip[1] = 0x02;  // traffic class low bits and a flow label, which GSO keeps
    PutBe16(ip + 2, 0xbeef);
    PutBe16(ip + 4, seglen);
    ip[6] = 6;
    ip[7] = 64;
    for (int i = 0; i < 16; i++) ip[8 + i] = static_cast<uint8_t>(0x20 + i);
    for (int i = 0; i < 16; i++) ip[24 + i] = static_cast<uint8_t>(0x40 + i);
    pseudo = OracleSum(ip + 8, 32, 6 + seglen);
  } else {
    ip[0] = 0x45;
    ip[1] = 0x02;  // ECT(0)
    PutBe16(ip + 2, static_cast<uint16_t>(iplen + seglen));
    PutBe16(ip + 4, 0x1234);
    PutBe16(ip + 6, 0x4000);
    ip[8] = 64;
    ip[9] = 6;
    const uint8_t addrs[8] = {10, 0, 0, 1, 10, 0, 0, 2};
    std::copy(addrs, addrs + 8, ip + 12);
    PutBe16(ip + 10, static_cast<uint16_t>(~OracleSum(ip, 20)));
    pseudo = OracleSum(ip + 12, 8, 6 + seglen);
  }
  uint8_t* tcp = &f[l4];
  PutBe16(tcp, 49152);
  PutBe16(tcp + 2, 5201);
  PutBe32(tcp + 4, 0x01020304);
  PutBe32(tcp + 8, 0x0a0b0c0d);
  tcp[12] = thl / 4 << 4;
  tcp[13] = 0x18;  // ACK PSH
  PutBe16(tcp + 14, 502);
  const uint8_t ts[12] = {1, 1, 8, 10, 0, 0, 0, 7, 0, 0, 0, 9};
  std::copy(ts, ts + 12, tcp + 20);
  while (pseudo > 0xffff) pseudo = (pseudo & 0xffff) + (pseudo >> 16);
  PutBe16(tcp + 16, static_cast<uint16_t>(pseudo));
  f.insert(f.end(), pay.begin(), pay.end());
  Packet p(f);
  p.l3_ofs = static_cast<uint16_t>(l3);
  p.l4_ofs = static_cast<uint16_t>(l4);
  p.offloads.set_l4(CsumStatus::kPartial);
  p.offloads.set_l4_proto(L4Proto::kTcp);
  if (!ipv6) p.offloads.set_ip(CsumStatus::kPartial);
  if (payload > mss) p.tso_segsz = mss;
  return p;
}

TunnelConfig Tunnel(TunnelType type, bool csum, bool ipv6) {
  TunnelConfig t;
  bool v6;
  t.type = type;
  t.ipv6 = ipv6;
  t.ip_src = ParseIp(ipv6 ? "2001:db8::1" : "192.0.2.1", &v6);
  t.ip_dst = ParseIp(ipv6 ? "2001:db8::2" : "192.0.2.2", &v6);
  t.key = 42;
  t.udp_src = 50000;
  t.csum = csum;
  if (type == TunnelType::kGeneve) t.geneve_options = FromHex("0102030100000007");
  return t;
}

struct TunnelCase {
  TunnelType type;
  bool csum, ipv6, inner_ipv6;
};

const std::vector<TunnelCase> kTunnels = {
    {TunnelType::kVxlan, false, false, false}, {TunnelType::kVxlan, true, false, false},
    {TunnelType::kVxlan, true, true, true},    {TunnelType::kGeneve, true, false, false},
    {TunnelType::kGeneve, false, true, false}, {TunnelType::kGre, false, false, true},
    {TunnelType::kGre, true, true, false},
};

std::string Name(const TunnelCase& c) {
  const char* t = c.type == TunnelType::kVxlan    ? "vxlan"
                  : c.type == TunnelType::kGeneve ? "geneve"
                                                  : "gre";
  return std::string(t) + (c.csum ? " csum" : "") + (c.ipv6 ? " v6" : " v4") +
         (c.inner_ipv6 ? " inner v6" : " inner v4");
}

// The guest frame after encapsulation, statuses as PushHeader leaves them.
Packet Encapsulated(const TunnelCase& c, size_t payload) {
  PacketBatch b = OneBatch(GuestFrame(payload, c.inner_ipv6));
  PushHeader(b, Tunnel(c.type, c.csum, c.ipv6));
  EXPECT_EQ(b.size(), 1u);
  return std::move(b.front());
}

// Bytes from the start through the innermost TCP header, plus a little.
size_t Headers(const Packet& p) {
  const uint16_t l4 = p.inner_l4_ofs != kNoOffset ? p.inner_l4_ofs : p.l4_ofs;
  return (l4 == kNoOffset ? 64u : l4 + 32u) + 4u;
}

TEST(SharedTailSplit, SoftwareGsoOfEveryTunnel) {
  for (const TunnelCase& c : kTunnels) {
    const Packet p = Encapsulated(c, 2500);
    ExpectSameAtEverySplit(p, Headers(p), "Gso " + Name(c), [](Packet& q) {
      Counters n;
      return Describe(Gso(q, &n)) + Describe(n);
    });
    ExpectSameAtEverySplit(p, Headers(p), "GsoPartial " + Name(c), [](Packet& q) {
      Counters n;
      return std::to_string(GsoPartialNrSegs(q)) + Describe(GsoPartial(q, &n)) + Describe(n);
    });
  }
  for (bool v6 : {false, true}) {
    const Packet p = GuestFrame(2500, v6);
    ExpectSameAtEverySplit(p, Headers(p), v6 ? "Gso plain v6" : "Gso plain v4",
                           [](Packet& q) { return Describe(Gso(q)); });
  }
}

TEST(SharedTailSplit, SendPrepareForEveryCapabilitySet) {
  const uint32_t all = ~0u;
  for (const TunnelCase& c : kTunnels) {
    for (size_t payload : {size_t{300}, size_t{2500}, size_t{3000}}) {
      const Packet p = Encapsulated(c, payload);
      for (uint32_t caps : {0u, all}) {
        for (bool udp_tunnel_csum : {true, false}) {
          ExpectSameAtEverySplit(p, Headers(p),
                                 "SendPrepare " + Name(c) + " caps " + std::to_string(caps),
                                 [caps, udp_tunnel_csum](Packet& q) {
                                   SendPrepare(q, caps, udp_tunnel_csum);
                                   return Describe(q);
                                 });
        }
      }
      ExpectSameAtEverySplit(p, Headers(p), "UdpTunnelCsum " + Name(c), [](Packet& q) {
        const bool ok = UdpTunnelCsum(q);
        return std::to_string(ok) + Describe(q);
      });
    }
  }
}

TEST(SharedTailSplit, ChecksumCompletionAtEachLevel) {
  for (const TunnelCase& c : kTunnels) {
    const Packet p = Encapsulated(c, 300);
    for (Level level : {Level::kOuter, Level::kInner}) {
      ExpectSameAtEverySplit(p, Headers(p), "Complete " + Name(c), [level](Packet& q) {
        CompleteIpCsum(q, level);
        CompleteL4Csum(q, level, L4Proto::kTcp);
        return Describe(q);
      });
    }
    ExpectSameAtEverySplit(p, Headers(p), "UpperProtocol " + Name(c), [](Packet& q) {
      std::string s;
      for (auto [l3, l4] : {std::pair{q.l3_ofs, q.l4_ofs}, {q.inner_l3_ofs, q.inner_l4_ofs}}) {
        s += std::to_string(UpperProtocol(q, l3, l4)) + " " + std::to_string(L4Length(q, l3, l4)) +
             " " + std::to_string(csum::Fold(PseudoHeaderSum(q, l3, 6, 1234))) + "; ";
      }
      return s;
    });
  }
}

// The frames a sender put on the wire: statuses finished as a NIC without
// offloads needs them, so they are what a receiver gets.
std::vector<Packet> WireFrames(const TunnelCase& c, size_t payload) {
  PacketBatch segs = Gso(Encapsulated(c, payload));
  std::vector<Packet> out;
  for (Packet& s : segs) {
    SendPrepare(s, 0);
    out.push_back(Packet(s.bytes()));
  }
  return out;
}

TEST(SharedTailSplit, ReceiveParseAndDecapsulate) {
  for (const TunnelCase& c : kTunnels) {
    for (const Packet& wire : WireFrames(c, 2100)) {
      const size_t upto = 14 + 40 + 8 + 16 + 14 + 40 + 36;
      for (const std::string prof : {"x710", "connectx6dx", "dummy", "e810"}) {
        ExpectSameAtEverySplit(wire, upto, "NicReceive " + prof + " " + Name(c), [&](Packet& q) {
          RxStatus st;
          Packet r = NicReceive(std::move(q), BuiltinProfile(prof), &st);
          return Describe(r) + " rx " + std::to_string(static_cast<int>(st.ip)) +
                 std::to_string(static_cast<int>(st.l4)) +
                 std::to_string(static_cast<int>(st.inner_ip)) +
                 std::to_string(static_cast<int>(st.inner_l4)) +
                 std::to_string(static_cast<int>(st.tunnel));
        });
      }
      ExpectSameAtEverySplit(wire, upto, "Parse+PopHeader " + Name(c), [](Packet& q) {
        Parse(q);
        const std::string parsed = Describe(q) + " tunnel " +
                                   std::to_string(static_cast<int>(DetectTunnel(q))) + " inner " +
                                   Ofs(TunnelInnerOffset(q));
        Counters n;
        std::string why;
        const bool ok = PopHeader(q, &n, &why);
        return parsed + " pop " + std::to_string(ok) + why + Describe(q) + Describe(n);
      });
    }
  }
}

TEST(SharedTailSplit, CoalescingReadsOnlyWhatIsInTheHead) {
  for (const TunnelCase& c : kTunnels) {
    const std::vector<Packet> wire = WireFrames(c, 5000);
    const size_t upto = 14 + 40 + 8 + 16 + 14 + 40 + 36;
    for (const std::string prof : {"x710", "connectx6dx"}) {
      auto merge = [&](size_t n) {
        std::vector<std::pair<Packet, RxStatus>> in;
        for (const Packet& w : wire) {
          RxStatus st;
          Packet r = NicReceive(n == SIZE_MAX ? Packet(w) : SplitPoisoned(w, n),
                                BuiltinProfile(prof), &st);
          in.emplace_back(std::move(r), st);
        }
        CoalesceStats s;
        const PacketBatch out = Coalesce(std::move(in), 65535, &s);
        return Describe(out) + " merged " + std::to_string(s.merged) + " not validated " +
               std::to_string(s.not_validated);
      };
      const std::string want = merge(SIZE_MAX);
      for (size_t n = 0; n <= upto; n++) {
        ASSERT_EQ(merge(n), want) << prof << " " << Name(c) << ", heads of " << n << " bytes";
      }
    }
  }
}

TEST(SharedTailSplit, NicTransmitForEveryProfile) {
  for (const TunnelCase& c : kTunnels) {
    for (size_t payload : {size_t{300}, size_t{2500}, size_t{3000}}) {
      const Packet p = Encapsulated(c, payload);
      for (const std::string& prof : BuiltinProfileNames()) {
        const NicTx tx = NicTx::FromProfile(BuiltinProfile(prof));
        ExpectSameAtEverySplit(p, Headers(p), "NicTransmit " + prof + " " + Name(c),
                               [&tx](Packet& q) {
                                 Packet r = q;
                                 SendPrepare(r, tx.caps);
                                 std::vector<std::string> v;
                                 const PacketBatch out = NicTransmit(std::move(r), tx, &v);
                                 std::string s = Describe(out);
                                 for (const std::string& x : v) s += "\n" + x;
                                 return s;
                               });
      }
    }
  }
}

// Whole datapaths with shared payloads: a guest's packet through encapsulation,
// egress and the NIC; a wire frame through the NIC, decapsulation and output.
std::unique_ptr<Pipeline> Host(const TunnelCase& c, const std::string& nic, bool sending) {
  PipelineConfig cfg;
  cfg.userspace_tso = true;
  cfg.shared_payloads = true;
  auto dp = std::make_unique<Pipeline>(cfg);
  dp->AddPort({.name = "phy", .profile = nic});
  dp->AddPort({.name = "vm", .profile = "virtio"});
  dp->AddPort({.name = "tun", .tunnel = Tunnel(c.type, c.csum, c.ipv6), .underlay = "phy"});
  if (sending) {
    dp->AddFlow("in_port=vm,actions=output:tun");
  } else {
    dp->AddFlow("in_port=phy,actions=tnl_pop:tun");
    dp->AddFlow("in_port=tun,actions=output:vm");
  }
  return dp;
}

TEST(SharedTailSplit, DatapathsBothWays) {
  for (const TunnelCase& c : kTunnels) {
    for (const std::string nic : {"x710", "connectx6dx", "ixgbe_82599"}) {
      for (size_t payload : {size_t{300}, size_t{2500}, size_t{3000}}) {
        const Packet guest = GuestFrame(payload, c.inner_ipv6);
        ExpectSameAtEverySplit(
            guest, Headers(guest), "send " + nic + " " + Name(c), [&](Packet& q) {
              auto dp = Host(c, nic, true);
              return Describe(dp->ReceivePacket("vm", std::move(q))) + Describe(dp->counters());
            });
      }
      const NicProfile& prof = BuiltinProfile(nic);
      for (const Packet& wire : WireFrames(c, 1200)) {
        const size_t upto = 14 + 40 + 8 + 16 + 14 + 40 + 36;
        ExpectSameAtEverySplit(wire, upto, "receive " + nic + " " + Name(c), [&](Packet& q) {
          auto dp = Host(c, nic, false);
          return Describe(dp->ReceivePacket("phy", NicReceive(std::move(q), prof))) +
                 Describe(dp->counters());
        });
      }
    }
  }
}

}  // namespace
}  // namespace offlab
