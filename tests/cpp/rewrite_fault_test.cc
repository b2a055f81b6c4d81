// The seeded fault kTcpZeroCsumTakenAsAbsent (faults.h) changes one case
// only: an incremental TCP checksum update of a field that holds 0x0000. A
// nonzero checksum is still updated, so the fault stays value-dependent,
// which is what the verifier's directed witnesses exist to find.
#include <gtest/gtest.h>

#include "offlab/ovs/faults.h"
#include "offlab/ovs/rewrite.h"
#include "test_util.h"

namespace offlab {
namespace {

TEST(RewriteFault, TcpZeroCsumFaultLeavesANonzeroChecksumUpdated) {
  ScopedFault fault(Fault::kTcpZeroCsumTakenAsAbsent);
  Packet p = testing::Parsed(testing::kFrameG);  // TCP checksum 0x6b72
  ASSERT_TRUE(SetL4Ports(p, std::nullopt, 2222));
  EXPECT_TRUE(testing::OracleL4Ok(p.bytes(), 14, 34, 6));
}

TEST(RewriteFault, TcpZeroCsumFaultLeavesAZeroChecksumStale) {
  // kFrameG with the TCP checksum field 0x0000 and a payload word changed
  // by 0x6b72 so that 0x0000 is right (RFC 1624: the sum stays the same).
  Bytes f = FromHex(testing::kFrameG);
  f[50] = f[51] = 0;
  const uint16_t w = static_cast<uint16_t>((f[54] << 8 | f[55]) + 0x6b72);
  f[54] = static_cast<uint8_t>(w >> 8);
  f[55] = static_cast<uint8_t>(w);
  ASSERT_TRUE(testing::OracleL4Ok(f, 14, 34, 6));
  Packet good = testing::Parsed(ToHex(f));
  ASSERT_TRUE(SetL4Ports(good, std::nullopt, 2222));
  EXPECT_TRUE(testing::OracleL4Ok(good.bytes(), 14, 34, 6)) << "without the fault";
  ScopedFault fault(Fault::kTcpZeroCsumTakenAsAbsent);
  Packet stale = testing::Parsed(ToHex(f));
  ASSERT_TRUE(SetL4Ports(stale, std::nullopt, 2222));
  EXPECT_FALSE(testing::OracleL4Ok(stale.bytes(), 14, 34, 6)) << "with it";
}

}  // namespace
}  // namespace offlab
