// skb_checksum_help and skb_csum_hwoffload_help (net/core/dev.c at v6.18,
// and the v4.11 / v4.19 forms the model keeps by version): COMPLETE just
// becomes NONE; a GSO skb is refused (skb_warn_bad_offload); the checksum
// field must lie in the linear area; an SCTP CRC32c (csum_not_inet) needs
// NETIF_F_SCTP_CRC since v4.13, else skb_crc32c_csum_help computes it.
// Checksums and CRCs are checked with the plain oracle of test_util.h.
#include <gtest/gtest.h>

#include <cstdio>

#include "kernel_test_skb.h"
#include "offlab/linux/xmit.h"
#include "offlab/net/counters.h"

namespace offlab::kernel {
namespace {

using testing::OracleL4Csum;
using testing::OraclePseudo;
using testing::OracleSctpOk;
using testing::OracleSum;
using testing::Put16;

Bytes V4(uint8_t proto, const std::string& l4) { return testing::Ipv4Frame(proto, l4); }

const std::string kTcp = "d478145100000001000000005010010000000000000102030405060708090a0b";
const std::string kSctp =
    "1f9000350000000100000000"
    "00030014000000010000000000000000"
    "01020304";

SkBuff Partial(uint8_t proto) {
  Bytes f = V4(proto, proto == 6 ? kTcp : kSctp);
  SkBuff s;
  if (proto == 6) {
    size_t len = 0;
    Put16(f, 50, static_cast<uint16_t>(OraclePseudo(f, 14, 34, 6, &len)));
  }
  s.pkt = Packet(f);
  s.pkt.l3_ofs = 14;
  s.pkt.l4_ofs = 34;
  s.ip_summed = IpSummed::kPartial;
  s.csum_start = 34;
  s.csum_offset = proto == 6 ? 16 : 8;
  s.csum_not_inet = proto == 132;
  return s;
}

TEST(KernelCsumHelp, ChecksumHelp) {
  SkBuff s = Partial(6);
  Counters c;
  ASSERT_EQ(SkbChecksumHelp(s, &c), 0);
  EXPECT_EQ(s.ip_summed, IpSummed::kNone);
  EXPECT_EQ(testing::Be16(s.pkt.bytes(), 50), OracleL4Csum(s.pkt.bytes(), 14, 34, 6, 16));
  EXPECT_EQ(c.Get("xmit_csum_help"), 1u);
  // COMPLETE: nothing to fill, the state is dropped.
  SkBuff comp = Partial(6);
  comp.ip_summed = IpSummed::kComplete;
  const Bytes before = comp.pkt.bytes();
  ASSERT_EQ(SkbChecksumHelp(comp), 0);
  EXPECT_EQ(comp.ip_summed, IpSummed::kNone);
  EXPECT_EQ(comp.pkt.bytes(), before);
  // A GSO skb: refused and warned about.
  SkBuff gso = Partial(6);
  gso.gso_size = 1000;
  gso.gso_type = gso::kTcpv4;
  Counters w;
  EXPECT_EQ(SkbChecksumHelp(gso, &w), -22);
  EXPECT_EQ(w.Get("skb_warn_bad_offload"), 1u);
  // The field beyond the end of the data.
  SkBuff off = Partial(6);
  off.csum_offset = static_cast<uint16_t>(off.len() - 34 - 1);
  EXPECT_EQ(SkbChecksumHelp(off), -22);
  EXPECT_EQ(off.ip_summed, IpSummed::kPartial);
}

TEST(KernelCsumHelp, SctpCrcNeedsSctpCrcFromV413) {
  for (KernelVersion kv : {KernelVersion{6, 18}, KernelVersion{4, 19}}) {
    SkBuff s = Partial(132);
    Counters c;
    ASSERT_EQ(SkbCsumHwoffloadHelp(s, netif::kSctpCrc, kv, &c), 0);
    EXPECT_EQ(s.ip_summed, IpSummed::kPartial);
    EXPECT_EQ(c.Get("xmit_csum_offloaded"), 1u);
    // A generic checksum device cannot do a CRC32c: software.
    SkBuff h = Partial(132);
    Counters d;
    ASSERT_EQ(SkbCsumHwoffloadHelp(h, netif::kHwCsum, kv, &d), 0);
    EXPECT_EQ(h.ip_summed, IpSummed::kNone);
    EXPECT_FALSE(h.csum_not_inet);
    EXPECT_TRUE(OracleSctpOk(h.pkt.bytes(), 34, h.len() - 34));
    EXPECT_EQ(d.Get("xmit_crc32c_help"), 1u);
  }
  // skb_crc32c_csum_help sums the field as it finds it (the SCTP stack
  // leaves it 0): a non-zero field enters the CRC.
  SkBuff odd = Partial(132);
  odd.pkt.data()[42] = 0x5a;
  Bytes want = odd.pkt.bytes();
  const uint32_t crc = testing::OracleCrc32c(&want[34], want.size() - 34);
  for (int i = 0; i < 4; i++) want[42 + i] = static_cast<uint8_t>(crc >> (8 * i));
  ASSERT_EQ(SkbCsumHwoffloadHelp(odd, netif::kHwCsum, kLabKernel), 0);
  EXPECT_EQ(odd.pkt.bytes(), want);
  // Before v4.13 any checksum feature took it, CRC or not; 4.13 ("net:
  // more accurate checksumming in validate_xmit_skb()") is the first
  // release that asks for SCTP_CRC.
  for (KernelVersion kv : {KernelVersion{4, 11}, KernelVersion{4, 12}}) {
    SkBuff old = Partial(132);
    ASSERT_EQ(SkbCsumHwoffloadHelp(old, netif::kHwCsum, kv), 0);
    EXPECT_EQ(old.ip_summed, IpSummed::kPartial) << kv.ToString();
  }
  SkBuff v413 = Partial(132);
  ASSERT_EQ(SkbCsumHwoffloadHelp(v413, netif::kHwCsum, KernelVersion{4, 13}), 0);
  EXPECT_EQ(v413.ip_summed, IpSummed::kNone);
}

TEST(KernelCsumHelp, BeforeV512AnyChecksumFeatureTakesAnyInetChecksum) {
  // An ICMP-like checksum offset (2) with only IP_CSUM: v5.10 leaves it to
  // the device, v6.18 completes it in software.
  // The boundary: "net: support ip generic csum processing in
  // skb_csum_hwoffload_help" is v5.12.
  for (auto [kv, partial] :
       {std::pair{KernelVersion{5, 10}, true}, std::pair{KernelVersion{5, 11}, true},
        std::pair{KernelVersion{5, 12}, false}, std::pair{KernelVersion{6, 18}, false}}) {
    SkBuff s = Partial(6);
    s.csum_offset = 2;
    ASSERT_EQ(SkbCsumHwoffloadHelp(s, netif::kIpCsum, kv), 0);
    EXPECT_EQ(s.ip_summed == IpSummed::kPartial, partial) << kv.ToString();
  }
  // No checksum feature at all: software, every version.
  for (KernelVersion kv : {KernelVersion{4, 11}, KernelVersion{5, 10}, KernelVersion{6, 18}}) {
    SkBuff s = Partial(6);
    ASSERT_EQ(SkbCsumHwoffloadHelp(s, netif::kSg, kv), 0);
    EXPECT_EQ(s.ip_summed, IpSummed::kNone) << kv.ToString();
    EXPECT_EQ(testing::Be16(s.pkt.bytes(), 50), OracleL4Csum(s.pkt.bytes(), 14, 34, 6, 16));
  }
}

}  // namespace
}  // namespace offlab::kernel
