// A container behind a bridge and a veth pair receiving from the NIC. From
// v4.4 (torvalds/linux ce8c839b74e3 "veth: don't modify ip_summed; doing so
// treats packets with bad checksums as good.") veth_xmit leaves ip_summed
// alone, so the container's stack checks a frame the NIC could not verify
// and drops a corrupted one; before it, veth promised a good checksum for
// every CHECKSUM_NONE skb (peer with rx-checksumming) and the corrupted
// segment was delivered. Frames from the host test frames (plain-loop
// checksums).
#include <gtest/gtest.h>

#include "kernel_host_test_frames.h"
#include "offlab/linux/host.h"

namespace offlab::testing {
namespace {

using kernel::HostAttach;
using kernel::HostReceive;
using kernel::HostSwitch;
using kernel::KernelHost;
using kernel::KernelVersion;
using kernel::RxOutcome;

RxOutcome ToContainer(KernelVersion kv, const Bytes& frame) {
  KernelHost h = kernel::MakeKernelHost(BuiltinProfile("ixgbe_82599"), kv);
  h.sw = HostSwitch::kBridge;
  h.attach = HostAttach::kVeth;
  return HostReceive(h, {frame});
}

TEST(KernelHostVeth, BadChecksumsReachTheContainerOnlyBeforeV44) {
  const Bytes good = TcpFrame(FlowSeg(0, 300, 0x18));
  Bytes bad = good;
  bad[60] ^= 0x01;  // a payload byte: the TCP checksum no longer verifies
  for (KernelVersion kv : {KernelVersion{6, 18}, KernelVersion{4, 1}}) {
    EXPECT_EQ(ToContainer(kv, good).delivered.size(), 1u) << kv.ToString();
    const RxOutcome r = ToContainer(kv, bad);
    if (kv.AtLeast(4, 4)) {
      EXPECT_TRUE(r.delivered.empty()) << kv.ToString();
      EXPECT_EQ(r.counters.Get("Tcp:InCsumErrors"), 1u);
    } else {
      ASSERT_EQ(r.delivered.size(), 1u) << kv.ToString();
      // The stack took veth's CHECKSUM_UNNECESSARY (and consumed its level:
      // __skb_decr_checksum_unnecessary) and counted no error.
      EXPECT_EQ(r.counters.Get("Tcp:InCsumErrors"), 0u);
    }
  }
}

}  // namespace
}  // namespace offlab::testing
