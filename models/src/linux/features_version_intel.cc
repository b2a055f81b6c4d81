// The Intel drivers' feature history (ixgbe for the 82599, i40e for the
// X710, ice for the E810), from each driver's probe in the stored trees.
// Where two trees bracket a change, the release taken is the later tree's
// unless a reason to date it earlier is given.
#include "features_version_internal.h"

namespace offlab::kernel::fv {

namespace {

// IXGBE_GSO_PARTIAL_FEATURES and I40E_GSO_PARTIAL_FEATURES less GSO_IPXIP4/6,
// which DeviceFeatures has no bits for.
constexpr uint64_t kTunnelGso =
    netif::kGsoGre | netif::kGsoGreCsum | netif::kGsoUdpTunnel | netif::kGsoUdpTunnelCsum;

}  // namespace

void IxgbeProbe(const ProbeCtx& c, NicFeatures& f) {
  const KernelVersion v = c.v;
  // v6.18.19 ixgbe_main.c:11736-11780 (the profile): SG, TSO, TSO6, RXCSUM,
  // HW_CSUM; GSO_PARTIAL with IXGBE_GSO_PARTIAL_FEATURES, which are also
  // dev->gso_partial_features (:11743-11752); SCTP_CRC and GSO_UDP_L4 from
  // the 82599 on (:11754-11755); hw_enc_features = vlan_features =
  // features | TSO_MANGLEID (:11779-11780).
  //
  // GSO_UDP_L4: MrJu/linux-5.4 1a2943d8a64f :10908-10909 has SCTP_CRC only,
  // shmily1012/linux-5.6.4 93830a5cf2aa :10945 both.
  if (!v.AtLeast(5, 6)) DropBoth(f, netif::kGsoUdpL4);
  if (v.AtLeast(4, 7)) {
    // The GSO_PARTIAL block and hw_enc_features = vlan_features: present in
    // pengdonglin137/linux-4.9 b16d8f60788c :9571-9608, absent in
    // rivsidn/linux-4.4.155 a1961d7580fc :8770-8805; dated 4.7, the release
    // that brought partial GSO (802ab55adc39) with Intel drivers as its
    // users. Tunnel TSO is never the 82599's own: only GSO_PARTIAL, where
    // the stack fixes the outer headers in software.
    f.gso_partial_features = kTunnelGso;
    return;
  }
  f.gso_partial_features = 0;
  f.dev.features &= ~(netif::kGsoPartial | kTunnelGso);
  if (v.AtLeast(4, 6)) {
    // HW_CSUM in features and hw_enc_features, before GSO_PARTIAL: the
    // state of RHEL 7.3's backport (Shun-Hao/linux-3.10.0-514.el7
    // 3b214f030a87 ixgbe_main.c:9040-9068, ixgbe 4.4.0-k-rh7.3); upstream
    // between 4.4.155 (IP/IPV6_CSUM) and 4.9, dated 4.6.
    f.dev.hw_enc_features = netif::kHwCsum;
  } else if (v.AtLeast(4, 4)) {
    // 4.4.155 :8770-8805: IP_CSUM|IPV6_CSUM in features, and
    // hw_enc_features SG|IP_CSUM|IPV6_CSUM for every MAC (:8804-8805;
    // mlpzaq9998/linux-4.2 7df6e3aebda4 :8588-8630 has none for the 82599).
    f.dev.hw_enc_features = netif::kSg | netif::kIpCsum | netif::kIpv6Csum;
  } else {
    // 3.10.99 (harviswang/linux-3.10.99 4c64a6774469) :7455-7485, 3.18.30
    // (jockyw2001/linux-3.18 246d979c2299, ixgbe 3.19.1-k) :8154-8184,
    // 4.0.5 (zhanglin496/linux-4.0.5 ecb857bb49a0) :8404-8446: SG,
    // IP_CSUM, IPV6_CSUM, TSO, TSO6, RXCSUM, SCTP_CSUM on the 82599, and no
    // hw_enc_features for it (4.0's RXCSUM is the X550's): only
    // register_netdevice's SG, so a tunnelled skb loses checksum offload
    // and its inner checksum is computed in software.
    f.dev.hw_enc_features = 0;
  }
  if (!v.AtLeast(4, 6)) ChecksumByProtocol(f.dev.features);
}

void I40eProbe(const ProbeCtx& c, NicFeatures& f) {
  const KernelVersion v = c.v;
  // i40e's first release is 3.12; 3.10.99 has no i40e, 3.18.30 has.
  if (!v.AtLeast(3, 12)) NoDriver(c, "i40e drives it from 3.12");
  // v6.18.19 i40e_main.c:13656-13718 (the profile): hw_enc_features SG,
  // HW_CSUM, the soft features, TSO, TSO_ECN, TSO6, GRE(_CSUM),
  // GSO_PARTIAL, UDP_TUNNEL(_CSUM), GSO_UDP_L4, SCTP_CRC, RXCSUM become
  // features too, hw_enc_features gets TSO_MANGLEID; gso_partial_features
  // = I40E_GSO_PARTIAL_FEATURES (:13695, an assignment overriding the
  // earlier UDP_TUNNEL_CSUM/GRE_CSUM). krr-io/linux-6.1.0 2a410d07ec5e
  // :13665-13727 has this; zcjie1/linux-5.15.100 52bed7a9a5ad :13561-13607
  // still IP_CSUM and no I40E_GSO_PARTIAL_FEATURES.
  if (v.AtLeast(6, 1)) {
    f.gso_partial_features = kTunnelGso;
    return;
  }
  if (v.AtLeast(4, 7)) {
    // 4.9 b16d8f60788c :9124-9161 to 5.15.100: the same set with
    // IP_CSUM|IPV6_CSUM; gso_partial_features UDP_TUNNEL_CSUM (the X710
    // lacks I40E_HW_OUTER_UDP_CSUM_CAPABLE, an X722 capability: 6.1.0
    // :12732-12743, :13685-13686) and GRE_CSUM. A block built on
    // GSO_PARTIAL, dated 4.7 (4.4.155 :8692-8718 is the older form).
    // GSO_UDP_L4: absent in 5.4 :12899-12922, present in 5.6.4 :12905.
    ChecksumByProtocol(f.dev.features);
    ChecksumByProtocol(f.dev.hw_enc_features);
    if (!v.AtLeast(5, 6)) DropBoth(f, netif::kGsoUdpL4);
    f.gso_partial_features = netif::kGsoUdpTunnelCsum | netif::kGsoGreCsum;
    return;
  }
  // 3.18.30 :7517-7541, 4.0.5 :7717-7741: features SG, IP_CSUM, SCTP_CSUM,
  // UDP_TUNNEL, IPV6_CSUM, TSO, TSO_ECN, TSO6, RXCSUM; hw_enc_features
  // IP_CSUM, UDP_TUNNEL, TSO. GSO_GRE joins both in 4.4.155 :8692-8713
  // (4.2.8 :8167-8191 lacks it).
  const uint64_t gre = v.AtLeast(4, 4) ? netif::kGsoGre : 0;
  f.dev.features = netif::kSg | netif::kIpCsum | netif::kIpv6Csum | netif::kSctpCrc |
                   netif::kGsoUdpTunnel | gre | netif::kTso | netif::kTsoEcn | netif::kTso6 |
                   netif::kRxCsum | (f.dev.features & (netif::kGsoSoftware | netif::kGro));
  f.dev.hw_enc_features = netif::kIpCsum | netif::kGsoUdpTunnel | gre | netif::kTso;
  f.gso_partial_features = 0;
}

void IceProbe(const ProbeCtx& c, NicFeatures& f) {
  const KernelVersion v = c.v;
  // ice's first release is 4.17 (HCLS/linux-4.11 has no ice; 0x88888888/
  // Linux-4.19 ae239377f020 ice_devids.h:9-17 lists the E810-C IDs).
  if (!v.AtLeast(4, 17)) NoDriver(c, "ice drives it from 4.17");
  // v6.18.19 ice_main.c:3570-3621 (the profile): dflt (SG), csumo
  // (RXCSUM, IP_CSUM, SCTP_CRC, IPV6_CSUM; HW_CSUM only with ICE_F_GCS) and
  // tso features (TSO, TSO_ECN, TSO6, GRE(_CSUM), UDP_TUNNEL(_CSUM),
  // GSO_PARTIAL, GSO_UDP_L4) are features and hw_enc_features;
  // gso_partial_features UDP_TUNNEL_CSUM|GRE_CSUM (:3600-3601).
  if (v.AtLeast(5, 10)) {
    // wqhot/linux-5.10 844695f6e000 :2907-2948 has the tunnel set;
    // a5221985/linux-5.7.14 5d0b54d93391 :2348-2349 only TSO|GSO_UDP_L4.
    f.gso_partial_features = netif::kGsoUdpTunnelCsum | netif::kGsoGreCsum;
  } else {
    DropBoth(f, netif::kTsoEcn | netif::kTso6 | kTunnelGso | netif::kGsoPartial);
    f.gso_partial_features = 0;
  }
  // GSO_UDP_L4: 5.4 :2003 tso_features = TSO only, 5.6.4 :2324-2325 with it.
  if (!v.AtLeast(5, 6)) DropBoth(f, netif::kGsoUdpL4);
  // SCTP_CRC: VVvector/linux-5.0.1 0fa9cb14d4ed has none, github-lvbing/
  // linux-5.3.1 676199489bfb ice_main.c:1814 has it; 4.19 :2320-2344 is
  // SG, RXCSUM, IP_CSUM, IPV6_CSUM, TSO.
  if (!v.AtLeast(5, 3)) DropBoth(f, netif::kSctpCrc);
}

}  // namespace offlab::kernel::fv
