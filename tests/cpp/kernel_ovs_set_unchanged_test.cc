// An OVS kernel set(...) whose masked value equals what the packet already
// holds: the field is not rewritten through set_ip_addr / set_ipv6_addr /
// set_tp_port, so the conntrack reference they drop (ovs_ct_clear) stays;
// and an IPv6 UDP datagram without a checksum keeps none when its address
// changes.
//
// Source: torvalds/linux v6.18 net/openvswitch/actions.c. set_ipv4: "if
// (unlikely(new_addr != flow_key->ipv4.addr.src)) set_ip_addr(...)" (and
// dst); set_ip_addr ends with skb_clear_hash and ovs_ct_clear. set_ipv6:
// "if (unlikely(memcmp(saddr, masked, sizeof(masked))))" before
// set_ipv6_addr (which also ends with ovs_ct_clear). set_tcp: "if
// (likely(src != th->source)) set_tp_port(...)"; set_tp_port begins with
// ovs_ct_clear; skb_clear_hash(skb) at the end of set_tcp either way.
// update_ipv6_checksum: the UDP check is updated only "if (uh->check ||
// skb->ip_summed == CHECKSUM_PARTIAL)".
// Frames: built here, checksums from the plain-loop oracle (test_util.h).
#include <gtest/gtest.h>

#include <algorithm>

#include "offlab/linux/ovs_actions.h"
#include "offlab/linux/ovs_dp.h"
#include "test_util.h"

namespace offlab::kernel {
namespace {

using testing::Be16;
using testing::H;
using testing::OracleL4Csum;
using testing::OracleSum;
using testing::Put16;

const std::string kEth = "0a8f394fe0738abf7e2f0584";

// IPv4 10.0.0.1 -> 10.0.0.2 TCP 54392 -> 5201, SYN, checksums by the oracle.
Bytes Tcp4() {
  Bytes f = FromHex(H(kEth + "0800 45000028 12344000 4006 0000 0a000001 0a000002" +
                      "d4781451 00000001 00000000 5002 0100 0000 0000"));
  Put16(f, 24, static_cast<uint16_t>(~OracleSum(&f[14], 20)));
  Put16(f, 50, OracleL4Csum(f, 14, 34, 6, 16));
  return f;
}

// The skb as the datapath has it: headers set, a conntrack entry attached
// and a valid hash.
OvsSkb Skb(const Bytes& f, size_t l4, uint8_t proto) {
  OvsSkb s;
  s.skb.pkt = Packet(f);
  s.skb.pkt.l3_ofs = 14;
  s.skb.pkt.l4_ofs = static_cast<uint16_t>(l4);
  s.key.ip_proto = proto;
  s.nfct_attached = true;
  s.hash_valid = true;
  return s;
}

TEST(KernelOvsSetUnchanged, AnIpv4AddressSetToItsOwnValueKeepsTheConntrackEntry) {
  OvsSkb same = Skb(Tcp4(), 34, 6);
  OvsKeyIpv4 key, mask;
  key.src = {10, 0, 0, 1};
  mask.src = {0xff, 0xff, 0xff, 0xff};
  ASSERT_EQ(OvsSetIpv4(same, key, mask), 0);
  EXPECT_EQ(same.skb.pkt.bytes(), Tcp4());
  EXPECT_TRUE(same.nfct_attached);
  EXPECT_TRUE(same.hash_valid);
  // A new address goes through set_ip_addr: entry and hash dropped.
  OvsSkb moved = Skb(Tcp4(), 34, 6);
  key.src = {10, 0, 0, 7};
  ASSERT_EQ(OvsSetIpv4(moved, key, mask), 0);
  EXPECT_FALSE(moved.nfct_attached);
  EXPECT_FALSE(moved.hash_valid);
}

TEST(KernelOvsSetUnchanged, ATcpPortSetToItsOwnValueKeepsTheConntrackEntry) {
  OvsSkb s = Skb(Tcp4(), 34, 6);
  OvsKeyPorts key, mask;
  key.src = 54392, key.dst = 5201;
  mask.src = mask.dst = 0xffff;
  ASSERT_EQ(OvsSetTcp(s, key, mask), 0);
  EXPECT_EQ(s.skb.pkt.bytes(), Tcp4());
  EXPECT_TRUE(s.nfct_attached);
  EXPECT_FALSE(s.hash_valid);  // skb_clear_hash regardless
}

// IPv6 2001:db8::1 -> ::2 UDP 5000 -> 53, 4 data bytes, UDP check 0.
Bytes Udp6NoCheck() {
  return FromHex(H(kEth + "86dd 60000000 000c 11 40" + "20010db8000000000000000000000001" +
                   "20010db8000000000000000000000002" + "1388 0035 000c 0000 71756572"));
}

TEST(KernelOvsSetUnchanged, AnIpv6AddressSetToItsOwnValueKeepsTheConntrackEntry) {
  Bytes f = Udp6NoCheck();
  Put16(f, 60, OracleL4Csum(f, 14, 54, 17, 6));
  OvsSkb s = Skb(f, 54, 17);
  OvsKeyIpv6 key, mask;
  std::copy(f.begin() + 22, f.begin() + 38, key.src.begin());
  mask.src.fill(0xff);
  ASSERT_EQ(OvsSetIpv6(s, key, mask, KernelVersion{6, 18}), 0);
  EXPECT_EQ(s.skb.pkt.bytes(), f);
  EXPECT_TRUE(s.nfct_attached);
}

TEST(KernelOvsSetUnchanged, AnIpv6UdpDatagramWithoutAChecksumKeepsNone) {
  const Bytes f = Udp6NoCheck();
  OvsSkb s = Skb(f, 54, 17);
  OvsKeyIpv6 key, mask;
  std::copy(f.begin() + 22, f.begin() + 38, key.src.begin());
  key.src[15] = 0x09;
  mask.src.fill(0xff);
  ASSERT_EQ(OvsSetIpv6(s, key, mask, KernelVersion{6, 18}), 0);
  Bytes want = f;
  want[37] = 0x09;
  EXPECT_EQ(s.skb.pkt.bytes(), want);
  EXPECT_EQ(Be16(want, 60), 0);
  EXPECT_FALSE(s.nfct_attached);
}

}  // namespace
}  // namespace offlab::kernel
