// SPDX-License-Identifier: Apache-2.0
//
// IPv6 fragments through ct(), as ovs-vswitchd 3.1.0 on the development
// machine handles them (ovs-diff case ipv6-fragments-ct): ipf holds them until
// the datagram is complete, conntrack tracks the reassembly, and the
// fragments leave in offset order with its state and (after NAT) its
// addresses and the first fragment's L4 bytes (lib/ipf.c ipf_is_valid_v6_frag,
// ipf_reassemble_v6_frags, ipf_post_execute_reass_pkts). A fragment other
// than the last below min_v6_frag_size is invalid; an atomic fragment (offset
// and M clear) is no fragment. The datagram and its fragments are built here
// (RFC 8200 section 4.5), checksums from the plain oracle.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "flow_test_util.h"
#include "offlab/net/bytes.h"
#include "offlab/net/packet.h"
#include "offlab/ovs/conntrack.h"
#include "offlab/ovs/ipf.h"
#include "offlab/ovs/parse.h"
#include "offlab/ovs/pipeline.h"
#include "test_util.h"

namespace offlab {
namespace {

using testing::CtAction;
using testing::OracleL4Csum;
using testing::OracleL4Ok;
using testing::Put16;

constexpr size_t kL3 = 14, kL4 = kL3 + 40;

// fd00::2 > fd00::1, UDP 1000 > 2000, `n` payload bytes 0, 1, 2, ...
Bytes Datagram(size_t n) {
  Bytes d(kL4 + 8 + n, 0);
  const uint8_t eth[14] = {0x0a, 0x8f, 0x39, 0x4f, 0xe0, 0x73, 0x8a,
                           0xbf, 0x7e, 0x2f, 0x05, 0x84, 0x86, 0xdd};
  std::copy(eth, eth + 14, d.begin());
  d[kL3] = 0x60;
  Put16(d, kL3 + 4, static_cast<uint16_t>(8 + n));
  d[kL3 + 6] = 17;
  d[kL3 + 7] = 64;
  d[kL3 + 8] = d[kL3 + 24] = 0xfd;
  d[kL3 + 23] = 2;
  d[kL3 + 39] = 1;
  Put16(d, kL4, 1000);
  Put16(d, kL4 + 2, 2000);
  Put16(d, kL4 + 4, static_cast<uint16_t>(8 + n));
  for (size_t i = 0; i < n; i++) d[kL4 + 8 + i] = static_cast<uint8_t>(i);
  Put16(d, kL4 + 6, OracleL4Csum(d, kL3, kL4, 17, 6));
  return d;
}

// The datagram's fragments: the IPv6 header, a fragment header (next header
// 17, identification `id`) and `first` bytes of the UDP datagram, then the
// rest in one more fragment.
std::vector<Bytes> Fragments(const Bytes& d, size_t first, uint32_t id) {
  std::vector<Bytes> out;
  const size_t total = d.size() - kL4;
  for (size_t off = 0; off < total; off += first) {
    const size_t len = std::min(first, total - off);
    Bytes f(d.begin(), d.begin() + kL4);
    Put16(f, kL3 + 4, static_cast<uint16_t>(8 + len));
    f[kL3 + 6] = 44;
    const uint8_t fh[8] = {17,
                           0,
                           static_cast<uint8_t>(off >> 8),
                           static_cast<uint8_t>((off & 0xf8) | (off + len < total ? 1 : 0)),
                           static_cast<uint8_t>(id >> 24),
                           static_cast<uint8_t>(id >> 16),
                           static_cast<uint8_t>(id >> 8),
                           static_cast<uint8_t>(id)};
    f.insert(f.end(), fh, fh + 8);
    f.insert(f.end(), d.begin() + static_cast<long>(kL4 + off),
             d.begin() + static_cast<long>(kL4 + off + len));
    out.push_back(f);
  }
  return out;
}

PacketBatch Track(Conntrack& ct, const Bytes& frame, const std::string& args = "commit") {
  Packet p(frame);
  Parse(p);
  return ct.Execute(OneBatch(std::move(p)), CtAction(args));
}

TEST(IpfIpv6, FragmentsAreHeldThenLeaveTogetherWithTheDatagramsState) {
  const std::vector<Bytes> f = Fragments(Datagram(2000), 1400, 77);
  ASSERT_EQ(f.size(), 2u);
  for (bool reversed : {false, true}) {
    Conntrack ct;
    EXPECT_TRUE(Track(ct, f[reversed ? 1 : 0]).empty());
    EXPECT_EQ(ct.held_fragments(), 1u);
    const PacketBatch out = Track(ct, f[reversed ? 0 : 1]);
    ASSERT_EQ(out.size(), 2u) << reversed;
    for (size_t i = 0; i < 2; i++) {
      EXPECT_EQ(out[i].bytes(), f[i]) << "in offset order, unchanged";
      EXPECT_EQ(out[i].md.ct_state, ct::kTracked | ct::kNew);
    }
    EXPECT_EQ(ct.held_fragments(), 0u);
    EXPECT_EQ(ct.connections(), 1u);
  }
}

TEST(IpfIpv6, TheFragmentHeaderIsFoundBehindAHopByHopHeader) {
  // ipf_is_valid_v6_frag walks the extension headers (parse_ipv6_ext_hdrs,
  // lib/flow.c): a Hop-by-Hop header's length is (Hdr Ext Len + 1) x 8
  // octets (RFC 8200 section 4.3). Here Hdr Ext Len 1: 16 bytes, next header
  // 44, a PadN option (type 1, length 12) filling them. The fragments are
  // still held until both are in, and leave unchanged.
  std::vector<Bytes> f = Fragments(Datagram(2000), 1400, 80);
  ASSERT_EQ(f.size(), 2u);
  const uint8_t hbh[16] = {44, 1, 1, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (Bytes& x : f) {
    x[kL3 + 6] = 0;  // the IPv6 header names Hop-by-Hop
    Put16(x, kL3 + 4, static_cast<uint16_t>(x.size() - kL4 + 16));
    x.insert(x.begin() + kL4, hbh, hbh + 16);
  }
  Conntrack ct;
  EXPECT_TRUE(Track(ct, f[0]).empty());
  EXPECT_EQ(ct.held_fragments(), 1u);
  const PacketBatch out = Track(ct, f[1]);
  ASSERT_EQ(out.size(), 2u);
  for (size_t i = 0; i < 2; i++) {
    EXPECT_EQ(out[i].bytes(), f[i]) << i;
    EXPECT_EQ(out[i].md.ct_state, ct::kTracked | ct::kNew) << i;
  }
  EXPECT_EQ(ct.held_fragments(), 0u);
  EXPECT_EQ(ct.connections(), 1u);
}

TEST(IpfIpv6, ASmallFragmentOtherThanTheLastIsInvalid) {
  const std::vector<Bytes> f = Fragments(Datagram(700), 400, 78);
  ASSERT_EQ(f.size(), 2u);
  Conntrack ct;  // min_v6_frag_size 1280: a 456-byte first fragment is too small
  PacketBatch out = Track(ct, f[0]);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].md.ct_state, ct::kTracked | ct::kInvalid);
  EXPECT_TRUE(Track(ct, f[1]).empty()) << "the last fragment may be small: held";
  // Settable down to 400: then the same datagram goes through.
  Conntrack lax(IpfConfig{.min_v6_frag_size = 400});
  EXPECT_TRUE(Track(lax, f[0]).empty());
  EXPECT_EQ(Track(lax, f[1]).size(), 2u);
}

TEST(IpfIpv6, AnAtomicFragmentIsTrackedAsAWholeDatagram) {
  const Bytes d = Datagram(100);
  Bytes atomic = Fragments(d, 1000, 79).front();
  atomic[kL4 + 3] = 0;  // M clear, offset 0
  Conntrack ct;
  const PacketBatch out = Track(ct, atomic);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].md.ct_state, ct::kTracked | ct::kNew);
  EXPECT_EQ(ct.held_fragments(), 0u);
}

