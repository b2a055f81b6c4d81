#include "offlab/nic/nic.h"

#include "nic_internal.h"
#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/net/headers.h"
#include "offlab/nic/caps.h"
#include "offlab/ovs/complete.h"
#include "offlab/ovs/faults.h"
#include "offlab/ovs/gso.h"
#include "offlab/ovs/parse.h"
#include "offlab/ovs/tunnel.h"

namespace offlab {

namespace {

uint32_t TnlTsoCap(TunnelType t) {
  switch (t) {
    case TunnelType::kVxlan:
      return cap::kVxlanTnlTso;
    case TunnelType::kGeneve:
      return cap::kGeneveTnlTso;
    case TunnelType::kGre:
      return cap::kGreTnlTso;
    case TunnelType::kNone:
      return 0;
  }
  return 0;
}

// Intel-style outer UDP (DPDK Bugzilla 1406): the hardware adds the UDP
// segment to whatever the checksum field holds, expecting the pseudo-header
// sum there. Since DPDK f876dbef0809 the driver's tx_prepare
// (rte_net_intel_cksum_flags_prepare, reached through rte_eth_tx_prepare)
// seeds the field with the non-complemented outer pseudo-header sum; with TSO
// it omits the length, which the hardware adds per segment. Seeding each frame
// after segmentation with its own length is the same sum. With the
// intel-outer-udp-unseeded fault (DPDK before that commit) the field keeps
// what the datapath left there, e.g. OVS's 0xffff placeholder.
void SeededOuterUdp(Packet& f) {
  size_t len = L4Length(f, f.l3_ofs, f.l4_ofs);
  if (len < hdr::kUdpLen) return;
  const uint64_t pseudo = PseudoHeaderSum(f, f.l3_ofs, hdr::kProtoUdp, static_cast<uint32_t>(len));
  uint8_t* udp = f.Linear(f.l4_ofs + hdr::kUdpLen) + f.l4_ofs;
  if (!Faults::On(Fault::kIntelOuterUdpUnseeded)) {
    PutBe16(udp + hdr::kUdpCsumOfs, csum::Fold(pseudo));
  }
  uint16_t c = csum::Finish(PartialSum(f, f.l4_ofs, len));
  PutBe16(udp + hdr::kUdpCsumOfs, c ? c : 0xffff);
}

}  // namespace

NicTx NicTx::FromProfile(const NicProfile& p) {
  NicTx n;
  n.caps = p.tx_caps;
  n.outer_udp_needs_pseudo_seed = p.outer_udp_needs_pseudo_seed;
  n.outer_udp_left_as_is = p.outer_udp_left_as_is;
  n.tso_ipv4_only = p.tso_ipv4_only;
  return n;
}

namespace {

// The hardware's checksum work on one frame on its way out.
void CompleteFrame(Packet& f, const NicTx& nic, bool hw_tso, std::vector<std::string>* violations) {
  auto violation = [&](const std::string& what) {
    if (violations) violations->push_back(what);
  };
  // Whether the hardware performs a requested capability.
  auto performs = [&](uint32_t c, const char* what) {
    if (!(nic.caps & c)) {
      violation(std::string("requested ") + what + " without the capability");
      return false;
    }
    return !(nic.disabled & c);
  };
  Offloads& o = f.offloads;
  if (!o.tunnelled()) {
    if (o.ip() == CsumStatus::kPartial && IsIpv4At(f, f.l3_ofs) &&
        (hw_tso || performs(cap::kIpv4Cksum, "ipv4_cksum"))) {
      CompleteIpCsum(f, Level::kOuter);
    }
    if (o.l4() == CsumStatus::kPartial && o.l4_proto() != L4Proto::kNone &&
        (hw_tso || performs(CapForProto(o.l4_proto()), ToString(o.l4_proto())))) {
      CompleteL4Csum(f, Level::kOuter, o.l4_proto());
    }
    return;
  }
  if (o.ip(Level::kInner) == CsumStatus::kPartial && IsIpv4At(f, f.inner_l3_ofs) &&
      (hw_tso || performs(cap::kIpv4Cksum, "ipv4_cksum (inner)"))) {
    CompleteIpCsum(f, Level::kInner);
  }
  const L4Proto ip4 = o.l4_proto(Level::kInner);
  if (o.l4(Level::kInner) == CsumStatus::kPartial && ip4 != L4Proto::kNone &&
      (hw_tso || performs(CapForProto(ip4), "inner L4 checksum"))) {
    CompleteL4Csum(f, Level::kInner, ip4);
  }
  if (o.ip() == CsumStatus::kPartial && IsIpv4At(f, f.l3_ofs) &&
      (hw_tso || performs(cap::kOuterIpCksum, "outer_ip_cksum"))) {
    CompleteIpCsum(f, Level::kOuter);
  }
  if (o.l4() == CsumStatus::kPartial && o.tunnel() != TunnelType::kGre &&
      performs(cap::kOuterUdpCksum, "outer_udp_cksum") && !nic.outer_udp_left_as_is) {
    if (nic.outer_udp_needs_pseudo_seed) {
      SeededOuterUdp(f);
      o.set_l4(CsumStatus::kGood);
    } else {
      CompleteL4Csum(f, Level::kOuter, L4Proto::kUdp);
    }
  }
}

}  // namespace

bool NicSendsWhole(const Packet& p, const NicTx& nic) { return !(p.tso_segsz && nic.segments_tso); }

void NicTransmitWhole(Packet& p, const NicTx& nic, std::vector<std::string>* violations) {
  CompleteFrame(p, nic, false, violations);
}

PacketBatch NicTransmit(Packet in, const NicTx& nic, std::vector<std::string>* violations) {
  PacketBatch frames;
  bool hw_tso = false;
  if (in.tso_segsz && nic.segments_tso) {
    uint32_t need = cap::kTcpTso | TnlTsoCap(in.offloads.tunnel());
    if ((nic.caps & need) != need) {
      if (violations) {
        violations->push_back("requested TSO (" + CapsToString(need) + ") without the capability");
      }
      frames.push_back(std::move(in));
    } else if (nic.tso_ipv4_only &&
               !IsIpv4At(in, in.offloads.tunnelled() ? in.inner_l3_ofs : in.l3_ofs)) {
      frames.push_back(std::move(in));  // checksummed whole as for TSO, not segmented
      hw_tso = true;
    } else {
      frames = Gso(in);
      hw_tso = true;
    }
  } else {
    frames.push_back(std::move(in));
  }
  for (Packet& f : frames) CompleteFrame(f, nic, hw_tso, violations);
  return frames;
}

Packet NicReceive(Bytes frame, const NicProfile& profile, RxStatus* status) {
  return NicReceive(Packet::Adopt(std::move(frame)), profile, status);
}

Packet NicReceive(Packet p, const NicProfile& profile, RxStatus* status) {
  Parse(p);
  RxStatus st;
  st.tunnel = DetectTunnel(p);
  const RxValidation& rx = profile.rx_for(st.tunnel);

  auto ip_status = [&](uint16_t l3) {
    if (!IsIpv4At(p, l3)) return CsumStatus::kUnknown;
    size_t ihl = (p.head()[l3] & 0x0f) * 4u;
    const uint8_t* ip = p.Linear(l3 + ihl) + l3;
    return csum::Compute(ip, ihl) == 0 ? CsumStatus::kGood : CsumStatus::kBad;
  };
  auto l4_status = [&](uint16_t l3, uint16_t l4) {
    int proto = UpperProtocol(p, l3, l4);
    size_t len = L4Length(p, l3, l4);
    if (proto == hdr::kProtoTcp || proto == hdr::kProtoUdp) {
      if (proto == hdr::kProtoUdp && len >= hdr::kUdpLen &&
          GetBe16(p.Linear(l4 + hdr::kUdpLen) + l4 + hdr::kUdpCsumOfs) == 0) {
        // "No checksum" is not an error, except to DPDK's TAP PMD, which
        // reports RX_L4_CKSUM_NONE for it over IPv4 and checks it over IPv6
        // (drivers/net/tap/rte_eth_tap.c:384-403 at v22.11.11).
        if (!profile.rx_zero_udp_csum_literal) return CsumStatus::kGood;
        if (IsIpv4At(p, l3)) return CsumStatus::kPartial;
      }
      if (len < (proto == hdr::kProtoTcp ? hdr::kTcpMinLen : hdr::kUdpLen)) {
        return CsumStatus::kUnknown;
      }
      uint64_t ps = PseudoHeaderSum(p, l3, static_cast<uint8_t>(proto), static_cast<uint32_t>(len));
      // A shared payload is summed where it lies (its slices' sums reused).
      return csum::Fold(PartialSum(p, l4, len, ps)) == 0xffff ? CsumStatus::kGood
                                                              : CsumStatus::kBad;
    }
    if (proto == hdr::kProtoSctp && len >= hdr::kSctpLen) {
      const uint8_t* t = p.data() + l4;
      Bytes copy(t, t + len);
      uint32_t field = GetBe32(copy.data() + hdr::kSctpCsumOfs);
      PutBe32(copy.data() + hdr::kSctpCsumOfs, 0);
      return __builtin_bswap32(csum::Crc32c(copy.data(), len)) == field ? CsumStatus::kGood
                                                                        : CsumStatus::kBad;
    }
    return CsumStatus::kUnknown;
  };

  if (rx.outer_ip) st.ip = ip_status(p.l3_ofs);
  if (rx.outer_l4 && p.l4_ofs != kNoOffset) st.l4 = l4_status(p.l3_ofs, p.l4_ofs);
  if (st.tunnel != TunnelType::kNone) {
    uint16_t inner = TunnelInnerOffset(p, st.tunnel);  // p is as DetectTunnel saw it
    if (inner != kNoOffset && ParseInner(p, inner)) {
      if (rx.inner_ip) st.inner_ip = ip_status(p.inner_l3_ofs);
      if (rx.inner_l4 && p.inner_l4_ofs != kNoOffset) {
        st.inner_l4 = l4_status(p.inner_l3_ofs, p.inner_l4_ofs);
      }
    }
  }
  // The host gets the frame unparsed, with only the statuses the NIC reports.
  p.ResetOffsets();
  p.offloads = Offloads();
  p.md = {};
  p.tso_segsz = 0;
  p.offloads.set_ip(st.ip);
  p.offloads.set_l4(st.l4);
  if (status) *status = st;
  return p;
}

}  // namespace offlab
