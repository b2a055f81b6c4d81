// SPDX-License-Identifier: Apache-2.0
#include "kernel-host-config.h"

#include "ns3/guest-pairs.h"
#include "offlab/linux/features.h"
#include "offlab/net/addr.h"
#include "offlab/nic/nic_profile.h"

namespace ns3 {

// `ethtool -K DEV NAME off` for the NIC: a feature's full name, or one of
// ethtool's short names for a group (tx, sg, tso, gro).
void FeatureOff(const std::string& name, offlab::kernel::KernelHost& h) {
  namespace netif = offlab::kernel::netif;
  if (h.ibmveth && (name == "tx" || name == "tx-checksumming" || name == "tso" ||
                    name == "tcp-segmentation-offload")) {
    // ibmveth_set_features turns the firmware's checksum offload or large
    // send off (torvalds/linux drivers/net/ethernet/ibm/ibmveth.c
    // ibmveth_set_csum_offload, ibmveth_set_tso), and the device's features
    // follow; without checksum offload there is no large send either.
    if (name == "tso" || name == "tcp-segmentation-offload") {
      h.ibmveth->large_send = false;
    } else {
      h.ibmveth->illan_options = false;
      h.ibmveth->large_send = false;
      h.rx_meta.ibmveth_csum_good = false;
    }
    h.nic_dev = offlab::kernel::IbmvethFeatures(*h.ibmveth, h.kv);
    return;
  }
  if (name == "gro" || name == "rx-gro" || name == "generic-receive-offload") {
    h.gro = false;
  } else if (name == "tx" || name == "tx-checksumming") {
    h.nic_dev.features &= ~(netif::kCsumMask);
    // An ibmveth partition without checksum offload sends full checksums,
    // so its peer's descriptors no longer say IBMVETH_RXQ_CSUM_GOOD.
    h.rx_meta.ibmveth_csum_good = false;
  } else if (name == "sg" || name == "scatter-gather") {
    h.nic_dev.features &= ~netif::kSg;
  } else if (name == "tso" || name == "tcp-segmentation-offload") {
    h.nic_dev.features &= ~(netif::kTso | offlab::kernel::FeatureFromName("tx-tcp6-segmentation"));
  } else {
    h.nic_dev.features &= ~offlab::kernel::FeatureFromName(name);
  }
}

uint32_t DefaultRxRing(const std::string& driver) {
  // torvalds/linux v6.18 drivers/net/ethernet/: intel/ixgbe/ixgbe.h
  // IXGBE_DEFAULT_RXD 512; intel/i40e/i40e.h I40E_DEFAULT_NUM_DESCRIPTORS 512;
  // intel/ice/ice.h ICE_DFLT_NUM_RX_DESC 2048; mellanox/mlx5/core/en.h
  // MLX5E_PARAMS_DEFAULT_LOG_RQ_SIZE 10 (1024). virtio_net and tun take
  // what the queue offers (256 is QEMU's default virtqueue size).
  if (driver == "ixgbe" || driver == "i40e") return 512;
  if (driver == "ice") return 2048;
  if (driver == "mlx5_core") return 1024;
  if (driver == "virtio_net" || driver == "tun") return 256;
  return 512;
}

uint32_t RxRing(const KernelHostOptions& k, const offlab::NicProfile& nic, bool tcp) {
  if (k.ringSize) return k.ringSize;
  if (tcp) return 1u << 20;
  return DefaultRxRing(nic.kernel ? nic.kernel->driver : "");
}

double DefaultIrqDelayUs(const std::string& driver) {
  // Under bulk load adaptive moderation lowers the interrupt rate: ixgbe's
  // bulk class is 8000 interrupts/s (IXGBE_8K_ITR, ixgbe_update_itr in
  // torvalds/linux v6.18 drivers/net/ethernet/intel/ixgbe/ixgbe_main.c);
  // i40e and ice start at 50 us (I40E_ITR_20K, ICE_DFLT_INT_RATE) and adapt
  // around it; mlx5's net_dim moves between profiles of up to 256 us, taken
  // as 50 us here. A paravirtual queue (virtio_net, tun, ibmveth) interrupts
  // per kick, without moderation.
  if (driver == "ixgbe") return 125;
  if (driver == "virtio_net" || driver == "tun" || driver == "ibmveth") return 0;
  return 50;
}

namespace {

std::array<uint8_t, 16> Addr(const std::string& text) {
  bool v6 = false;
  return offlab::ParseIp(text, &v6);
}

}  // namespace

offlab::kernel::KernelHost KernelHostConfig(const TunnelScenario& s,
                                            offlab::kernel::KernelVersion kv, uint32_t h,
                                            Ptr<OffloadNetDevice> self,
                                            Ptr<OffloadNetDevice> peer) {
  namespace kn = offlab::kernel;
  const KernelHostOptions& k = s.kernel;
  kn::KernelHost c = kn::MakeKernelHost(offlab::BuiltinProfile(s.nic), kv);
  c.gro = s.gro;
  for (const std::string& f : k.ethtoolOff) {
    FeatureOff(f, c);
  }
  c.mtu = s.mtu;
  c.nic_dev.mtu = s.mtu;
  if (self && peer) {
    Mac48Address::ConvertFrom(self->GetAddress()).CopyTo(c.route.src_mac.data());
    Mac48Address::ConvertFrom(peer->GetAddress()).CopyTo(c.route.dst_mac.data());
  }
  c.sw = k.datapath == "ovs"      ? kn::HostSwitch::kOvs
         : k.datapath == "bridge" ? kn::HostSwitch::kBridge
                                  : kn::HostSwitch::kRouted;
  c.attach = k.attach == "tap"       ? kn::HostAttach::kTap
             : k.attach == "forward" ? kn::HostAttach::kForward
                                     : kn::HostAttach::kSocket;
  c.eswitch_offload = k.eswitchOffload;
  c.tap_offloads = s.guestCsum ? kn::tun_f::kCsum : 0;
  if (s.guestCsum && s.guestTso) {
    c.tap_offloads |= kn::tun_f::kTso4 | kn::tun_f::kTso6 | kn::tun_f::kTsoEcn;
  }
  c.mss = GuestMss(s);
  if (s.tunnel == "vxlan") {
    const bool v6 = s.ipv6Underlay;
    const std::string a = v6 ? "fd00::1" : "172.16.0.1";
    const std::string b = v6 ? "fd00::2" : "172.16.0.2";
    kn::VxlanConfig v;
    v.vni = 42;
    v.ipv6 = v6;
    v.local = Addr(h == 0 ? a : b);
    v.remote = Addr(h == 0 ? b : a);
    v.udp_csum = s.outerCsum;
    v.udp6_zero_csum_tx = v6 && !s.outerCsum;
    v.udp6_zero_csum_rx = v6 && !s.outerCsum;
    v.remcsum_tx = k.remcsumTx;
    v.remcsum_rx = k.remcsumRx;
    c.vxlan = v;
    if (c.sw == kn::HostSwitch::kOvs) {
      // set(tunnel(dst=..., tun_id=42, csum)) then the vxlan vport.
      kn::OvsTunnelKey t;
      t.ipv6 = v6;
      t.src = v.local;
      t.dst = v.remote;
      t.tun_id = 42;
      t.csum = s.outerCsum;
      c.ovs_tunnel = t;
    }
  }
  return c;
}

}  // namespace ns3
