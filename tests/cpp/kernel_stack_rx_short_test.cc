// Receive and checksum-help edges: a UDP datagram too short for its own
// header, a frame that is neither IPv4 nor IPv6, the UDP MIB's proc names,
// and the CRC32c an SCTP CHECKSUM_PARTIAL skb asks for.
//
// Sources (torvalds/linux v6.18): net/ipv4/udp.c udp_rcv (__udp4_lib_rcv):
// "if (!pskb_may_pull(skb, sizeof(struct udphdr))) goto drop; /* No space
// for header. */" with drop_reason still SKB_DROP_REASON_NOT_SPECIFIED, and
// drop: __UDP_INC_STATS(net, UDP_MIB_INERRORS); the proc names are
// net/ipv4/proc.c "Udp:" + snmp4_udp_list ("InErrors") and net/ipv6/proc.c
// "Udp6" + the same field. net/core/dev.c __netif_receive_skb_core hands a
// non-IP ethertype to its own packet type (no IP or UDP counters move).
// net/core/dev.c skb_crc32c_csum_help: crc = ~skb_crc32c(skb, start,
// skb->len - start, ~0); *(__le32 *)(skb->data + offset) = cpu_to_le32(crc)
// (RFC 9260 appendix A: the CRC32c stored little-endian). Expected CRCs
// from test_util.h's bitwise OracleCrc32c.
#include <gtest/gtest.h>

#include "kernel_test_skb.h"
#include "offlab/linux/skb_csum.h"
#include "offlab/linux/stack_rx.h"
#include "offlab/net/counters.h"

namespace offlab::kernel {
namespace {

using testing::Ipv4Frame;
using testing::Ipv6Frame;
using testing::OracleCrc32c;
using testing::OracleSctpOk;

TEST(KernelStackRxShort, UdpShorterThanItsHeaderIsAnInError) {
  // IPv4 says UDP; only 4 bytes follow the IP header.
  SkBuff s;
  s.pkt = Packet(Ipv4Frame(17, "1f900035"));
  Counters c;
  StackRxResult r = StackRcv(s, {}, kLabKernel, &c);
  EXPECT_FALSE(r.verdict.delivered);
  EXPECT_EQ(r.verdict.reason, "NOT_SPECIFIED");
  EXPECT_EQ(c.Get("Udp:InErrors"), 1u);
  EXPECT_EQ(c.Get("Udp:InDatagrams"), 0u);
  // The same over IPv6 counts in the IPv6 MIB.
  SkBuff s6;
  s6.pkt = Packet(Ipv6Frame(17, "", "1f900035"));
  Counters c6;
  r = StackRcv(s6, {}, kLabKernel, &c6);
  EXPECT_FALSE(r.verdict.delivered);
  EXPECT_EQ(c6.Get("Udp6InErrors"), 1u);
  EXPECT_EQ(c6.Get("Udp:InErrors"), 0u);
}

TEST(KernelStackRxShort, NothingBehindTheEthernetHeaderIsAnIpHeaderError) {
  // net/ipv4/ip_input.c ip_rcv_core: InReceives counted first, then
  // "if (!pskb_may_pull(skb, sizeof(struct iphdr))) goto inhdr_error;":
  // IPSTATS_MIB_INHDRERRORS, SKB_DROP_REASON_IP_INHDR.
  Bytes f = Ipv4Frame(17, "");
  f.resize(14);
  SkBuff s;
  s.pkt = Packet(f);
  Counters c;
  StackRxResult r = StackRcv(s, {}, kLabKernel, &c);
  EXPECT_FALSE(r.verdict.delivered);
  EXPECT_EQ(r.verdict.reason, "IP_INHDR");
  EXPECT_EQ(c.Get("Ip:InReceives"), 1u);
  EXPECT_EQ(c.Get("Ip:InHdrErrors"), 1u);
}

TEST(KernelStackRxShort, UdpMibNamesAreTheProcKeys) {
  EXPECT_EQ(UdpMibName(false, "InErrors"), "Udp:InErrors");
  EXPECT_EQ(UdpMibName(true, "InErrors"), "Udp6InErrors");
  EXPECT_EQ(UdpMibName(true, "InCsumErrors"), "Udp6InCsumErrors");
}

TEST(KernelStackRxShort, NonIpFrameIsDeliveredWithoutIpCounters) {
  Bytes arp = Ipv4Frame(17, "1f900035000c0000");
  arp[12] = 0x08, arp[13] = 0x06;
  SkBuff s;
  s.pkt = Packet(arp);
  Counters c;
  StackRxResult r = StackRcv(s, {}, kLabKernel, &c);
  EXPECT_TRUE(r.verdict.delivered);
  EXPECT_EQ(c.Get("Ip:InReceives"), 0u);
  EXPECT_EQ(c.Get("Ip:InDelivers"), 0u);
  EXPECT_EQ(c.Get("Udp:InDatagrams"), 0u);
}

TEST(KernelSkbCrc32cHelp, SctpPartialGetsTheLittleEndianCrc32c) {
  // SCTP common header (ports 5000 -> 6000, vtag 1, checksum 0) and a
  // 16-byte DATA chunk.
  const std::string sctp =
      "13881770 00000001 deadbeef 0000 0010 00000001 00000000 00000000 61626364";
  Bytes f = Ipv4Frame(132, testing::H(sctp));
  SkBuff s;
  s.pkt = Packet(f);
  s.ip_summed = IpSummed::kPartial;
  s.csum_start = 34;
  s.csum_offset = 8;
  s.csum_not_inet = true;
  ASSERT_TRUE(SkbCompletePartial(s));
  const Bytes& got = s.pkt.bytes();
  Bytes zeroed(got.begin() + 34, got.end());
  zeroed[8] = zeroed[9] = zeroed[10] = zeroed[11] = 0;
  const uint32_t crc = OracleCrc32c(zeroed.data(), zeroed.size());
  EXPECT_EQ(got[42], static_cast<uint8_t>(crc));  // least significant byte first
  EXPECT_EQ(got[45], static_cast<uint8_t>(crc >> 24));
  EXPECT_TRUE(OracleSctpOk(got, 34, got.size() - 34));
  EXPECT_EQ(s.ip_summed, IpSummed::kNone);
  // Only the field changed.
  Bytes rest = got;
  for (int k = 42; k < 46; k++) rest[k] = f[k];
  EXPECT_EQ(rest, f);
}

}  // namespace
}  // namespace offlab::kernel