TEST(IpfIpv6, DestinationNatReachesEveryFragment) {
  const Bytes d = Datagram(2000);
  const std::vector<Bytes> f = Fragments(d, 1400, 80);
  Conntrack ct;
  EXPECT_TRUE(Track(ct, f[0], "commit,nat(dst=[fd00::99])").empty());
  const PacketBatch out = Track(ct, f[1], "commit,nat(dst=[fd00::99])");
  ASSERT_EQ(out.size(), 2u);
  Bytes want = d;
  want[kL3 + 39] = 0x99;
  Put16(want, kL4 + 6, OracleL4Csum(want, kL3, kL4, 17, 6));
  const Bytes first = out[0].bytes(), second = out[1].bytes();
  for (const Bytes& b : {first, second}) {
    EXPECT_EQ(b[kL3 + 39], 0x99);
    EXPECT_EQ(Bytes(b.begin() + kL3 + 8, b.begin() + kL3 + 39),
              Bytes(want.begin() + kL3 + 8, want.begin() + kL3 + 39));
  }
  // The first fragment carries the translated datagram's UDP header.
  EXPECT_EQ(Bytes(first.begin() + kL4 + 8, first.begin() + kL4 + 16),
            Bytes(want.begin() + kL4, want.begin() + kL4 + 8));
  ASSERT_TRUE(OracleL4Ok(want, kL3, kL4, 17));
  // The rest is the datagram's, unchanged.
  EXPECT_EQ(Bytes(second.begin() + kL4 + 8, second.end()), Bytes(d.begin() + kL4 + 1400, d.end()));
  for (const Packet& p : out) EXPECT_TRUE(p.md.ct_state & ct::kDstNat);
}

