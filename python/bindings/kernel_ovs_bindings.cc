// offlab._core.kernel: the OVS kernel datapath (openvswitch.ko) and
// nf_conntrack's checksum rules (models/include/offlab/linux/{ovs_dp,
// ovs_actions,ovs_actions_vlan,ovs_dp_ct,nf_conntrack,nf_conntrack_nat}.h).
// Python API (all in the `kernel` submodule; addresses as text, IPv6 when
// they contain ':'; MACs "aa:bb:cc:dd:ee:ff"; kv = KernelVersion):
//   OvsSkb: skb (SkBuff, by reference), vlan_present, vlan_tpid, vlan_tci,
//     ct_state (OVS_CS_F_* bits), ct_zone, nfct_attached, recirc_id, cutlen,
//     key_ip_proto, key_valid; describe()
//   ovs_vport_receive(skb: SkBuff, core_vlan_untag=True) -> OvsSkb
//     skb as the driver/stack hands it up (csum_from = 14 after
//     eth_type_trans); the result has csum_from 0 (data at the MAC header).
//   ovs_set_eth(s, src=None, dst=None) -> int
//   ovs_set_ipv4(s, src=None, dst=None, tos=None, tos_mask=0xff, ttl=None) -> int
//   ovs_set_ipv6(s, src=None, dst=None, tclass=None, label=None, hlimit=None,
//     kv=LAB_KERNEL) -> int
//   ovs_set_tcp / ovs_set_udp / ovs_set_sctp(s, src=None, dst=None) -> int
//   ovs_dec_ttl(s) -> int (-113 = EHOSTUNREACH)
//   ovs_push_vlan(s, tpid=0x8100, tci=0, kv=LAB_KERNEL) -> int; ovs_pop_vlan(s) -> int
//   ovs_set_tunnel(s, dst, src="0.0.0.0", tun_id=0, tos=0, ttl=64, tp_dst=0,
//     csum=False, df=False)
//   ovs_recirc(s, recirc_id)
//   ovs_output(s, vport="netdev"|"internal"|"vxlan", mtu=None, vxlan_dst_port=4789)
//     -> dict(handed_to_dev, drop_reason, tx_error, skb: OvsSkb,
//             vxlan: None | dict(ipv6, src, dst, vni, tos, ttl, df, dst_port, udp_csum))
//   ovs_ct(s, zone=0, commit=False, nat=None, existing="none", checksum=True,
//     tcp_loose=True, kv=LAB_KERNEL) -> dict(err, looked_up, nat_applied,
//     ct: dict as nf_conntrack_in returns)
//     nat = dict(manip="src"|"dst", addr=str, port=int|None)
//   nf_conntrack_in(skb, l3_ofs, hook="pre_routing", checksum=True,
//     tcp_loose=True, existing="none") -> dict(tracked, ctinfo, reason,
//     checksum_checked, checksum_ok, rx_csum_fault, stat_invalid,
//     stat_error, ovs_ct_state); the skb's checksum state is updated.
//     hook: pre_routing|local_in|forward|local_out|post_routing;
//     existing: none|established|reply|related.
//   predict_conntrack(frame: bytes, ip_summed=IpSummed.NONE, hook="pre_routing",
//     checksum=True, tcp_loose=True, existing="none") -> same dict, plus
//     ip_summed_after: the verdict for an Ethernet frame reaching the hook
//     with skb->data at its network header (COMPLETE: the driver's sum of
//     the bytes from there), e.g. a bad TCP checksum with
//     net.netfilter.nf_conntrack_checksum=1 -> tracked False, "bad checksum",
//     stat_invalid 1 (the "invalid" column of /proc/net/stat/nf_conntrack).
//   nf_nat_manip_pkt(skb, l3_ofs, manip="src", addr=str, port=None, kv=LAB_KERNEL) -> bool
//   pskb_trim_rcsum(skb, len, kv=LAB_KERNEL) -> int
#include <arpa/inet.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <cstdio>
#include <optional>
#include <string>

#include "offlab/linux/nf_conntrack.h"
#include "offlab/linux/nf_conntrack_nat.h"
#include "offlab/linux/ovs_actions.h"
#include "offlab/linux/ovs_actions_vlan.h"
#include "offlab/linux/ovs_dp.h"
#include "offlab/linux/ovs_dp_ct.h"
#include "offlab/net/error.h"

