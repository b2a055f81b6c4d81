// Driver receive per profile (linux/rx.h) and the profiles' kernel section.
// Checksums are built and summed with the test's own RFC 1071 oracle
// (test_util.h); the expected driver behaviour is the one the cited driver
// code states (ixgbe_rx_checksum, ice_rx_csum, i40e_rx_checksum,
// mlx5e_handle_csum, ibmveth_poll, virtnet_receive_done at Linux 6.18).
#include <gtest/gtest.h>

#include "offlab/linux/rx.h"
#include "offlab/net/error.h"
#include "test_util.h"

namespace offlab {
// Generated from models/profiles/*.yaml (models/embed_profiles.cmake).
const std::map<std::string, std::string>& BuiltinProfileTexts();
}  // namespace offlab

namespace offlab::kernel {
namespace {

using offlab::testing::OracleL4Csum;
using offlab::testing::OracleSum;

void Put16(Bytes& f, size_t at, uint16_t v) {
  f[at] = static_cast<uint8_t>(v >> 8), f[at + 1] = static_cast<uint8_t>(v);
}

// Ethernet + IPv4 + an L4 header (`l4hdr` hex) + payload, lengths and
// checksums right (UDP/TCP/ICMP).
Bytes Frame(uint8_t proto, const std::string& l4hdr, size_t payload) {
  Bytes f = FromHex("020202020202 040404040404 0800 45000000 00010000 4000 0000 0a000001 0a000002");
  f[23] = proto;
  Bytes l4 = FromHex(l4hdr);
  f.insert(f.end(), l4.begin(), l4.end());
  f.insert(f.end(), payload, 'y');
  Put16(f, 16, static_cast<uint16_t>(f.size() - 14));
  Put16(f, 24, static_cast<uint16_t>(~OracleSum(f.data() + 14, 20)));
  if (proto == 17) Put16(f, 38, static_cast<uint16_t>(f.size() - 34));
  if (proto == 6) Put16(f, 50, OracleL4Csum(f, 14, 34, 6, 16));
  if (proto == 17) Put16(f, 40, OracleL4Csum(f, 14, 34, 17, 6));
  if (proto == 1) Put16(f, 36, static_cast<uint16_t>(~OracleSum(f.data() + 34, f.size() - 34)));
  return f;
}
Bytes Tcp(size_t payload) {
  return Frame(6, "04d20050 00000001 00000000 5010 03e8 0000 0000", payload);
}
Bytes Udp(size_t payload) { return Frame(17, "04d2 0035 0000 0000", payload); }
Bytes Icmp(size_t payload) { return Frame(1, "0800 0000 00010001", payload); }

// Outer IPv4/UDP(4789)/VXLAN around `inner`, outer UDP checksum 0.
Bytes Vxlan(const Bytes& inner) {
  Bytes f = Frame(17, "c0de 12b5 0000 0000 08000000 00002a00", 0);
  f.insert(f.end(), inner.begin(), inner.end());
  Put16(f, 16, static_cast<uint16_t>(f.size() - 14));
  Put16(f, 24, 0);
  Put16(f, 24, static_cast<uint16_t>(~OracleSum(f.data() + 14, 20)));
  Put16(f, 38, static_cast<uint16_t>(f.size() - 34));
  Put16(f, 40, 0);
  return f;
}

TEST(KernelRxProfiles, EveryLinuxNicHasAKernelViewAndKnownFeatures) {
  for (const char* name : {"connectx5", "connectx6dx", "bluefield2", "e810", "x710", "ixgbe_82599",
                           "virtio", "tap", "ibmveth_trunk"}) {
    const NicProfile p = BuiltinProfile(name);
    ASSERT_TRUE(p.kernel.has_value()) << name;
    EXPECT_NO_THROW(KernelDeviceFeatures(p)) << name;
    EXPECT_TRUE(p.kernel->sources.count("rx_csum")) << name;
    EXPECT_FALSE(p.sources.count("rx_csum")) << name;
  }
  for (const char* name : {"pcap", "dummy"}) {
    const NicProfile p = BuiltinProfile(name);
    EXPECT_FALSE(p.kernel.has_value());
    EXPECT_THROW(DriverReceive(Tcp(10), p), Error) << name;
  }
  EXPECT_EQ(BuiltinProfile("connectx5").kernel->driver, "mlx5_core");
  EXPECT_EQ(BuiltinProfile("ibmveth_trunk").kernel->rx_page_frags, false);
}

TEST(KernelRxProfiles, KernelSectionIsStrict) {
  const std::string base = BuiltinProfileTexts().at("dummy");
  const std::string good =
      "kernel:\n  driver: {value: ice, source: s}\n"
      "  features: {value: [rx-checksum], source: s}\n"
      "  hw_enc_features: {value: [], source: s}\n"
      "  rx_csum: {value: unnecessary, source: s}\n"
      "  tunnel_csum_level: {value: 1, source: s}\n"
      "  tunnels: {value: [vxlan], source: s}\n"
      "  rx_buffers: {value: page_frags, source: s}\n"
      "  csum_err_stat: {value: x, source: s}\n";
  const NicProfile ok = ParseProfile(base + good, "dummy");
  ASSERT_TRUE(ok.kernel.has_value());
  EXPECT_EQ(ok.kernel->driver, "ice");
  EXPECT_EQ(ok.kernel->tunnel_csum_level, 1);
  EXPECT_EQ(ok.kernel->tunnels, std::vector<std::string>{"vxlan"});
  auto broken = [&](const std::string& from, const std::string& to) {
    std::string k = good;
    k.replace(k.find(from), from.size(), to);
    return base + k;
  };
  EXPECT_THROW(ParseProfile(base + good + "  extra: {value: 1, source: s}\n", "dummy"), Error);
  EXPECT_THROW(ParseProfile(broken("unnecessary", "maybe"), "dummy"), Error);
  EXPECT_THROW(ParseProfile(broken("[vxlan]", "[nvgre]"), "dummy"), Error);
  EXPECT_THROW(ParseProfile(broken("value: 1, source: s", "value: 2, source: s"), "dummy"), Error);
  EXPECT_THROW(ParseProfile(broken("page_frags, source: s", "page_frags"), "dummy"), Error);
  EXPECT_THROW(ParseProfile(broken("  tunnels: {value: [vxlan], source: s}\n", ""), "dummy"),
               Error);
  // Kernel notes are a list of strings, as the profile's own notes are.
  const NicProfile noted = ParseProfile(base + good + "  notes: [one, two]\n", "dummy");
  EXPECT_EQ(noted.kernel->notes, (std::vector<std::string>{"one", "two"}));
  try {
    ParseProfile(base + good + "  notes: just one\n", "dummy");
    ADD_FAILURE() << "a scalar kernel note was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("kernel notes must be a list of strings"),
              std::string::npos)
        << e.what();
  }
  // A feature name features.h does not know is refused when turned into bits.
  const NicProfile odd = ParseProfile(broken("[rx-checksum]", "[rx-nonsense]"), "dummy");
  EXPECT_THROW(KernelDeviceFeatures(odd), Error);
}

TEST(KernelRxIxgbe, GoodBadAndTheUdpErratum) {
  const NicProfile p = BuiltinProfile("ixgbe_82599");
  Counters c;
  SkBuff good = DriverReceive(Tcp(100), p, kLabKernel, &c);
  EXPECT_EQ(good.ip_summed, IpSummed::kUnnecessary);
  EXPECT_EQ(good.csum_level, 0);
  EXPECT_EQ(good.pkt.l3_ofs, 14);
  EXPECT_EQ(good.nr_frags, 1);  // page-backed buffers
  Bytes bad = Tcp(100);
  bad[60] ^= 1;
  EXPECT_EQ(DriverReceive(bad, p, kLabKernel, &c).ip_summed, IpSummed::kNone);
  EXPECT_EQ(c.Get("rx_csum_offload_errors"), 1u);
  Bytes bad_udp = Udp(100);
  bad_udp[50] ^= 1;
  EXPECT_EQ(DriverReceive(bad_udp, p, kLabKernel, &c).ip_summed, IpSummed::kNone);
  EXPECT_EQ(c.Get("rx_csum_offload_errors"), 1u);  // UDP errors are ignored on the 82599
  Bytes zero_udp = Udp(100);
  Put16(zero_udp, 40, 0);
  EXPECT_EQ(DriverReceive(zero_udp, p, kLabKernel, &c).ip_summed, IpSummed::kNone);
  EXPECT_EQ(DriverReceive(Udp(100), p, kLabKernel, &c).ip_summed, IpSummed::kUnnecessary);
  // A bad IPv4 header is an error too.
  Bytes bad_ip = Tcp(100);
  bad_ip[22] ^= 1;  // TTL: header checksum now wrong
  EXPECT_EQ(DriverReceive(bad_ip, p, kLabKernel, &c).ip_summed, IpSummed::kNone);
  EXPECT_EQ(c.Get("rx_csum_offload_errors"), 2u);
  // No tunnel parser: VXLAN is plain UDP with a zero checksum -> erratum.
  EXPECT_EQ(DriverReceive(Vxlan(Tcp(100)), p, kLabKernel, &c).ip_summed, IpSummed::kNone);
  // ethtool -K rx off.
  DeviceFeatures off = KernelDeviceFeatures(p);
  off.features &= ~netif::kRxCsum;
  EXPECT_EQ(DriverReceiveWith(Tcp(100), p, off, kLabKernel, &c).skb.ip_summed, IpSummed::kNone);
}

TEST(KernelRxIce, TunnelsAreVerifiedInsideAtLevelOne) {
  const NicProfile p = BuiltinProfile("e810");
  Counters c;
  SkBuff s = DriverReceive(Vxlan(Tcp(200)), p, kLabKernel, &c);
  EXPECT_EQ(s.ip_summed, IpSummed::kUnnecessary);
  EXPECT_EQ(s.csum_level, 1);
  Bytes bad_inner = Vxlan(Tcp(200));
  bad_inner[bad_inner.size() - 1] ^= 1;
  EXPECT_EQ(DriverReceive(bad_inner, p, kLabKernel, &c).ip_summed, IpSummed::kNone);
  EXPECT_EQ(c.Get("rx_csum_bad.nic"), 1u);
  Bytes bad_outer_ip = Vxlan(Tcp(200));
  bad_outer_ip[22] ^= 1;
  EXPECT_EQ(DriverReceive(bad_outer_ip, p, kLabKernel, &c).ip_summed, IpSummed::kNone);
  EXPECT_EQ(c.Get("rx_eipe_error.nic"), 1u);
  EXPECT_EQ(DriverReceive(Tcp(100), p, kLabKernel, &c).csum_level, 0);
}

TEST(KernelRxI40e, IcmpIsReportedUnverified) {
  const NicProfile p = BuiltinProfile("x710");
  Bytes icmp = Icmp(20);
  icmp[40] ^= 1;  // ICMP checksum wrong
  EXPECT_EQ(DriverReceive(icmp, p).ip_summed, IpSummed::kUnnecessary);
  Counters c;
  Bytes bad = Tcp(100);
  bad[60] ^= 1;
  EXPECT_EQ(DriverReceive(bad, p, kLabKernel, &c).ip_summed, IpSummed::kNone);
  EXPECT_EQ(c.Get("port.rx_csum_bad"), 1u);
}

TEST(KernelRxMlx5, CompleteSumFromTheNetworkHeaderRightOrWrong) {
  const NicProfile p = BuiltinProfile("connectx6dx");
  Counters c;
  for (bool corrupt : {false, true}) {
    Bytes f = Tcp(100);
    if (corrupt) f[60] ^= 1;
    SkBuff s = DriverReceive(f, p, kLabKernel, &c);
    EXPECT_EQ(s.ip_summed, IpSummed::kComplete);
    EXPECT_EQ(s.csum_from, 14);
    // The one's-complement sum of bytes 14..end, folded.
    EXPECT_EQ(s.csum & 0xffff, OracleSum(f.data() + 14, f.size() - 14));
  }
  EXPECT_EQ(c.Get("rx_csum_complete"), 2u);
  // 64 bytes or less: the UNNECESSARY path, which needs correct checksums.
  Bytes small = Tcp(6);  // 60 bytes
  EXPECT_EQ(DriverReceive(small, p, kLabKernel, &c).ip_summed, IpSummed::kUnnecessary);
  EXPECT_EQ(c.Get("rx_csum_unnecessary"), 1u);
  small[58] ^= 1;
  EXPECT_EQ(DriverReceive(small, p, kLabKernel, &c).ip_summed, IpSummed::kNone);
  EXPECT_EQ(c.Get("rx_csum_none"), 1u);
  // A VLAN tag: still COMPLETE over everything after the MAC header.
  Bytes tagged = Tcp(100);
  const Bytes tag = FromHex("81000064");
  tagged.insert(tagged.begin() + 12, tag.begin(), tag.end());
  SkBuff t = DriverReceive(tagged, p, kLabKernel, &c);
  EXPECT_EQ(t.ip_summed, IpSummed::kComplete);
  EXPECT_EQ(t.csum & 0xffff, OracleSum(tagged.data() + 14, tagged.size() - 14));
}

TEST(KernelRxVirtio, HeaderDecides) {
  const NicProfile p = BuiltinProfile("virtio");
  RxMeta m;
  m.vnet.hdr.flags = VnetHdr::kDataValid;
  Counters c;
  Bytes bad = Tcp(100);
  bad[60] ^= 1;
  RxResult r = DriverReceiveFull(bad, p, kLabKernel, &c, m);
  EXPECT_EQ(r.skb.ip_summed, IpSummed::kUnnecessary);  // DATA_VALID is trusted
  m.vnet.hdr.flags = VnetHdr::kNeedsCsum;
  m.vnet.hdr.csum_start = 34, m.vnet.hdr.csum_offset = 16;
  r = DriverReceiveFull(Tcp(100), p, kLabKernel, &c, m);
  EXPECT_EQ(r.skb.ip_summed, IpSummed::kPartial);
  m.vnet.hdr.csum_offset = 200;
  r = DriverReceiveFull(Tcp(100), p, kLabKernel, &c, m);
  EXPECT_TRUE(r.dropped);
  EXPECT_EQ(c.Get("rx_frame_errors"), 1u);
  // DATA_VALID with the tunnel checksum flag needs the feature.
  RxMeta t;
  t.vnet.hdr.flags = VnetHdr::kDataValid | vnet::kFlagUdpTunnelCsum;
  EXPECT_TRUE(DriverReceiveFull(Tcp(100), p, kLabKernel, &c, t).dropped);
  t.vnet_tnl_csum = true;
  r = DriverReceiveFull(Tcp(100), p, kLabKernel, &c, t);
  EXPECT_EQ(r.skb.csum_level, 1);
}

TEST(KernelRxTap, WriteWithHeader) {
  const NicProfile p = BuiltinProfile("tap");
  RxMeta m;
  m.vnet.hdr.flags = VnetHdr::kNeedsCsum;
  m.vnet.hdr.csum_start = 34, m.vnet.hdr.csum_offset = 16;
  RxResult r = DriverReceiveFull(Tcp(100), p, kLabKernel, nullptr, m);
  EXPECT_FALSE(r.dropped);
  EXPECT_EQ(r.skb.ip_summed, IpSummed::kPartial);
  EXPECT_EQ(DriverReceive(Tcp(100), p).ip_summed, IpSummed::kNone);
}

TEST(KernelRxIbmveth, UnverifiedGoodAndNullTcpChecksum) {
  const NicProfile p = BuiltinProfile("ibmveth_trunk");
  Bytes bad = Tcp(100);
  bad[60] ^= 1;
  SkBuff s = DriverReceive(bad, p);
  EXPECT_EQ(s.ip_summed, IpSummed::kUnnecessary);  // nothing looked at the bytes
  EXPECT_EQ(s.nr_frags, 0);                        // copied into the linear area
  // A sender that offloaded leaves the TCP checksum 0: the driver stores the
  // pseudo-header sum (folded, not complemented) and hands on PARTIAL.
  Bytes null_csum = Tcp(100);
  Put16(null_csum, 50, 0);
  SkBuff n = DriverReceive(null_csum, p);
  EXPECT_EQ(n.ip_summed, IpSummed::kPartial);
  EXPECT_EQ(n.csum_start, 34);
  EXPECT_EQ(n.csum_offset, 16);
  // pseudo = src + dst + proto + TCP length (120), by hand:
  // 0x0a00 + 0x0001 + 0x0a00 + 0x0002 + 0x0006 + 0x0078 = 0x1481.
  EXPECT_EQ(n.pkt.data()[50], 0x14);
  EXPECT_EQ(n.pkt.data()[51], 0x81);
  // 6.1 (7525de2516fb, before 51e7a66666e0): PARTIAL, and the sum only
  // for a trunk (this profile is one).
  SkBuff old = DriverReceive(null_csum, p, KernelVersion{6, 1, false});
  EXPECT_EQ(old.ip_summed, IpSummed::kPartial);
  // 4.19: trunk mode makes every TCP frame PARTIAL, checksum or not.
  SkBuff t419 = DriverReceive(Tcp(100), p, KernelVersion{4, 19, false});
  EXPECT_EQ(t419.ip_summed, IpSummed::kPartial);
  EXPECT_EQ(t419.pkt.data()[50], 0x14);
  // Without the hypervisor's flag: NONE.
  RxMeta m;
  m.ibmveth_csum_good = false;
  EXPECT_EQ(DriverReceiveFull(Tcp(100), p, kLabKernel, nullptr, m).skb.ip_summed, IpSummed::kNone);
}

TEST(KernelRxIbmveth, OnlyTcpFramesGetTheChecksumHelpersPartial) {
  // ibmveth_rx_csum_helper acts on IPPROTO_TCP only (linux-4.19 ibmveth.c
  // :1284-1300, v6.18 :1423): in 4.19 trunk mode a TCP frame becomes PARTIAL
  // (above), a UDP one stays as the hypervisor's word made it, bytes and all.
  const NicProfile p = BuiltinProfile("ibmveth_trunk");
  const Bytes udp = Udp(100);
  SkBuff u = DriverReceive(udp, p, KernelVersion{4, 19, false});
  EXPECT_EQ(u.ip_summed, IpSummed::kUnnecessary);
  EXPECT_EQ(u.pkt.bytes(), udp);
  // Nor does a UDP frame whose bytes at the TCP checksum's place are zero.
  Bytes udp_zeros = Udp(100);
  Put16(udp_zeros, 50, 0);
  Put16(udp_zeros, 40, OracleL4Csum(udp_zeros, 14, 34, 17, 6));
  EXPECT_EQ(DriverReceive(udp_zeros, p).ip_summed, IpSummed::kUnnecessary);
}

TEST(KernelRxIbmveth, TheHelperRebuildsAnIpv4ChecksumOf0xffff) {
  // ibmveth_rx_csum_helper (v6.18 ibmveth.c:1397-1401): an IPv4 header
  // checksum of 0xffff (the sender offloaded it) is computed afresh.
  const NicProfile p = BuiltinProfile("ibmveth_trunk");
  Bytes f = Tcp(100);
  Put16(f, 24, 0xffff);
  Put16(f, 50, 0);
  SkBuff s = DriverReceive(f, p);
  EXPECT_EQ(s.ip_summed, IpSummed::kPartial);
  EXPECT_TRUE(testing::OracleIpv4HeaderOk(s.pkt.bytes(), 14));
  EXPECT_NE(s.pkt.data()[24], 0xff);
}

TEST(KernelRxIbmveth, TheHelperReadsOnlyTheFourBitHeaderLength) {
  // ibmveth_rx_csum_helper takes iphlen = iph->ihl * 4 (v6.18 ibmveth.c
  // :1403), the low nibble alone: an IPv4 ethertype whose first byte is 0x55
  // still has a 20-byte header, so the TCP checksum sits at 34 + 16.
  const NicProfile p = BuiltinProfile("ibmveth_trunk");
  Bytes f = Tcp(100);
  f[14] = 0x55;
  Put16(f, 50, 0);
  SkBuff s = DriverReceive(f, p);
  EXPECT_EQ(s.ip_summed, IpSummed::kPartial);
  EXPECT_EQ(s.csum_start, 34);
}

TEST(KernelRxIbmveth, AnAggregateCountsSegmentsOfItsPayloadAfterBothHeaders) {
  // ibmveth_rx_mss_helper (v6.18 ibmveth.c:1361-1376): gso_segs =
  // DIV_ROUND_UP(len from the IP header - (IP header + doff * 4), gso_size).
  // 2990 payload bytes at MSS 1000: 3 segments (hand arithmetic); counting
  // the 40 header bytes wrongly by 19 would make it 4.
  const NicProfile p = BuiltinProfile("ibmveth_trunk");
  RxMeta m;
  m.ibmveth_large_packet = true;
  m.ibmveth_mss = 1000;
  const RxResult r = DriverReceiveFull(Tcp(2990), p, kLabKernel, nullptr, m);
  ASSERT_FALSE(r.dropped);
  EXPECT_EQ(r.skb.gso_size, 1000);
  EXPECT_EQ(r.skb.gso_type & gso::kTcpv4, gso::kTcpv4);
  EXPECT_EQ(r.skb.gso_segs, 3);
  // 3000 bytes: exactly 3; 3001: 4.
  EXPECT_EQ(DriverReceiveFull(Tcp(3000), p, kLabKernel, nullptr, m).skb.gso_segs, 3);
  EXPECT_EQ(DriverReceiveFull(Tcp(3001), p, kLabKernel, nullptr, m).skb.gso_segs, 4);
}

TEST(KernelRxIbmveth, WithoutTheLargePacketBitTheMssIsInTheChecksumField) {
  // ibmveth_rx_mss_helper (v6.18 ibmveth.c:1355-1360): an aggregate above
  // MTU + ETH_HLEN without IBMVETH_RXQ_LRG_PKT carries its MSS in the TCP
  // checksum field, which becomes gso_size and is zeroed; nothing else of
  // the frame changes. (Without CSUM_GOOD, so that ibmveth_rx_csum_helper,
  // which runs next, leaves the zeroed field alone.)
  const NicProfile p = BuiltinProfile("ibmveth_trunk");
  Bytes f = Tcp(2990);
  f[34 + 16] = 0x03;  // MSS 1000
  f[34 + 17] = 0xe8;
  RxMeta m;
  m.ibmveth_csum_good = false;
  const RxResult r = DriverReceiveFull(f, p, kLabKernel, nullptr, m);
  ASSERT_FALSE(r.dropped);
  EXPECT_EQ(r.skb.gso_size, 1000);
  EXPECT_EQ(r.skb.gso_segs, 3);
  Bytes want = f;
  want[34 + 16] = want[34 + 17] = 0;
  const Bytes got = r.skb.pkt.bytes();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); i++) EXPECT_EQ(got[i], want[i]) << "byte " << i;
}

