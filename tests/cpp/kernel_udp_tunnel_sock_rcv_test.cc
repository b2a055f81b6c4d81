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
// IPSTATS_MIB_INDELIVERS before the protocol handler. net/ipv6/udp.c
// __udp6_lib_rcv: "if (ulen == 0) ulen = skb->len;" (a zero UDP length is
// the whole payload, as for a jumbogram) before "if (ulen < sizeof(*uh))
// goto short_packet"; with no socket, "if (!uh->check) goto
// report_csum_error;" (a zero checksum is never valid over IPv6 without a
// socket allowing it), counted as UDP6 InCsumErrors.
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

// Ethernet + IPv6 2001:db8::1 -> ::2 + UDP 55555 -> 4789 (UDP length field
// `ulen`) + 8 bytes; the checksum by the oracle over the real length, or 0.
Bytes Datagram6(uint16_t ulen, bool zero_check = false) {
  Bytes f =
      FromHex(H("020202020202 040404040404 86dd 60000000 0010 11 40"
                "20010db8000000000000000000000001 20010db8000000000000000000000002"
                "d903 12b5 0000 0000 08000000 00002a00"));
  Put16(f, 58, ulen);
  Put16(f, 60, zero_check ? 0 : OracleL4Csum(f, 14, 54, 17, 6));
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

TEST(KernelUdpTunnelSockRcv, AnIpv6UdpLengthOfZeroMeansTheWholePayload) {
  Counters c;
  EXPECT_EQ(Rcv(Datagram6(16), true, 4789, &c), "");
  EXPECT_EQ(Rcv(Datagram6(0), true, 4789, &c), "");
  EXPECT_EQ(c.Get("Udp6InDatagrams"), 2u);
}

TEST(KernelUdpTunnelSockRcv, AZeroIpv6ChecksumWithNoSocketIsACsumError) {
  Counters c;
  EXPECT_EQ(Rcv(Datagram6(16, true), true, 4790, &c), "UDP_CSUM");
  EXPECT_EQ(c.Get("Udp6InCsumErrors"), 1u);
  EXPECT_EQ(c.Get("Udp6NoPorts"), 0u);
  // With the checksum filled in: no socket, nothing wrong with it.
  EXPECT_EQ(Rcv(Datagram6(16), true, 4790, &c), "NO_SOCKET");
  EXPECT_EQ(c.Get("Udp6NoPorts"), 1u);
}

}  // namespace
}  // namespace offlab::kernel
