// Checksum arithmetic against published values: RFC 1071's worked example,
// IPv4 headers from Open vSwitch's tests, RFC 3720 CRC32c vectors; and the
// fast sum against the plain loop for every length and alignment.
#include "offlab/net/checksum.h"

#include <gtest/gtest.h>

#include <random>

#include "offlab/net/bytes.h"
#include "offlab/net/crc32c_table.h"
#include "offlab/net/error.h"

namespace offlab {
namespace {

TEST(Checksum, Rfc1071Example) {
  // RFC 1071 §3: 00 01 f2 03 f4 f5 f6 f7 sums to 0xddf2.
  Bytes b = FromHex("0001f203f4f5f6f7");
  EXPECT_EQ(csum::Fold(csum::Partial(b.data(), b.size())), 0xddf2);
  EXPECT_EQ(csum::Compute(b.data(), b.size()), static_cast<uint16_t>(~0xddf2));
}

TEST(Checksum, OvsIpv4Headers) {
  // Open vSwitch tests/dpif-netdev.at headers with their checksum fields zeroed.
  Bytes a = FromHex("450000680000000000060000c0a87b02c0a87b01");
  EXPECT_EQ(csum::Compute(a.data(), a.size()), 0x433c);
  Bytes b = FromHex("4500009a0000400040110000010102580101025c");
  EXPECT_EQ(csum::Compute(b.data(), b.size()), 0x339e);
  Bytes c = FromHex("45000068000000000006433cc0a87b02c0a87b01");
  EXPECT_TRUE(csum::Verify(c.data(), c.size()));
  c[11] ^= 1;
  EXPECT_FALSE(csum::Verify(c.data(), c.size()));
}

TEST(Checksum, Crc32cRfc3720Vectors) {
  Bytes zeros(32, 0), ones(32, 0xff), inc(32), dec(32);
  for (int i = 0; i < 32; i++) {
    inc[i] = static_cast<uint8_t>(i);
    dec[i] = static_cast<uint8_t>(31 - i);
  }
  EXPECT_EQ(csum::Crc32c(zeros.data(), 32), 0x8a9136aau);
  EXPECT_EQ(csum::Crc32c(ones.data(), 32), 0x62a8ab43u);
  EXPECT_EQ(csum::Crc32c(inc.data(), 32), 0x46dd794eu);
  EXPECT_EQ(csum::Crc32c(dec.data(), 32), 0x113fdb5cu);
  // The table path, which runs only where the CPU lacks SSE4.2, on the same
  // vectors, and on a length that leaves a tail after its 8-byte steps.
  EXPECT_EQ(csum::Crc32cTable(zeros.data(), 32), 0x8a9136aau);
  EXPECT_EQ(csum::Crc32cTable(ones.data(), 32), 0x62a8ab43u);
  EXPECT_EQ(csum::Crc32cTable(inc.data(), 32), 0x46dd794eu);
  EXPECT_EQ(csum::Crc32cTable(dec.data(), 32), 0x113fdb5cu);
  const std::string nine = "123456789";
  EXPECT_EQ(csum::Crc32cTable(reinterpret_cast<const uint8_t*>(nine.data()), nine.size()),
            0xe3069283u);
  const std::string s = "123456789";
  EXPECT_EQ(csum::Crc32c(reinterpret_cast<const uint8_t*>(s.data()), s.size()), 0xe3069283u);
  // Continuation equals one pass.
  uint32_t part = csum::Crc32c(inc.data(), 13);
  EXPECT_EQ(csum::Crc32c(inc.data() + 13, 19, part), 0x46dd794eu);
}

TEST(Checksum, FastEqualsPlainLoopForEveryLengthAndAlignment) {
  std::mt19937 rng(7);
  Bytes buf(4096 + 64);
  for (auto& b : buf) b = static_cast<uint8_t>(rng());
  for (size_t off = 0; off < 8; off++) {
    for (size_t len = 0; len <= 600; len++) {
      ASSERT_EQ(csum::Compute(buf.data() + off, len), csum::NaiveCompute(buf.data() + off, len))
          << off << " " << len;
    }
  }
  for (size_t len : {4096u, 65536u, 1u << 20, (1u << 24) + 3}) {
    Bytes big(len);
    for (auto& b : big) b = static_cast<uint8_t>(rng());
    EXPECT_EQ(csum::Compute(big.data(), len), csum::NaiveCompute(big.data(), len)) << len;
  }
  // All-ones data stresses carries.
  Bytes ff(1 << 20, 0xff);
  EXPECT_EQ(csum::Compute(ff.data(), ff.size()), csum::NaiveCompute(ff.data(), ff.size()));
}

TEST(Checksum, PiecesCombine) {
  Bytes b = FromHex("45000068000000000006433cc0a87b02c0a87b01");
  uint64_t s = csum::Partial(b.data(), 8);
  s = csum::Partial(b.data() + 8, 12, s);
  EXPECT_EQ(csum::Fold(s), 0xffff);
}

TEST(Checksum, PseudoHeadersMatchHandBuiltBuffers) {
  const uint8_t s4[4] = {192, 168, 123, 2}, d4[4] = {192, 168, 123, 1};
  Bytes ph4 = FromHex("c0a87b02c0a87b0100060054");
  EXPECT_EQ(csum::Fold(csum::PseudoIpv4(s4, d4, 6, 0x54)),
            static_cast<uint16_t>(~csum::NaiveCompute(ph4.data(), ph4.size())));
  Bytes s6 = FromHex("2001cafe000000000000000000000088");
  Bytes d6 = FromHex("2001cafe000000000000000000000092");
  Bytes ph6 = FromHex(
      "2001cafe000000000000000000000088"
      "2001cafe000000000000000000000092"
      "000107e4"
      "00000006");
  EXPECT_EQ(csum::Fold(csum::PseudoIpv6(s6.data(), d6.data(), 6, 0x107e4)),
            static_cast<uint16_t>(~csum::NaiveCompute(ph6.data(), ph6.size())));
}

TEST(Checksum, Rfc1624UpdateEqualsRecomputation) {
  std::mt19937 rng(11);
  for (int iter = 0; iter < 20000; iter++) {
    Bytes h(20);
    for (auto& b : h) b = static_cast<uint8_t>(rng());
    h[0] = 0x45;
    PutBe16(&h[10], 0);
    PutBe16(&h[10], csum::Compute(h.data(), 20));
    size_t w = 2 * (rng() % 10);
    if (w == 10) continue;  // the checksum word itself
    uint16_t old_w = GetBe16(&h[w]), new_w = static_cast<uint16_t>(rng());
    if (iter % 100 == 0) new_w = 0;
    uint16_t inc = csum::Update16(GetBe16(&h[10]), old_w, new_w);
    PutBe16(&h[w], new_w);
    PutBe16(&h[10], 0);
    uint16_t full = csum::Compute(h.data(), 20);
    // RFC 1624 §3: equal unless the new header sums to zero, where the update
    // gives 0x0000 and recomputation 0xffff; with version 4 it never does.
    EXPECT_EQ(inc, full);
  }
  // The ±0 corner of RFC 1624 §3: a header of all zeros but the changed word.
  EXPECT_EQ(csum::Update16(0xfffe, 0x0001, 0x0000), 0x0000);
  Bytes z(20, 0);
  EXPECT_EQ(csum::Compute(z.data(), z.size()), 0xffff);
}

TEST(Checksum, UpdateKeepsTheErrorOfAWrongChecksum) {
  std::mt19937 rng(3);
  for (int iter = 0; iter < 5000; iter++) {
    Bytes h(20);
    for (auto& b : h) b = static_cast<uint8_t>(rng());
    h[0] = 0x45;
    PutBe16(&h[10], 0);
    uint16_t good = csum::Compute(h.data(), 20);
    uint16_t err = static_cast<uint16_t>(1 + rng() % 0xfffe);
    uint16_t bad = static_cast<uint16_t>(good + err);
    uint16_t old_w = GetBe16(&h[12]), new_w = static_cast<uint16_t>(rng());
    uint16_t inc_bad = csum::Update16(bad, old_w, new_w);
    uint16_t inc_good = csum::Update16(good, old_w, new_w);
    EXPECT_NE(csum::Fold(uint64_t{inc_bad} + static_cast<uint16_t>(~inc_good)), 0xffff)
        << "a wrong checksum became right";
  }
}

TEST(Checksum, Update32OfAnIpv4Address) {
  // dpif-netdev.at's conntrack test rewrites ip_dst 192.168.123.1 to
  // 192.168.1.1 (c0a87b01 -> c0a80101): its IPv4 checksum 433c becomes bd3c
  // (the expected frame there). RFC 1624 eqn. 3 word by word: only the low
  // word changes, 7b01 -> 0101, so ~(~433c + ~7b01 + 0101) = bd3c.
  EXPECT_EQ(csum::Update32(0x433c, 0xc0a87b01, 0xc0a80101), 0xbd3c);
  // And back.
  EXPECT_EQ(csum::Update32(0xbd3c, 0xc0a80101, 0xc0a87b01), 0x433c);
}

TEST(Bytes, HexRoundTripAndErrors) {
  EXPECT_EQ(ToHex(FromHex("00 ff A0\n1b")), "00ffa01b");
  EXPECT_THROW(FromHex("abc"), Error);
  EXPECT_THROW(FromHex("zz"), Error);
  // Every hex digit in either case: A-F as a-f.
  EXPECT_EQ(ToHex(FromHex("ABCDEF abcdef 0123456789")), "abcdefabcdef0123456789");
  EXPECT_THROW(FromHex("0G"), Error);
  EXPECT_THROW(FromHex("0g"), Error);
}

}  // namespace
}  // namespace offlab
