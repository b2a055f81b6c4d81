// ibmveth transmit: ibmveth_probe's features and ibmveth_start_xmit
// (drivers/net/ethernet/ibm/ibmveth.c). Line numbers: v4.11 from
// HCLS/linux-4.11, v4.19 from 0x88888888/Linux-4.19, v6.18 from
// torvalds/linux 7d0a66e4bb90. The two version boundaries are bracketed by
// those trees (v6.1.0, krr-io/linux-6.1.0, already has the copy into the
// long-term buffer); the releases named are the first trees seen with them.
#include "offlab/linux/device_tx_ibmveth.h"

#include <numeric>
#include <utility>

#include "offlab/linux/xmit.h"
#include "offlab/net/bytes.h"
#include "offlab/net/headers.h"

namespace offlab::kernel {

namespace {

// Active trunks advertise NETIF_F_FRAGLIST and the driver linearizes a
// frag_list itself: absent in v4.11, present in v4.19 (:1041-1046, :1687-1692).
bool TrunkFraglist(KernelVersion kv) { return kv.AtLeast(4, 19); }
// Every skb is copied into a premapped long-term buffer (linear part and
// page frags only): absent in v4.19, present in v6.1.0 and v6.18 (:1288-1311).
bool LongTermBuffer(KernelVersion kv) { return kv.AtLeast(6, 1); }

// The protocol under the checksum: IPPROTO_TCP or not ("veth can't checksum
// offload UDP").
bool L4IsTcp(const SkBuff& skb) {
  const uint16_t l3 = skb.pkt.l3_ofs;
  if (l3 == kNoOffset || size_t{l3} + hdr::kIpv6Len > skb.len()) return false;
  const uint8_t* ip = skb.pkt.data() + l3;
  return ((ip[0] >> 4) == 4 ? ip[hdr::kIpv4ProtoOfs] : ip[hdr::kIpv6NextOfs]) == hdr::kProtoTcp;
}

}  // namespace

DeviceFeatures IbmvethFeatures(const IbmvethConfig& cfg, KernelVersion kv) {
  // v6.18 :1831-1855 (v4.11 :1610-1627): SG; checksums with illan-options;
  // TSO/TSO6 on when the firmware does large send; FRAGLIST on active trunks.
  DeviceFeatures d;
  d.features = netif::kSg;
  if (cfg.illan_options) d.features |= netif::kIpCsum | netif::kIpv6Csum | netif::kRxCsum;
  if (cfg.large_send && !cfg.old_large_send) d.features |= netif::kTso | netif::kTso6;
  if (cfg.active_trunk && TrunkFraglist(kv)) d.features |= netif::kFraglist;
  // register_netdevice adds the software offloads (NETIF_F_SOFT_FEATURES).
  d.features |= netif::kGsoSoftware | netif::kGro;
  return d;
}

IbmvethTx IbmvethStartXmit(SkBuff skb, const IbmvethConfig& cfg, KernelVersion kv,
                           Counters* counters) {
  IbmvethTx r;
  auto drop = [&](const char* why) {
    Count(counters, "ibmveth_tx_dropped");
    r.drop = why;
    r.skb = std::move(skb);
    return std::move(r);
  };
  XmitOptions opt;
  if (!LongTermBuffer(kv)) {
    // v4.19 :1041-1046 an active trunk linearizes a frag_list (GRO); v4.11
    // :1047 and v4.19 :1051 more than 5 frags do not fit the 6 descriptors.
    const bool fraglist = cfg.active_trunk && TrunkFraglist(kv) && skb.has_frag_list();
    if (fraglist || skb.nr_frags > 5) {
      Counters lin;
      SkbLinearize(skb, opt, &lin);
      r.linearized_bytes = lin.Get("xmit_linearize_bytes");
      Count(counters, "ibmveth_tx_linearize");
      Count(counters, "ibmveth_tx_linearize_bytes", r.linearized_bytes);
    }
  }
  // v6.18 :1244-1254 (v4.11 :1053-1063) no UDP checksum offload.
  if (skb.ip_summed == IpSummed::kPartial && !L4IsTcp(skb) && SkbChecksumHelp(skb, counters))
    return drop("tx: failed to checksum packet");
  const bool partial = skb.ip_summed == IpSummed::kPartial;
  if (partial) {
    // v6.18 :1258-1270 NO_CSUM|CSUM_GOOD and the field zeroed: the
    // hypervisor's receiver sees a zero TCP checksum marked good.
    const size_t field = size_t{skb.csum_start} + skb.csum_offset;
    if (field + 2 <= skb.len()) PutBe16(skb.pkt.data() + field, 0);
  }
  // v6.18 :1272-1286 (v4.19 :1135): largesend only for a PARTIAL GSO skb;
  // v4.11 :1131 for any GSO skb. Without firmware largesend (PLSO) an IPv4
  // largesend carries 0xffff in the IP checksum and the MSS in the TCP one.
  if (skb.is_gso() && (partial || !kv.AtLeast(4, 19))) {
    r.largesend = true;
    Count(counters, "ibmveth_tx_large_packets");
    const uint16_t l3 = skb.pkt.l3_ofs, l4 = skb.pkt.l4_ofs;
    if (cfg.fw_large_send) {
      r.mss = skb.gso_size;
    } else if (!(skb.gso_type & gso::kTcpv6) && l3 != kNoOffset && l4 != kNoOffset &&
               size_t{l4} + hdr::kTcpMinLen <= skb.len() && l3 + hdr::kIpv4MinLen <= l4) {
      PutBe16(skb.pkt.data() + l3 + hdr::kIpv4CsumOfs, 0xffff);
      PutBe16(skb.pkt.data() + l4 + hdr::kTcpCsumOfs, skb.gso_size);
    }
  }
  if (LongTermBuffer(kv) && skb.has_frag_list()) {
    // v6.18 :1295-1311 only skb_headlen and the page frags are copied; the
    // length check then fails for a frag_list.
    return drop("tx: incorrect packet len copied into ltb");
  }
  r.sent = true;
  r.skb = std::move(skb);
  return r;
}

}  // namespace offlab::kernel
