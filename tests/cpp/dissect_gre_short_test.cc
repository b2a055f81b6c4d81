// SPDX-License-Identifier: Apache-2.0
//
// A GRE header cut inside its first four bytes (RFC 2784: flags, version,
// protocol type) is reported as truncated at those four bytes, whatever the
// flag bits it does have would add (here the key bit, RFC 2890, which would
// make it eight).
#include <gtest/gtest.h>

#include "offlab/net/bytes.h"
#include "offlab/net/dissect.h"

namespace offlab {
namespace {

TEST(DissectGreShort, CutInsideTheBaseHeader) {
  // Ethernet, IPv4 (total length 22, protocol 47, checksum hand-computed),
  // two GRE bytes: the flags word with K set.
  const Bytes f = FromHex(
      "0200000000020200000000010800"
      "450000160000000040 2f 66b7 0a000001 0a000002"
      "2000");
  const Dissection d = Dissect(f);
  ASSERT_TRUE(d.error);
  EXPECT_EQ(*d.error, "gre: truncated, need 4 bytes at offset 34, have 2");
}

}  // namespace
}  // namespace offlab