// Conntrack walks AH by its own length to the protocol behind it
// (parse_ipv6_ext_hdrs, lib/flow.c): a TCP segment behind AH has its
// checksum checked (ovs-diff case ipv6-fragments-ct: zero, so invalid), and
// with a correct one it opens a connection.
TEST(CtIpv6Walk, TcpBehindAhIsTracked) {
  // IPv6(src=fd00::2,dst=fd00::1,nh=51)/AH(nh=6, len 4: 24 bytes)/TCP(1000>80, ACK)/Raw(0..15)
  Bytes f = FromHex(
      "0a8f394fe0738abf7e2f058486dd60000000003c3340fd000000000000000000000000000002fd"
      "00000000000000000000000000000106040000000000010000000100000000000000000000000003"
      "e8005000000000000000005010200000000000000102030405060708090a0b0c0d0e0f");
  constexpr size_t kTcp = kL4 + 24;
  Conntrack bad;
  PacketBatch out = Track(bad, f);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].md.ct_state, ct::kTracked | ct::kInvalid);
  // Made a SYN with its TCP checksum over the pseudo-header with the segment's
  // own length: a new connection.
  f[kTcp + 13] = 0x02;
  Bytes plain(f.begin(), f.begin() + kL4);
  plain.insert(plain.end(), f.begin() + kTcp, f.end());
  plain[kL3 + 6] = 6;
  Put16(plain, kL3 + 4, static_cast<uint16_t>(plain.size() - kL4));
  Put16(f, kTcp + 16, OracleL4Csum(plain, kL3, kL4, 6, 16));
  Conntrack good;
  out = Track(good, f);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].md.ct_state, ct::kTracked | ct::kNew);
  EXPECT_EQ(good.connections(), 1u);
}

// Through a datapath: the actions after ct() run on every fragment ct()
// releases, and each fragment is a packet handed to the NIC of its own.
TEST(IpfIpv6, EveryReleasedFragmentRunsTheRestOfTheActions) {
  const std::vector<Bytes> f = Fragments(Datagram(2000), 1400, 81);
  Pipeline br;
  br.AddPort({.name = "p1"});
  br.AddPort({.name = "p2"});
  br.AddPort({.name = "p3"});
  br.AddFlow("in_port=p1,ipv6,actions=ct(commit),output:p2,output:p3");
  EXPECT_TRUE(br.Receive("p1", f[0]).empty());
  const std::vector<Sent> out = br.Receive("p1", f[1]);
  ASSERT_EQ(out.size(), 4u);
  const char* ports[] = {"p2", "p3", "p2", "p3"};
  for (size_t i = 0; i < 4; i++) {
    EXPECT_EQ(out[i].port, ports[i]) << i;
    EXPECT_EQ(out[i].frame, f[i / 2]) << i;
    EXPECT_EQ(out[i].nic_packet, i) << "one NIC packet per output";
  }
}

}  // namespace
}  // namespace offlab
