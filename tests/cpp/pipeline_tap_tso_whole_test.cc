// SPDX-License-Identifier: Apache-2.0
//
// With userspace TSO a TAP port (netdev-linux's tap class, kernel driver
// "tun") takes a TSO packet whole: netdev_linux_prepend_vnet_hdr
// (openvswitch/ovs d6a632a9b1 lib/netdev-linux.c) describes the segmentation
// in the virtio-net header and the kernel's tun device, not OVS, segments it
// later; the TAP profile (models/profiles/tap.yaml) offers TSO only with
// userspace-tso-enable. So one frame leaves, the whole 3000-byte payload in
// it, with its segment size; a vhost-user port (virtio) likewise.
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/net/packet.h"
#include "offlab/ovs/pipeline.h"

namespace offlab {
namespace {

constexpr size_t kPayload = 3000;
constexpr uint16_t kSegsz = 1000;

// A guest's TSO frame: 10.0.0.1 -> 10.0.0.2, TCP 49152 -> 5201 (20-byte
// header), IPv4 and TCP checksums partial.
Packet GuestTso() {
  Bytes f(54 + kPayload, 0);
  const uint8_t eth[14] = {2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 8, 0};
  std::copy(eth, eth + 14, f.begin());
  uint8_t* ip = &f[14];
  ip[0] = 0x45;
  PutBe16(ip + 2, static_cast<uint16_t>(40 + kPayload));
  PutBe16(ip + 6, 0x4000);
  ip[8] = 64;
  ip[9] = 6;
  const uint8_t addrs[8] = {10, 0, 0, 1, 10, 0, 0, 2};
  std::copy(addrs, addrs + 8, ip + 12);
  uint8_t* tcp = &f[34];
  PutBe16(tcp, 49152);
  PutBe16(tcp + 2, 5201);
  PutBe32(tcp + 4, 1);
  tcp[12] = 5 << 4;
  tcp[13] = 0x10;
  PutBe16(tcp + 14, 502);
  PutBe16(tcp + 16, csum::Fold(csum::PseudoIpv4(ip + 12, ip + 16, 6, 20 + kPayload)));
  for (size_t i = 0; i < kPayload; i++) f[54 + i] = static_cast<uint8_t>(i * 7 + 3);
  Packet p(f);
  p.offloads.set_ip(CsumStatus::kPartial);
  p.offloads.set_l4(CsumStatus::kPartial);
  p.tso_segsz = kSegsz;
  return p;
}

TEST(PipelineTapTsoWhole, ATsoPacketLeavesATapOrVhostUserPortWhole) {
  for (const char* profile : {"tap", "virtio"}) {
    SCOPED_TRACE(profile);
    PipelineConfig cfg;
    cfg.userspace_tso = true;
    Pipeline dp(cfg);
    dp.AddPort({.name = "vm", .profile = "virtio"});
    dp.AddPort({.name = "out", .profile = profile});
    dp.AddFlow("in_port=vm,actions=output:out");
    const std::vector<Sent> sent = dp.ReceivePacket("vm", GuestTso());
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_EQ(sent[0].port, "out");
    EXPECT_EQ(sent[0].tso_segsz, kSegsz);
    EXPECT_GE(sent[0].size(), 54 + kPayload);
  }
}

}  // namespace
}  // namespace offlab
