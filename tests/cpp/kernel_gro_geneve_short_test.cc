// geneve_gro_receive on a Geneve header that is not all there (torvalds/linux
// v6.18 drivers/net/geneve.c): "gh = skb_gro_header(skb, hlen, off_gnv); if
// (unlikely(!gh)) goto out;" for the 8-byte base header, and again for
// geneve_hlen(gh) = 8 + opt_len * 4 (skb_gro_header_slow); flush stays 1, so
// the frame goes up as it came (GRO_NORMAL), nothing held. The base header
// layout is RFC 8926 section 3.4 (Ver 2 bits, Opt Len 6 bits, in 4-byte
// words). Frames from kernel_gro_test_frames.h (plain-loop sums).
#include <gtest/gtest.h>

#include "kernel_gro_test_frames.h"
#include "offlab/linux/gro.h"

namespace offlab::testing {
namespace {

using kernel::GroCell;
using kernel::GroConfig;
using kernel::GroResult;
using kernel::IpSummed;

// UDP to 6081 carrying `payload` after the UDP header.
Bytes ToGenevePort(const Bytes& payload) {
  Outer o;
  o.dport = 6081;
  return VxlanFrame(o, payload);  // VxlanFrame's 8 header bytes come first
}

GroResult Receive(const Bytes& f, std::string* why) {
  GroConfig c;
  c.geneve.push_back({});
  GroCell g(c);
  const GroResult r = g.Receive(DriverSkb(f, IpSummed::kUnnecessary));
  *why = g.last_reason();
  return r;
}

TEST(KernelGroGeneveShort, FewerThanEightBytesAfterTheUdpHeader) {
  Bytes f = ToGenevePort({});
  f.resize(42 + 4);  // half a base header
  Put16(f, 16, static_cast<uint16_t>(f.size() - 14));
  FixIpv4Csum(f, 14);
  Put16(f, 38, static_cast<uint16_t>(f.size() - 34));
  FixL4Csum(f, 14, 34, 17, 6);
  std::string why;
  EXPECT_EQ(Receive(f, &why), GroResult::kNormal);
  EXPECT_EQ(why, "geneve_short");
}

TEST(KernelGroGeneveShort, OptionsLongerThanThePacket) {
  // Base header 08 00 6558 00002a 00: Opt Len 8 (32 bytes of options), none
  // of them present.
  std::string why;
  EXPECT_EQ(Receive(ToGenevePort({}), &why), GroResult::kNormal);
  EXPECT_EQ(why, "geneve_short");
  // With the 32 option bytes and an inner frame, the header is whole.
  Bytes opts(32, 0);
  const Bytes in = TcpFrame(Seg{});
  opts.insert(opts.end(), in.begin(), in.end());
  Bytes whole = ToGenevePort(opts);
  Put16(whole, 44, 0x6558);  // protocol type: Transparent Ethernet Bridging
  FixL4Csum(whole, 14, 34, 17, 6);
  EXPECT_EQ(Receive(whole, &why), GroResult::kHeld);
}

}  // namespace
}  // namespace offlab::testing
