// SPDX-License-Identifier: Apache-2.0
//
// A datagram whose reassembly would exceed the IPv4 maximum of 65535 bytes:
// each fragment is acceptable on its own (its data ends within 65535), but the
// first fragment's 60-byte header plus all the data does not fit. OVS's
// ipf_reassemble_v4_frags gives up ("if (len > IPV4_PACKET_MAX_SIZE) ...
// return NULL", lib/ipf.c) and the fragments never reach conntrack: none is
// returned, none stays held, no connection is made.
//
// The frames are laid out by hand (RFC 791): fragment 0 has IHL 15 (40 bytes
// of NOP options), total length 60 + 32760, MF; fragment 1 has IHL 5, offset
// 4095 (32760 / 8), total length 20 + 32775, so its last data byte is 65534.
// Their header checksums are not computed: the NIC vouches for them (IP
// status good), so ipf does not check them.
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/bytes.h"
#include "offlab/ovs/conntrack.h"
#include "offlab/ovs/flow.h"
#include "offlab/ovs/parse.h"

namespace offlab {
namespace {

const std::string kEth = "020000000002020000000001 0800";

Packet Fragment(const std::string& ip_header, size_t data_len) {
  std::string hex;
  for (char c : kEth + ip_header)
    if (c != ' ') hex.push_back(c);
  Bytes b = FromHex(hex);
  b.resize(b.size() + data_len, 0);
  Packet p(std::move(b));
  p.offloads.set_ip(CsumStatus::kGood);
  Parse(p);
  return p;
}

TEST(IpfReassemblyTooBig, FragmentsOfAnOversizedDatagramAreDropped) {
  const std::string nops(80, '1');  // 40 bytes of 0x01 (NOP, RFC 791)
  Packet first = Fragment("4f00 8034 4343 2000 4011 0000 0a000001 0a000002" + nops, 32760);
  Packet last = Fragment("4500 801b 4343 0fff 4011 0000 0a000001 0a000002", 32775);
  ASSERT_EQ(first.size(), 14u + 32820u);
  ASSERT_EQ(last.size(), 14u + 32795u);

  Conntrack ct;
  const CtSpec spec =
      ParseRule("ip,actions=ct(commit)", [](const std::string&) -> uint32_t { return 1; })
          .actions.at(0)
          .ct;
  EXPECT_TRUE(ct.Execute(PacketBatch{first}, spec).empty());
  EXPECT_EQ(ct.held_fragments(), 1u);
  EXPECT_TRUE(ct.Execute(PacketBatch{last}, spec).empty());
  EXPECT_EQ(ct.held_fragments(), 0u);
  EXPECT_EQ(ct.connections(), 0u);
}

}  // namespace
}  // namespace offlab
