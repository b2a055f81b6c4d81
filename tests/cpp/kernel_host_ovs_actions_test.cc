// A kernel host whose openvswitch.ko flow rewrites the packet: each
// set(...) kind and dec_ttl through the host path (ovs_execute_actions,
// v6.18 net/openvswitch/actions.c), on a TCP flow forwarded NIC to NIC.
// Expected frames are the input rewritten by hand with checksums summed
// again by the oracle (kernel_gro_test_frames.h).
#include <gtest/gtest.h>

#include "kernel_host_test_frames.h"
#include "offlab/linux/host.h"

namespace offlab::testing {
namespace {

using kernel::HostAttach;
using kernel::HostOvsAction;
using kernel::HostReceive;
using kernel::HostSwitch;
using kernel::KernelHost;
using kernel::RxOutcome;
using Kind = HostOvsAction::Kind;

KernelHost Forwarding(std::vector<HostOvsAction> actions) {
  KernelHost h = kernel::MakeKernelHost(BuiltinProfile("ixgbe_82599"));
  h.sw = HostSwitch::kOvs;
  h.attach = HostAttach::kForward;
  h.ovs_actions = std::move(actions);
  return h;
}

TEST(KernelHostOvsActions, EachSetKindAndDecTtl) {
  const Bytes in = TcpFrame(FlowSeg(0, 200, 0x18));
  HostOvsAction eth;
  eth.kind = Kind::kSetEth;
  eth.eth.dst = {2, 0, 0, 0, 0, 0x77};
  eth.eth_mask.dst = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
  HostOvsAction tcp;
  tcp.kind = Kind::kSetTcp;
  tcp.ports.src = 4242;
  tcp.ports_mask.src = 0xffff;
  HostOvsAction ttl;
  ttl.kind = Kind::kDecTtl;
  HostOvsAction ip;
  ip.kind = Kind::kSetIpv4;
  ip.ipv4.src = {10, 0, 0, 55};
  ip.ipv4_mask.src = {255, 255, 255, 255};
  KernelHost h = Forwarding({eth, tcp, ttl, ip});
  const RxOutcome r = HostReceive(h, {in});
  ASSERT_EQ(r.wire.size(), 1u);
  Bytes want = in;
  want[5] = 0x77;
  Put16(want, 34, 4242);
  want[22] = static_cast<uint8_t>(want[22] - 1);
  want[29] = 55;
  FixIpv4Csum(want, 14);
  FixL4Csum(want, 14, 34, 6, 16);
  EXPECT_EQ(r.wire[0], want);
}

TEST(KernelHostOvsActions, Ipv6Set) {
  Seg s = FlowSeg(0, 200, 0x18);
  s.ipv6 = true;
  const Bytes in = TcpFrame(s);
  HostOvsAction ip6;
  ip6.kind = Kind::kSetIpv6;
  std::copy(in.begin() + 38, in.begin() + 54, ip6.ipv6.dst.begin());
  ip6.ipv6.dst[15] = 0x42;
  ip6.ipv6_mask.dst.fill(0xff);
  KernelHost h = Forwarding({ip6});
  const RxOutcome r = HostReceive(h, {in});
  ASSERT_EQ(r.wire.size(), 1u);
  Bytes want = in;
  want[53] = 0x42;
  FixL4Csum(want, 14, 54, 6, 16);
  EXPECT_EQ(r.wire[0], want);
}

}  // namespace
}  // namespace offlab::testing