TEST(KernelRxIbmveth, OnlyATcpAggregateBecomesAGsoSkb) {
  // ibmveth_rx_mss_helper returns at once unless the IPv4 protocol is TCP:
  // a large UDP datagram (protocol 17, above 6) gets no GSO type or size.
  const NicProfile p = BuiltinProfile("ibmveth_trunk");
  Bytes f = Tcp(2990);
  f[14 + 9] = 17;
  RxMeta m;
  m.ibmveth_large_packet = true;
  m.ibmveth_mss = 1000;
  const RxResult r = DriverReceiveFull(f, p, kLabKernel, nullptr, m);
  ASSERT_FALSE(r.dropped);
  EXPECT_EQ(r.skb.gso_type, 0u);
  EXPECT_EQ(r.skb.gso_size, 0);
}

TEST(KernelRxRobustness, TruncatedFramesNeverReadPastTheEnd) {
  for (const char* name : {"connectx5", "e810", "x710", "ixgbe_82599", "ibmveth_trunk", "virtio"}) {
    const NicProfile p = BuiltinProfile(name);
    const Bytes full = Vxlan(Tcp(40));
    for (size_t n = 0; n <= full.size(); n += 7) {
      Bytes cut(full.begin(), full.begin() + static_cast<long>(n));
      EXPECT_NO_THROW(DriverReceive(cut, p)) << name << " " << n;
    }
  }
}

}  // namespace
}  // namespace offlab::kernel
