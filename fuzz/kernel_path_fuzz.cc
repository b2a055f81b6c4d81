// Feeds arbitrary frames through the Linux kernel model's entry points that
// read packet bytes: a NIC driver's receive (per profile), GRO with a VXLAN
// socket, VXLAN and Geneve decapsulation or the local stack, the OVS kernel datapath's
// set actions, validate_xmit_skb and the device's transmit, and the
// virtio-net header paths (TAP write, AF_PACKET send). The first bytes
// choose the profile, kernel version, VXLAN options, features and header.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "offlab/linux/device_tx.h"
#include "offlab/linux/geneve.h"
#include "offlab/linux/gro.h"
#include "offlab/linux/ovs_actions.h"
#include "offlab/linux/ovs_dp.h"
#include "offlab/linux/rx.h"
#include "offlab/linux/stack_rx.h"
#include "offlab/linux/virtio_net.h"
#include "offlab/linux/vxlan.h"
#include "offlab/linux/xmit.h"
#include "offlab/net/error.h"
#include "offlab/nic/nic_profile.h"

namespace {

using namespace offlab;
using namespace offlab::kernel;

constexpr std::array<const char*, 6> kProfiles = {"ixgbe_82599", "connectx6dx", "e810",
                                                  "x710",        "virtio",      "ibmveth_trunk"};
constexpr std::array<KernelVersion, 4> kKernels = {
    KernelVersion{6, 18, false}, KernelVersion{4, 0, false}, KernelVersion{3, 10, true},
    KernelVersion{5, 10, false}};

const NicProfile& Profile(size_t i) {
  static const std::vector<NicProfile> profiles = [] {
    std::vector<NicProfile> out;
    for (const char* name : kProfiles) out.push_back(BuiltinProfile(name));
    return out;
  }();
  return profiles[i % profiles.size()];
}

void Transmit(const SkBuff& skb, uint64_t features, KernelVersion kv) {
  DeviceFeatures dev{features, features, 65536, 65535, 1500};
  Counters c;
  for (SkBuff& seg : ValidateXmitSkb(skb, dev, kv, &c)) DeviceTransmit(std::move(seg), dev);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 12) return 0;
  const uint8_t sel = data[0], opt = data[1];
  const KernelVersion kv = kKernels[(sel >> 4) % kKernels.size()];
  const uint64_t features = (uint64_t{data[2]} << 8 | data[3]) * 0x9e3779b97f4a7c15ull;
  VnetHdr hdr;
  hdr.flags = data[4] & 3;
  hdr.gso_type = data[5];
  hdr.gso_size = static_cast<uint16_t>(data[6] << 4);
  hdr.csum_start = data[7];
  hdr.csum_offset = data[8] & 0x3f;
  hdr.hdr_len = data[9];
  const Bytes frame(data + 12, data + size);
  try {
    Counters c;
    // Driver receive, then GRO with a VXLAN socket (RCO per the options).
    RxResult rx = DriverReceiveFull(frame, Profile(sel & 0xf), kv, &c);
    GroConfig gc;
    gc.kv = kv;
    gc.head_frag = opt & 1;
    gc.vxlan.push_back(GroVxlanSocket{4789, bool(opt & 2), bool(opt & 4)});
    gc.geneve.push_back(GroGeneveSocket{});
    GroCell cell(gc);
    if (!rx.dropped) {
      cell.Receive(rx.skb, 1);
      cell.Receive(rx.skb, 1);
    }
    VxlanConfig vx;
    vx.vni = 42;
    vx.dstport = 4789;
    vx.remcsum_rx = opt & 2;
    vx.remcsum_nopartial = opt & 4;
    vx.udp6_zero_csum_rx = opt & 8;
    GeneveConfig gn;
    gn.vni = 42;
    gn.udp6_zero_csum_rx = opt & 8;
    for (SkBuff& skb : cell.Flush()) {
      GeneveRcv(skb, gn, kv, &c);
      VxlanRcvResult r = VxlanRcv(skb, vx, kv, &c);
      if (r.delivered) {
        StackRxConfig sc;
        sc.udp_ports = {5201};
        StackRcv(r.skb, sc, kv, &c);
      }
      StackRxConfig sc;
      StackRcv(skb, sc, kv, &c);
      // The OVS kernel datapath rewrites it and sends it on.
      OvsSkb o = OvsVportReceive(std::move(skb));
      OvsKeyIpv4 key, mask;
      key.dst = {10, 0, 0, 9};
      mask.dst = {0xff, 0xff, 0xff, 0xff};
      key.ttl = opt;
      mask.ttl = opt & 0x10 ? 0xff : 0;
      OvsSetIpv4(o, key, mask);
      Transmit(o.skb, features, kv);
    }
    // Guest paths: a TAP write and an AF_PACKET send with the header.
    SkBuff tap;
    VnetHdrTunnel th;
    th.hdr = hdr;
    if (TapWrite(frame, th, TapConfig{}, &tap, &c).empty()) Transmit(tap, features, kv);
    SkBuff pkt;
    if (PacketSnd(frame, hdr, PacketSocketConfig{}, &pkt).empty()) {
      VxlanXmit(pkt, vx, UnderlayRoute{}, kv, &c);
      Transmit(pkt, features, kv);
    }
  } catch (const Error&) {
    // A precondition the model reports as an error is fine; crashes are not.
  }
  return 0;
}