namespace py = pybind11;

namespace offlab {

namespace {

using namespace kernel;  // NOLINT: local to this file's helpers

// Text address -> 16 bytes (IPv4 in the first 4); sets *v6.
std::array<uint8_t, 16> OvsAddr(const std::string& text, bool* v6) {
  std::array<uint8_t, 16> a{};
  *v6 = text.find(':') != std::string::npos;
  if (inet_pton(*v6 ? AF_INET6 : AF_INET, text.c_str(), a.data()) != 1)
    throw Error("bad address: " + text);
  return a;
}

std::array<uint8_t, 6> OvsMac(const std::string& text) {
  std::array<unsigned, 6> v{};
  if (std::sscanf(text.c_str(), "%x:%x:%x:%x:%x:%x", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) != 6)
    throw Error("bad MAC: " + text);
  std::array<uint8_t, 6> m{};
  for (size_t i = 0; i < 6; i++) m[i] = static_cast<uint8_t>(v[i]);
  return m;
}

std::string OvsAddrText(const std::array<uint8_t, 16>& a, bool v6) {
  char buf[INET6_ADDRSTRLEN];
  inet_ntop(v6 ? AF_INET6 : AF_INET, a.data(), buf, sizeof buf);
  return buf;
}

NfHook OvsHook(const std::string& h) {
  if (h == "pre_routing") return NfHook::kPreRouting;
  if (h == "local_in") return NfHook::kLocalIn;
  if (h == "forward") return NfHook::kForward;
  if (h == "local_out") return NfHook::kLocalOut;
  if (h == "post_routing") return NfHook::kPostRouting;
  throw Error("unknown hook: " + h);
}

NfCtExisting OvsExisting(const std::string& e) {
  if (e == "none") return NfCtExisting::kNone;
  if (e == "established") return NfCtExisting::kEstablished;
  if (e == "reply") return NfCtExisting::kReply;
  if (e == "related") return NfCtExisting::kRelated;
  throw Error("unknown existing connection kind: " + e);
}

const char* CtInfoName(NfCtInfo i) {
  switch (i) {
    case NfCtInfo::kNew:
      return "new";
    case NfCtInfo::kEstablished:
      return "established";
    case NfCtInfo::kEstablishedReply:
      return "established_reply";
    case NfCtInfo::kRelated:
      return "related";
    case NfCtInfo::kNone:
      break;
  }
  return "none";
}

py::dict CtDict(const NfCtResult& r) {
  py::dict d;
  d["tracked"] = r.tracked;
  d["ctinfo"] = CtInfoName(r.ctinfo);
  d["reason"] = r.reason;
  d["checksum_checked"] = r.checksum_checked;
  d["checksum_ok"] = r.checksum_ok;
  d["rx_csum_fault"] = r.rx_csum_fault;
  d["stat_invalid"] = r.stat_invalid;
  d["stat_error"] = r.stat_error;
  d["ovs_ct_state"] = r.OvsCtState();
  return d;
}

NfConntrackConfig OvsCfg(bool checksum, bool loose) {
  NfConntrackConfig c;
  c.checksum = checksum;
  c.tcp_loose = loose;
  return c;
}

NatTarget OvsNat(const std::string& manip, const std::string& addr, std::optional<int> port) {
  NatTarget t;
  if (manip != "src" && manip != "dst") throw Error("manip must be src or dst");
  t.manip = manip == "src" ? NatManip::kSrc : NatManip::kDst;
  t.addr = OvsAddr(addr, &t.ipv6);
  if (port) {
    if (*port < 0 || *port > 0xffff) throw Error("port out of range");
    t.port = static_cast<uint16_t>(*port);
  }
  return t;
}

// The network header of an Ethernet frame behind up to two VLAN tags.
size_t OvsL3Of(const Bytes& f) {
  size_t ofs = 12;
  for (int i = 0; i < 2 && ofs + 4 <= f.size(); i++) {
    const uint16_t t = static_cast<uint16_t>((f[ofs] << 8) | f[ofs + 1]);
    if (t != 0x8100 && t != 0x88a8) break;
    ofs += 4;
  }
  if (ofs + 2 > f.size()) throw Error("frame too short for an Ethernet header");
  return ofs + 2;
}

void BindOvsSetters(py::module_& k) {
  using Opt = std::optional<std::string>;
  k.def(
      "ovs_set_eth",
      [](OvsSkb& s, Opt src, Opt dst) {
        OvsKeyEthernet key, mask;
        if (src) key.src = OvsMac(*src), mask.src.fill(0xff);
        if (dst) key.dst = OvsMac(*dst), mask.dst.fill(0xff);
        return OvsSetEthAddr(s, key, mask);
      },
      py::arg("s"), py::arg("src") = py::none(), py::arg("dst") = py::none());
  k.def(
      "ovs_set_ipv4",
      [](OvsSkb& s, Opt src, Opt dst, std::optional<int> tos, int tos_mask,
         std::optional<int> ttl) {
        OvsKeyIpv4 key, mask;
        bool v6 = false;
        if (src) std::copy_n(OvsAddr(*src, &v6).begin(), 4, key.src.begin()), mask.src.fill(0xff);
        if (dst) std::copy_n(OvsAddr(*dst, &v6).begin(), 4, key.dst.begin()), mask.dst.fill(0xff);
        if (v6) throw Error("ovs_set_ipv4 takes IPv4 addresses");
        if (tos) mask.tos = static_cast<uint8_t>(tos_mask), key.tos = static_cast<uint8_t>(*tos);
        if (ttl) mask.ttl = 0xff, key.ttl = static_cast<uint8_t>(*ttl);
        return OvsSetIpv4(s, key, mask);
      },
      py::arg("s"), py::arg("src") = py::none(), py::arg("dst") = py::none(),
      py::arg("tos") = py::none(), py::arg("tos_mask") = 0xff, py::arg("ttl") = py::none());
  k.def(
      "ovs_set_ipv6",
      [](OvsSkb& s, Opt src, Opt dst, std::optional<int> tclass, std::optional<int> label,
         std::optional<int> hlimit, const KernelVersion& kv) {
        OvsKeyIpv6 key, mask;
        bool v6 = true;
        if (src) key.src = OvsAddr(*src, &v6), mask.src.fill(0xff);
        if (dst) key.dst = OvsAddr(*dst, &v6), mask.dst.fill(0xff);
        if (!v6) throw Error("ovs_set_ipv6 takes IPv6 addresses");
        if (tclass) key.tclass = static_cast<uint8_t>(*tclass), mask.tclass = 0xff;
        if (label) key.label = static_cast<uint32_t>(*label) & 0xfffff, mask.label = 0xfffff;
        if (hlimit) key.hlimit = static_cast<uint8_t>(*hlimit), mask.hlimit = 0xff;
        return OvsSetIpv6(s, key, mask, kv);
      },
      py::arg("s"), py::arg("src") = py::none(), py::arg("dst") = py::none(),
      py::arg("tclass") = py::none(), py::arg("label") = py::none(), py::arg("hlimit") = py::none(),
      py::arg("kv") = kLabKernel);
  auto ports = [](int (*fn)(OvsSkb&, const OvsKeyPorts&, const OvsKeyPorts&)) {
    return [fn](OvsSkb& s, std::optional<int> src, std::optional<int> dst) {
      OvsKeyPorts key, mask;
      if (src) key.src = static_cast<uint16_t>(*src), mask.src = 0xffff;
      if (dst) key.dst = static_cast<uint16_t>(*dst), mask.dst = 0xffff;
      return fn(s, key, mask);
    };
  };
  k.def("ovs_set_tcp", ports(&OvsSetTcp), py::arg("s"), py::arg("src") = py::none(),
        py::arg("dst") = py::none());
  k.def("ovs_set_udp", ports(&OvsSetUdp), py::arg("s"), py::arg("src") = py::none(),
        py::arg("dst") = py::none());
  k.def("ovs_set_sctp", ports(&OvsSetSctp), py::arg("s"), py::arg("src") = py::none(),
        py::arg("dst") = py::none());
  k.def("ovs_dec_ttl", &OvsDecTtl, py::arg("s"));
  k.def("ovs_push_vlan", &OvsPushVlan, py::arg("s"), py::arg("tpid") = 0x8100, py::arg("tci") = 0,
        py::arg("kv") = kLabKernel);
  k.def("ovs_pop_vlan", &OvsPopVlan, py::arg("s"));
}

void BindOvsDatapath(py::module_& k) {
  k.def(
      "ovs_set_tunnel",
      [](OvsSkb& s, const std::string& dst, const std::string& src, uint64_t tun_id, int tos,
         int ttl, int tp_dst, bool csum, bool df) {
        OvsTunnelKey t;
        bool v6s = false;
        t.dst = OvsAddr(dst, &t.ipv6);
        t.src = OvsAddr(src == "0.0.0.0" && t.ipv6 ? "::" : src, &v6s);
        if (v6s != t.ipv6) throw Error("tunnel src and dst families differ");
        t.tun_id = tun_id;
        t.tos = static_cast<uint8_t>(tos);
        t.ttl = static_cast<uint8_t>(ttl);
        t.tp_dst = static_cast<uint16_t>(tp_dst);
        t.csum = csum;
        t.dont_fragment = df;
        OvsSetTunnel(s, t);
      },
      py::arg("s"), py::arg("dst"), py::arg("src") = "0.0.0.0", py::arg("tun_id") = 0,
      py::arg("tos") = 0, py::arg("ttl") = 64, py::arg("tp_dst") = 0, py::arg("csum") = false,
      py::arg("df") = false);
  k.def("ovs_recirc", &OvsRecirc, py::arg("s"), py::arg("recirc_id"));
  k.def(
      "ovs_output",
      [](const OvsSkb& s, const std::string& type, std::optional<uint32_t> mtu,
         uint16_t vxlan_port) {
        OvsVport v;
        if (type == "vxlan")
          v = OvsVport::Vxlan(vxlan_port);
        else if (type == "internal")
          v.type = OvsVport::Type::kInternal;
        else if (type != "netdev")
          throw Error("vport type must be netdev, internal or vxlan");
        if (mtu) v.mtu = *mtu;
        OvsOutput o = OvsDoOutput(s, v);
        py::dict d;
        d["handed_to_dev"] = o.handed_to_dev;
        d["drop_reason"] = o.drop_reason;
        d["tx_error"] = o.tx_error;
        d["skb"] = o.skb;
        if (o.vxlan) {
          py::dict x;
          x["ipv6"] = o.vxlan->ipv6;
          x["src"] = OvsAddrText(o.vxlan->src, o.vxlan->ipv6);
          x["dst"] = OvsAddrText(o.vxlan->dst, o.vxlan->ipv6);
          x["vni"] = o.vxlan->vni;
          x["tos"] = o.vxlan->tos;
          x["ttl"] = o.vxlan->ttl;
          x["df"] = o.vxlan->dont_fragment;
          x["dst_port"] = o.vxlan->dst_port;
          x["udp_csum"] = o.vxlan->udp_csum;
          d["vxlan"] = x;
        } else {
          d["vxlan"] = py::none();
        }
        return d;
      },
      py::arg("s"), py::arg("vport") = "netdev", py::arg("mtu") = py::none(),
      py::arg("vxlan_dst_port") = 4789);
  k.def(
      "ovs_ct",
      [](OvsSkb& s, uint16_t zone, bool commit, std::optional<py::dict> nat,
         const std::string& existing, bool checksum, bool loose, const KernelVersion& kv) {
        OvsCtAction a;
        a.zone = zone;
        a.commit = commit;
        a.existing = OvsExisting(existing);
        if (nat) {
          py::dict n = *nat;
          std::optional<int> port;
          if (n.contains("port") && !n["port"].is_none()) port = n["port"].cast<int>();
          a.nat = OvsNat(n.contains("manip") ? n["manip"].cast<std::string>() : "src",
                         n["addr"].cast<std::string>(), port);
        }
        OvsCtOutcome o = OvsCtExecute(s, a, OvsCfg(checksum, loose), kv);
        py::dict d;
        d["err"] = o.err;
        d["looked_up"] = o.looked_up;
        d["nat_applied"] = o.nat_applied;
        d["ct"] = CtDict(o.ct);
        return d;
      },
      py::arg("s"), py::arg("zone") = 0, py::arg("commit") = false, py::arg("nat") = py::none(),
      py::arg("existing") = "none", py::arg("checksum") = true, py::arg("tcp_loose") = true,
      py::arg("kv") = kLabKernel);
}

void BindConntrack(py::module_& k) {
  k.def(
      "nf_conntrack_in",
      [](SkBuff& skb, size_t l3, const std::string& hook, bool checksum, bool loose,
         const std::string& existing) {
        if (l3 >= skb.len()) throw Error("l3_ofs beyond the packet");
        return CtDict(
            NfConntrackIn(skb, l3, OvsHook(hook), OvsCfg(checksum, loose), OvsExisting(existing)));
      },
      py::arg("skb"), py::arg("l3_ofs"), py::arg("hook") = "pre_routing",
      py::arg("checksum") = true, py::arg("tcp_loose") = true, py::arg("existing") = "none");
  k.def(
      "predict_conntrack",
      [](const py::bytes& frame, IpSummed st, const std::string& hook, bool checksum, bool loose,
         const std::string& existing) {
        std::string raw = frame;
        Bytes f(raw.begin(), raw.end());
        const size_t l3 = OvsL3Of(f);
        SkBuff skb;
        skb.pkt = Packet(f);
        skb.ip_summed = st;
        skb.csum_from = static_cast<uint16_t>(l3);
        if (st == IpSummed::kComplete) {
          uint32_t sum = 0;
          for (size_t i = l3; i < f.size(); i++) sum += (((i - l3) & 1) ? f[i] : f[i] << 8);
          while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
          skb.csum = sum;
        }
        py::dict d = CtDict(
            NfConntrackIn(skb, l3, OvsHook(hook), OvsCfg(checksum, loose), OvsExisting(existing)));
        d["ip_summed_after"] = skb.ip_summed;
        return d;
      },
      py::arg("frame"), py::arg("ip_summed") = IpSummed::kNone, py::arg("hook") = "pre_routing",
      py::arg("checksum") = true, py::arg("tcp_loose") = true, py::arg("existing") = "none");
  k.def(
      "nf_nat_manip_pkt",
      [](SkBuff& skb, size_t l3, const std::string& manip, const std::string& addr,
         std::optional<int> port,
         const KernelVersion& kv) { return NfNatManipPkt(skb, l3, OvsNat(manip, addr, port), kv); },
      py::arg("skb"), py::arg("l3_ofs"), py::arg("manip") = "src", py::arg("addr"),
      py::arg("port") = py::none(), py::arg("kv") = kLabKernel);
  k.def("pskb_trim_rcsum", &PskbTrimRcsum, py::arg("skb"), py::arg("len"),
        py::arg("kv") = kLabKernel);
}

}  // namespace

void BindKernelOvs(py::module_& k) {
  py::class_<OvsSkb>(k, "OvsSkb", "An skb inside the OVS kernel datapath.")
      .def_readwrite("skb", &OvsSkb::skb)
      .def_property(
          "vlan_present", [](const OvsSkb& s) { return s.vlan.present; },
          [](OvsSkb& s, bool v) { s.vlan.present = v; })
      .def_property(
          "vlan_tpid", [](const OvsSkb& s) { return s.vlan.tpid; },
          [](OvsSkb& s, uint16_t v) { s.vlan.tpid = v; })
      .def_property(
          "vlan_tci", [](const OvsSkb& s) { return s.vlan.tci; },
          [](OvsSkb& s, uint16_t v) { s.vlan.tci = v; })
      .def_readwrite("ct_state", &OvsSkb::ct_state)
      .def_readwrite("ct_zone", &OvsSkb::ct_zone)
      .def_readwrite("nfct_attached", &OvsSkb::nfct_attached)
      .def_readwrite("recirc_id", &OvsSkb::recirc_id)
      .def_readwrite("cutlen", &OvsSkb::cutlen)
      .def_property_readonly("key_ip_proto", [](const OvsSkb& s) { return s.key.ip_proto; })
      .def_property_readonly("key_valid", [](const OvsSkb& s) { return s.key.valid; })
      .def("describe", [](const OvsSkb& s) {
        std::string d = Describe(s.skb);
        if (s.vlan.present) d += " vlan=" + std::to_string(s.vlan.tci & 0xfff);
        return d + " ct_state=" + std::to_string(s.ct_state);
      });
  k.def(
      "ovs_vport_receive",
      [](const SkBuff& skb, bool untag) {
        OvsVportReceiveOptions o;
        o.core_vlan_untag = untag;
        return OvsVportReceive(skb, o);
      },
      py::arg("skb"), py::arg("core_vlan_untag") = true);
  BindOvsSetters(k);
  BindOvsDatapath(k);
  BindConntrack(k);
}

}  // namespace offlab
