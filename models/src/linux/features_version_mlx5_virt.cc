// The feature history of mlx5e (ConnectX-5, ConnectX-6 Dx, BlueField-2),
// virtio_net and tun, from each driver's probe in the stored trees. Where
// two trees bracket a change, the release taken is the later tree's.
#include <string>

#include "features_version_internal.h"

namespace offlab::kernel::fv {

void Mlx5eProbe(const ProbeCtx& c, NicFeatures& f) {
  const KernelVersion v = c.v;
  // mlx5_core's Ethernet side (en_main.c): absent in zhanglin496/linux-4.0.5,
  // present in mlpzaq9998/linux-4.2 7df6e3aebda4 en_main.c:1745.
  if (!v.AtLeast(4, 2)) NoDriver(c, "mlx5_core drives Ethernet from 4.2");
  // The devices' PCI IDs in main.c: ConnectX-5 0x1017 absent in
  // rivsidn/linux-4.4.155 :1379, present in pengdonglin137/linux-4.9
  // b16d8f60788c :1419; ConnectX-6 Dx 0x101d absent in VVvector/linux-5.0.1,
  // present in github-lvbing/linux-5.3.1 676199489bfb :1553; BlueField-2
  // 0xa2d6 absent in 5.3.1, present in MrJu/linux-5.4 1a2943d8a64f :1572.
  const std::string& n = c.nic.name;
  if (n == "connectx5" && !v.AtLeast(4, 9)) NoDriver(c, "mlx5_core drives it from 4.9");
  if (n == "connectx6dx" && !v.AtLeast(5, 3)) NoDriver(c, "mlx5_core drives it from 5.3");
  if (n == "bluefield2" && !v.AtLeast(5, 4)) NoDriver(c, "mlx5_core drives it from 5.4");
  // v6.18.19 en_main.c:5682-5797 (the profile): vlan_features SG, HW_CSUM,
  // GRO, TSO, TSO6, RXCSUM, GSO_PARTIAL become features with UDP_TUNNEL
  // (_CSUM), GRE(_CSUM) and GSO_UDP_L4; hw_enc_features HW_CSUM, TSO, TSO6,
  // GSO_PARTIAL, UDP_TUNNEL(_CSUM), GRE(_CSUM); gso_partial_features
  // UDP_TUNNEL_CSUM (:5735), GRE|GRE_CSUM (:5745), GSO_UDP_L4 (:5758).
  // 4.9 :3536-3590: UDP_TUNNEL(_CSUM) and GSO_PARTIAL already, with
  // gso_partial_features UDP_TUNNEL_CSUM (:3564).
  f.gso_partial_features = netif::kGsoUdpTunnelCsum;
  // GRE: absent in 4.11 (HCLS/linux-4.11 e81cedcca218 :3609-3663), present
  // in zzwd/linux-4.18-rt f7bc4a83cb4a :4556-4560.
  if (v.AtLeast(4, 18))
    f.gso_partial_features |= netif::kGsoGre | netif::kGsoGreCsum;
  else
    DropBoth(f, netif::kGsoGre | netif::kGsoGreCsum);
  // GSO_UDP_L4: absent in 4.18, present in 0x88888888/Linux-4.19
  // ae239377f020 :4661-4663 (features and gso_partial_features).
  if (v.AtLeast(4, 19))
    f.gso_partial_features |= netif::kGsoUdpL4;
  else
    DropBoth(f, netif::kGsoUdpL4);
  // HW_CSUM: 5.0.1 (0fa9cb14d4ed) en_main.c:4673 IP_CSUM, 5.3.1 :4815
  // HW_CSUM; before, IP_CSUM|IPV6_CSUM in vlan and hw_enc features (4.19
  // :4614-4637).
  if (!v.AtLeast(5, 3)) {
    ChecksumByProtocol(f.dev.features);
    ChecksumByProtocol(f.dev.hw_enc_features);
  }
  // LRO is left off: from 4.9 to 5.14 the driver turned it on by default
  // only for striding RQs on a fast PCI link (4.19 :4526
  // slow_pci_heuristic), and the receive model has no hardware LRO.
}

void VirtnetProbe(const ProbeCtx& c, NicFeatures& f) {
  const KernelVersion v = c.v;
  // v6.18.19 virtio_net.c:6815-6873 (the profile): HW_CSUM and SG with
  // VIRTIO_NET_F_CSUM, TSO/TSO6 with HOST_TSO4/6, RXCSUM, GRO_HW with
  // GUEST_TSO4/6; hw_enc_features only with UDP-tunnel GSO (not here).
  const bool guest_tso = f.dev.features & netif::kGroHw;
  // GRO_HW: zcjie1/linux-5.15.100 52bed7a9a5ad :3175; before it the same
  // negotiation turned on LRO: CompressionDuck/linux-5.11 2dbae366306d
  // :3017, VVvector/linux-5.0.1 :3060; a4913994/linux-4.20 681419ebe67f
  // :2930-2955 has neither.
  if (!v.AtLeast(5, 15)) {
    f.dev.features &= ~netif::kGroHw;
    if (guest_tso && v.AtLeast(5, 0)) f.dev.features |= netif::kLro;
  }
  // RXCSUM with GUEST_CSUM: absent in 3.10.99 :1548-1571, present in
  // nadavitay/linux-3.14.1 57f2526e25ee :1678.
  if (!v.AtLeast(3, 14)) f.dev.features &= ~netif::kRxCsum;
  // FRAGLIST beside HW_CSUM|SG: 3.14.1 :1655-1657, yuanguohuo/linux-3.19.8
  // a38bf8b12dbc :1741-1743, zhanglin496/linux-4.0.5 ecb857bb49a0
  // :1751-1753; gone in 4.2.8 :1759-1761. (The stable trees stored,
  // 3.10.99 and 3.18.30, lack it: its removal was backported to them.)
  if (!v.AtLeast(4, 2) && (f.dev.features & netif::kSg)) f.dev.features |= netif::kFraglist;
}

void TunNetInit(const ProbeCtx& c, NicFeatures& f) {
  // Features: tun_net_init's hw_features SG|FRAGLIST|TUN_USER_FEATURES and
  // TUNSETOFFLOAD's mapping of TUN_F_CSUM/TSO4/TSO6 to HW_CSUM/TSO/TSO6 are
  // the same from 3.10.99 (tun.c:170-171, :1698-1700) to v6.18.19
  // (:188-190, :926-930): the profile's features hold for every version.
  // hw_enc_features = hw_features came with UDP-tunnel GSO over tun
  // (v6.18.19 :929; wishday/linux-6.12.y 21ae40e85ea7 :990-994 has none),
  // so before only register_netdevice's bits.
  if (!c.v.AtLeast(6, 18)) f.dev.hw_enc_features = 0;
}

}  // namespace offlab::kernel::fv
