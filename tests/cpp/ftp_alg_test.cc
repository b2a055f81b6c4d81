// Reference §1.1 "FTP ALG TCP checksum": the PORT rewrite under source NAT,
// with the row's checksum rule and the sequence-number skew it causes.
#include "offlab/ovs/ftp_alg.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/net/error.h"
#include "offlab/ovs/flow.h"
#include "offlab/ovs/parse.h"
#include "offlab/ovs/pipeline.h"
#include "offlab/ovs/send_prepare.h"

namespace offlab {
namespace {

// Ethernet/IPv4/TCP with correct checksums (input construction only).
Bytes Tcp4(const std::string& src, const std::string& dst, uint16_t sport, uint16_t dport,
           uint32_t seq, uint32_t ack, uint8_t flags, const std::string& payload) {
  Bytes f = FromHex(std::string("0200000000020200000000010800") +
                    "4500000000004000400600000000000000000000" +
                    "0000000000000000000000005000020000000000");
  f.insert(f.end(), payload.begin(), payload.end());
  PutBe16(&f[16], static_cast<uint16_t>(f.size() - 14));
  bool v6;
  IpAddr s = ParseIp(src, &v6), d = ParseIp(dst, &v6);
  std::memcpy(&f[26], s.data(), 4);
  std::memcpy(&f[30], d.data(), 4);
  PutBe16(&f[24], csum::Compute(&f[14], 20));
  PutBe16(&f[34], sport);
  PutBe16(&f[36], dport);
  PutBe32(&f[38], seq);
  PutBe32(&f[42], ack);
  f[47] = flags;
  const size_t l4 = f.size() - 34;
  PutBe16(&f[50], csum::Finish(csum::Partial(
                      &f[34], l4, csum::PseudoIpv4(&f[26], &f[30], 6, static_cast<uint16_t>(l4)))));
  return f;
}

bool Correct(const Bytes& w) {
  const size_t l4 = GetBe16(&w[16]) - 20;
  return csum::Compute(&w[14], 20) == 0 &&
         csum::Verify(&w[34], l4, csum::PseudoIpv4(&w[26], &w[30], 6, static_cast<uint16_t>(l4)));
}

std::string Payload(const Bytes& w) { return std::string(w.begin() + 54, w.end()); }

TEST(RowFtpAlg, ValidChecksumBecomesPartial) {
  Packet p(Tcp4("10.0.0.1", "10.0.0.2", 40000, 21, 1001, 1, 0x18, "PORT 10,0,0,1,156,64\r\n"));
  Parse(p);
  p.offloads.set_ip(CsumStatus::kGood);
  p.offloads.set_l4(CsumStatus::kGood);
  const uint16_t tcp_before = GetBe16(p.data() + 50);
  // "10,0,0,1" (8 characters) -> "192,168,7,77" (12): four more bytes.
  EXPECT_EQ(FtpRewritePort(p, {192, 168, 7, 77}), 4);
  Bytes w = p.bytes();
  EXPECT_EQ(Payload(w), "PORT 192,168,7,77,156,64\r\n");
  EXPECT_EQ(GetBe16(&w[16]), 20 + 20 + 26);
  EXPECT_EQ(p.offloads.ip(), CsumStatus::kPartial);
  EXPECT_EQ(p.offloads.l4(), CsumStatus::kPartial);
  EXPECT_EQ(GetBe16(&w[50]), tcp_before);  // untouched until send-prepare
  SendPrepare(p, 0);
  EXPECT_TRUE(Correct(p.bytes()));
}

TEST(RowFtpAlg, OtherwiseRecomputedInFull) {
  Packet p(Tcp4("10.0.0.1", "10.0.0.2", 40000, 21, 1001, 1, 0x18, "PORT 10,0,0,1,156,64\r\n"));
  Parse(p);
  EXPECT_EQ(FtpRewritePort(p, {192, 168, 7, 77}), 4);
  EXPECT_EQ(p.offloads.l4(), CsumStatus::kUnknown);
  EXPECT_TRUE(Correct(p.bytes()));  // IP updated incrementally, TCP recomputed
  Packet q(Tcp4("10.0.0.1", "10.0.0.2", 40000, 21, 1001, 1, 0x18, "USER anonymous\r\n"));
  Parse(q);
  EXPECT_EQ(FtpRewritePort(q, {192, 168, 7, 77}), 0);
}

TEST(RowFtpAlg, PipelineTranslatesAndSkewsSequenceNumbers) {
  Pipeline br;
  br.AddPort({.name = "p1"});
  br.AddPort({.name = "p2"});
  br.AddFlow("table=0,in_port=p1,tcp,actions=ct(commit,alg=ftp,nat(src=192.168.7.77),table=1)");
  br.AddFlow("table=0,in_port=p2,tcp,actions=ct(nat,table=1)");
  br.AddFlow("table=1,in_port=p1,actions=output:p2");
  br.AddFlow("table=1,in_port=p2,actions=output:p1");
  auto send = [&](const std::string& port, const Bytes& f) {
    auto out = br.Receive(port, f);
    EXPECT_EQ(out.size(), 1u) << (br.events().empty() ? "" : br.events()[0]);
    return out.empty() ? Bytes{} : out[0].frame;
  };
  send("p1", Tcp4("10.0.0.1", "10.0.0.2", 40000, 21, 1000, 0, 0x02, ""));
  send("p2", Tcp4("10.0.0.2", "192.168.7.77", 21, 40000, 5000, 1001, 0x12, ""));
  Bytes port = send(
      "p1", Tcp4("10.0.0.1", "10.0.0.2", 40000, 21, 1001, 5001, 0x18, "PORT 10,0,0,1,156,64\r\n"));
  ASSERT_FALSE(port.empty());
  EXPECT_EQ(Payload(port), "PORT 192,168,7,77,156,64\r\n");
  EXPECT_EQ(ToHex(&port[26], 4), "c0a8074d");
  EXPECT_TRUE(Correct(port));
  // The client's next segment starts 22 bytes on; the server saw 26: seq + 4.
  Bytes next = send("p1", Tcp4("10.0.0.1", "10.0.0.2", 40000, 21, 1023, 5001, 0x18, "NOOP\r\n"));
  EXPECT_EQ(GetBe32(&next[38]), 1027u);
  EXPECT_TRUE(Correct(next));
  // The server acknowledges 1027 + 6 = 1033; the client must see 1023 + 6 = 1029.
  Bytes ack = send("p2", Tcp4("10.0.0.2", "192.168.7.77", 21, 40000, 5001, 1033, 0x10, ""));
  EXPECT_EQ(GetBe32(&ack[42]), 1029u);
  EXPECT_EQ(ToHex(&ack[30], 4), "0a000001");
  EXPECT_TRUE(Correct(ack));
}

TEST(RowFtpAlg, UnknownAlgIsRejected) {
  Pipeline br;
  br.AddPort({.name = "p1"});
  EXPECT_THROW(br.AddFlow("in_port=p1,tcp,actions=ct(commit,alg=tftp)"), Error);
}

}  // namespace
}  // namespace offlab
