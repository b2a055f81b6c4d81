// The outer datagram's way to a UDP tunnel socket when the socket is not
// the one it is for: another port or the other address family gives the
// no-socket path of the UDP receive, whose checksum is still checked first;
// a non-UDP packet never reaches UDP at all.
//
// Source: torvalds/linux v6.18 net/ipv4/udp.c __udp4_lib_rcv: with no
// socket (__udp4_lib_lookup_skb finds none), "if (udp_lib_checksum_complete
// (skb)) goto csum_error;" then __UDP_INC_STATS(UDP_MIB_NOPORTS), drop
// reason SKB_DROP_REASON_NO_SOCKET; csum_error counts UDP_MIB_CSUMERRORS
// and UDP_MIB_INERRORS, reason SKB_DROP_REASON_UDP_CSUM. A VXLAN/Geneve
// socket is bound to one port and one family (vxlan_socket_create /
// geneve_socket_create with udp_conf.family), so an IPv4 datagram does not
// find an IPv6 tunnel socket. ip_local_deliver_finish counts
// IPSTATS_MIB_INDELIVERS before the protocol handler.
// Frames: built here, checksums from the plain-loop oracle (test_util.h).
#include <gtest/gtest.h>

#include "offlab/linux/udp_tunnel.h"
#include "offlab/net/counters.h"
#include "test_util.h"

namespace offlab::kernel {
namespace {

using testing::H;
using testing::OracleL4Csum;
using testing::OracleSum;
using testing::Put16;

// Ethernet + IPv4 + UDP 55555 -> 4789 + 8 bytes (a VXLAN header) + `extra`
// bytes, both checksums correct; `proto` 6 makes the same bytes a (short)
// TCP segment.
Bytes Datagram(uint8_t proto = 17, size_t extra = 0) {
  Bytes f =
      FromHex(H("020202020202 040404040404 0800 45000024 00010000 4011 0000"
                "0a010002 0a010001 d903 12b5 0010 0000 08000000 00002a00"));
  f.resize(f.size() + extra, 0x5a);
  Put16(f, 16, static_cast<uint16_t>(f.size() - 14));
  Put16(f, 38, static_cast<uint16_t>(f.size() - 34));
  f[23] = proto;
  Put16(f, 24, static_cast<uint16_t>(~OracleSum(&f[14], 20)));
  Put16(f, 40, OracleL4Csum(f, 14, 34, 17, 6));
  return f;
}

std::string Rcv(const Bytes& f, bool ipv6, uint16_t port, Counters* c) {
  SkBuff s;
  s.pkt = Packet(f);
  IpRcvInfo ip;
  return UdpTunnelSockRcv(s, ipv6, port, false, KernelVersion{6, 18}, c, &ip);
}

TEST(KernelUdpTunnelSockRcv, TheTunnelsOwnPortAndFamilyDelivers) {
  Counters c;
  EXPECT_EQ(Rcv(Datagram(), false, 4789, &c), "");
  EXPECT_EQ(c.Get("Udp:InDatagrams"), 1u);
  EXPECT_EQ(c.Get("Udp:NoPorts"), 0u);
}

TEST(KernelUdpTunnelSockRcv, AnotherPortIsNoSocket) {
  Counters c;
  EXPECT_EQ(Rcv(Datagram(), false, 4790, &c), "NO_SOCKET");
  EXPECT_EQ(c.Get("Ip:InDelivers"), 1u);
  EXPECT_EQ(c.Get("Udp:NoPorts"), 1u);
  EXPECT_EQ(c.Get("Udp:InDatagrams"), 0u);
}

TEST(KernelUdpTunnelSockRcv, AnIpv6TunnelSocketDoesNotTakeAnIpv4Datagram) {
  Counters c;
  EXPECT_EQ(Rcv(Datagram(), true, 4789, &c), "NO_SOCKET");
  EXPECT_EQ(c.Get("Udp:NoPorts"), 1u);
}

TEST(KernelUdpTunnelSockRcv, WithNoSocketABadChecksumIsACsumErrorNotNoPorts) {
  // 16 UDP bytes are verified at once (len <= CHECKSUM_BREAK, 76, in
  // __skb_checksum_validate_complete); 216 only by the no-socket path's
  // udp_lib_checksum_complete. Either way: a checksum error.
  for (size_t extra : {size_t{0}, size_t{200}}) {
    SCOPED_TRACE(extra);
    Bytes f = Datagram(17, extra);
    f[41] ^= 0x01;
    Counters c;
    EXPECT_EQ(Rcv(f, false, 4790, &c), "UDP_CSUM");
    EXPECT_EQ(c.Get("Udp:InCsumErrors"), 1u);
    EXPECT_EQ(c.Get("Udp:InErrors"), 1u);
    EXPECT_EQ(c.Get("Udp:NoPorts"), 0u);
  }
}

TEST(KernelUdpTunnelSockRcv, ANonUdpPacketNeverReachesUdp) {
  // Delivered to IP's upper layer (InDelivers), but not to UDP.
  Counters c;
  EXPECT_NE(Rcv(Datagram(6), false, 4789, &c), "");
  EXPECT_EQ(c.Get("Ip:InDelivers"), 1u);
  EXPECT_EQ(c.Get("Udp:InDatagrams"), 0u);
  EXPECT_EQ(c.Get("Udp:NoPorts"), 0u);
}

}  // namespace
}  // namespace offlab::kernel
