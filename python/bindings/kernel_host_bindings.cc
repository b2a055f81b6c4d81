// offlab._core.kernel: a Linux host composed from the kernel model
// (models/include/offlab/linux/host.h). Python API (all in the `kernel`
// submodule; addresses as text, IPv6 when they contain ':'; MACs
// "aa:bb:cc:dd:ee:ff"; kv = KernelVersion):
//   KernelHost(nic: str | NicProfile = "ixgbe_82599", kv=LAB_KERNEL)
//     MakeKernelHost: nic_dev from the profile (ibmveth: IbmvethFeatures).
//     Read/write: kv, nic_dev (DeviceFeatures), nic_xmit (XmitOptions),
//     ibmveth (IbmvethConfig | None; assign a whole one), rx_meta (RxMeta),
//     gro, eswitch_offload, vxlan (VxlanConfig | None; assign a whole one),
//     route (UnderlayRoute), sw ("routed" | "bridge" | "ovs"),
//     attach ("socket" | "tap" | "veth" | "forward"), tap (TapConfig),
//     tap_offloads (TUN_F_* bits), stack_dev_mac (str | None),
//     stack_udp_ports (list[int]), mtu, mss. Read-only: nic (profile name),
//     ovs_action_count, ovs_tunnel (dict | None).
//     add_ovs_set_eth(src=None, dst=None), add_ovs_set_ipv4(src=None,
//     dst=None, tos=None, ttl=None), add_ovs_set_ipv6(src=None, dst=None,
//     tclass=None, label=None, hlimit=None), add_ovs_set_tcp(src=None,
//     dst=None), add_ovs_set_udp(src=None, dst=None), add_ovs_dec_ttl(),
//     clear_ovs_actions(): the OVS flow's actions, applied in order.
//     set_ovs_tunnel(dst, src="0.0.0.0", vni=0, csum=False, tos=0, ttl=64,
//     tp_dst=0, df=False): set(tunnel) + output to the vxlan vport for
//     packets from the guest; clear_ovs_tunnel().
//   host_guest_skb(host, frame: bytes, hdr: VnetHdr) -> SkBuff
//     (tun_get_user; OfflabError with the reason the kernel refuses it)
//   host_socket_skb(host, frame: bytes) -> SkBuff
//     (a local TCP socket's skb; OfflabError for a frame that is not TCP)
//   host_transmit(host, skb) -> TxOutcome
//   host_receive(host, frames: list[bytes]) -> RxOutcome
//   TxOutcome: wire (list[bytes]), to_driver (list[SkBuff]), ibmveth
//     (list[dict(sent, drop, largesend, mss, linearized_bytes)]), drops
//     (dict "<stage>: <reason>" -> n), hw_switched, work (dict csum_bytes,
//     copy_bytes, sw_segments), counters (dict)
//   RxOutcome: delivered (list[SkBuff]), tap_hdrs (list[VnetHdrTunnel]),
//     wire, ibmveth, nic_gro (GroStats), cell_gro (GroStats), cell_gro_ran,
//     not_validated (dict), drops, hw_switched, work, counters
//     (driver stats, /proc/net/snmp names, "vxlan0:rx_packets", ...,
//     "host:switched").
#include <arpa/inet.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "offlab/linux/host.h"
#include "offlab/net/addr.h"
#include "offlab/net/error.h"

namespace py = pybind11;

namespace offlab {

namespace {

using kernel::HostAttach;
using kernel::HostOvsAction;
using kernel::HostSwitch;
using kernel::KernelHost;
using Opt = std::optional<std::string>;

std::array<uint8_t, 6> HostMac(const std::string& s) { return ParseMac(s); }

std::string MacText(const std::array<uint8_t, 6>& m) { return MacToString(m); }

// IPv4 in the first 4 bytes, or IPv6; *v6 tells which.
std::array<uint8_t, 16> HostAddr(const std::string& s, bool* v6) {
  std::array<uint8_t, 16> a{};
  *v6 = s.find(':') != std::string::npos;
  if (inet_pton(*v6 ? AF_INET6 : AF_INET, s.c_str(), a.data()) != 1)
    throw Error("IP address '" + s + "' does not parse");
  return a;
}

std::string AddrText(const std::array<uint8_t, 16>& a, bool v6) {
  char b[INET6_ADDRSTRLEN];
  inet_ntop(v6 ? AF_INET6 : AF_INET, a.data(), b, sizeof b);
  return b;
}

const NicProfile& ProfileArg(const std::variant<std::string, NicProfile>& p, NicProfile* store) {
  if (const auto* name = std::get_if<std::string>(&p)) {
    *store = BuiltinProfile(*name);
    return *store;
  }
  return std::get<NicProfile>(p);
}

HostSwitch SwitchFrom(const std::string& s) {
  for (HostSwitch v : {HostSwitch::kRouted, HostSwitch::kBridge, HostSwitch::kOvs})
    if (s == kernel::HostSwitchName(v)) return v;
  throw Error("switch '" + s + "': expected routed, bridge or ovs");
}

HostAttach AttachFrom(const std::string& s) {
  for (HostAttach v :
       {HostAttach::kSocket, HostAttach::kTap, HostAttach::kVeth, HostAttach::kForward})
    if (s == kernel::HostAttachName(v)) return v;
  throw Error("attach '" + s + "': expected socket, tap, veth or forward");
}

uint16_t Port(std::optional<int> p) {
  if (*p < 0 || *p > 0xffff) throw Error("port out of range");
  return static_cast<uint16_t>(*p);
}

py::dict WorkDict(const kernel::HostWork& w) {
  py::dict d;
  d["csum_bytes"] = w.csum_bytes;
  d["copy_bytes"] = w.copy_bytes;
  d["sw_segments"] = w.sw_segments;
  return d;
}

py::list WireList(const std::vector<Bytes>& wire) {
  py::list l;
  for (const Bytes& f : wire)
    l.append(py::bytes(reinterpret_cast<const char*>(f.data()), f.size()));
  return l;
}

py::list IbmvethList(const std::vector<kernel::IbmvethTx>& v) {
  py::list l;
  for (const kernel::IbmvethTx& t : v) {
    py::dict d;
    d["sent"] = t.sent;
    d["drop"] = t.drop;
    d["largesend"] = t.largesend;
    d["mss"] = t.mss;
    d["linearized_bytes"] = t.linearized_bytes;
    l.append(d);
  }
  return l;
}

void BindHostOvs(py::class_<KernelHost>& c) {
  using Kind = HostOvsAction::Kind;
  c.def(
       "add_ovs_set_eth",
       [](KernelHost& h, Opt src, Opt dst) {
         HostOvsAction a;
         a.kind = Kind::kSetEth;
         if (src) a.eth.src = HostMac(*src), a.eth_mask.src.fill(0xff);
         if (dst) a.eth.dst = HostMac(*dst), a.eth_mask.dst.fill(0xff);
         h.ovs_actions.push_back(a);
       },
       py::arg("src") = py::none(), py::arg("dst") = py::none())
      .def(
          "add_ovs_set_ipv4",
          [](KernelHost& h, Opt src, Opt dst, std::optional<int> tos, std::optional<int> ttl) {
            HostOvsAction a;
            a.kind = Kind::kSetIpv4;
            bool v6 = false;
            if (src)
              std::copy_n(HostAddr(*src, &v6).begin(), 4, a.ipv4.src.begin()),
                  a.ipv4_mask.src.fill(0xff);
            if (dst)
              std::copy_n(HostAddr(*dst, &v6).begin(), 4, a.ipv4.dst.begin()),
                  a.ipv4_mask.dst.fill(0xff);
            if (v6) throw Error("add_ovs_set_ipv4 takes IPv4 addresses");
            if (tos) a.ipv4.tos = static_cast<uint8_t>(*tos), a.ipv4_mask.tos = 0xff;
            if (ttl) a.ipv4.ttl = static_cast<uint8_t>(*ttl), a.ipv4_mask.ttl = 0xff;
            h.ovs_actions.push_back(a);
          },
          py::arg("src") = py::none(), py::arg("dst") = py::none(), py::arg("tos") = py::none(),
          py::arg("ttl") = py::none())
      .def(
          "add_ovs_set_ipv6",
          [](KernelHost& h, Opt src, Opt dst, std::optional<int> tclass, std::optional<int> label,
             std::optional<int> hlimit) {
            HostOvsAction a;
            a.kind = Kind::kSetIpv6;
            bool v6 = true;
            if (src) a.ipv6.src = HostAddr(*src, &v6), a.ipv6_mask.src.fill(0xff);
            if (src && !v6) throw Error("add_ovs_set_ipv6 takes IPv6 addresses");
            if (dst) a.ipv6.dst = HostAddr(*dst, &v6), a.ipv6_mask.dst.fill(0xff);
            if (!v6) throw Error("add_ovs_set_ipv6 takes IPv6 addresses");
            if (tclass) a.ipv6.tclass = static_cast<uint8_t>(*tclass), a.ipv6_mask.tclass = 0xff;
            if (label)
              a.ipv6.label = static_cast<uint32_t>(*label) & 0xfffff, a.ipv6_mask.label = 0xfffff;
            if (hlimit) a.ipv6.hlimit = static_cast<uint8_t>(*hlimit), a.ipv6_mask.hlimit = 0xff;
            h.ovs_actions.push_back(a);
          },
          py::arg("src") = py::none(), py::arg("dst") = py::none(), py::arg("tclass") = py::none(),
          py::arg("label") = py::none(), py::arg("hlimit") = py::none());
  auto ports = [](Kind kind) {
    return [kind](KernelHost& h, std::optional<int> src, std::optional<int> dst) {
      HostOvsAction a;
      a.kind = kind;
      if (src) a.ports.src = Port(src), a.ports_mask.src = 0xffff;
      if (dst) a.ports.dst = Port(dst), a.ports_mask.dst = 0xffff;
      h.ovs_actions.push_back(a);
    };
  };
  c.def("add_ovs_set_tcp", ports(Kind::kSetTcp), py::arg("src") = py::none(),
        py::arg("dst") = py::none())
      .def("add_ovs_set_udp", ports(Kind::kSetUdp), py::arg("src") = py::none(),
           py::arg("dst") = py::none())
      .def("add_ovs_dec_ttl",
           [](KernelHost& h) {
             HostOvsAction a;
             a.kind = Kind::kDecTtl;
             h.ovs_actions.push_back(a);
           })
      .def("clear_ovs_actions", [](KernelHost& h) { h.ovs_actions.clear(); })
      .def_property_readonly("ovs_action_count",
                             [](const KernelHost& h) { return h.ovs_actions.size(); })
      .def(
          "set_ovs_tunnel",
          [](KernelHost& h, const std::string& dst, const std::string& src, uint64_t vni, bool csum,
             int tos, int ttl, int tp_dst, bool df) {
            kernel::OvsTunnelKey k;
            bool v6_dst = false, v6_src = false;
            k.dst = HostAddr(dst, &v6_dst);
            k.src = HostAddr(src == "0.0.0.0" && v6_dst ? "::" : src, &v6_src);
            if (v6_src != v6_dst) throw Error("tunnel addresses of different families");
            k.ipv6 = v6_dst;
            k.tun_id = vni;
            k.csum = csum;
            k.tos = static_cast<uint8_t>(tos);
            k.ttl = static_cast<uint8_t>(ttl);
            k.tp_dst = Port(tp_dst);
            k.dont_fragment = df;
            h.ovs_tunnel = k;
          },
          py::arg("dst"), py::arg("src") = "0.0.0.0", py::arg("vni") = 0, py::arg("csum") = false,
          py::arg("tos") = 0, py::arg("ttl") = 64, py::arg("tp_dst") = 0, py::arg("df") = false)
      .def("clear_ovs_tunnel", [](KernelHost& h) { h.ovs_tunnel.reset(); })
      .def_property_readonly("ovs_tunnel", [](const KernelHost& h) -> py::object {
        if (!h.ovs_tunnel) return py::none();
        const kernel::OvsTunnelKey& k = *h.ovs_tunnel;
        py::dict d;
        d["src"] = AddrText(k.src, k.ipv6);
        d["dst"] = AddrText(k.dst, k.ipv6);
        d["vni"] = k.tun_id;
        d["csum"] = k.csum;
        d["tos"] = k.tos;
        d["ttl"] = k.ttl;
        d["tp_dst"] = k.tp_dst;
        d["df"] = k.dont_fragment;
        return d;
      });
}

void BindHostConfig(py::module_& k) {
  py::class_<KernelHost> c(k, "KernelHost", "A Linux host: NIC, VXLAN, switch and guest.");
  c.def(py::init(
            [](const std::variant<std::string, NicProfile>& nic, const kernel::KernelVersion& kv) {
              NicProfile store;
              return kernel::MakeKernelHost(ProfileArg(nic, &store), kv);
            }),
        py::arg("nic") = "ixgbe_82599", py::arg("kv") = kernel::kLabKernel)
      .def_readwrite("kv", &KernelHost::kv)
      .def_property_readonly("nic", [](const KernelHost& h) { return h.nic.name; })
      .def_readwrite("nic_dev", &KernelHost::nic_dev)
      .def_readwrite("nic_xmit", &KernelHost::nic_xmit)
      .def_readwrite("ibmveth", &KernelHost::ibmveth)
      .def_readwrite("rx_meta", &KernelHost::rx_meta)
      .def_readwrite("gro", &KernelHost::gro)
      .def_readwrite("eswitch_offload", &KernelHost::eswitch_offload)
      .def_readwrite("vxlan", &KernelHost::vxlan)
      .def_readwrite("route", &KernelHost::route)
      .def_property(
          "sw", [](const KernelHost& h) { return std::string(kernel::HostSwitchName(h.sw)); },
          [](KernelHost& h, const std::string& s) { h.sw = SwitchFrom(s); })
      .def_property(
          "attach",
          [](const KernelHost& h) { return std::string(kernel::HostAttachName(h.attach)); },
          [](KernelHost& h, const std::string& s) { h.attach = AttachFrom(s); })
      .def_readwrite("tap", &KernelHost::tap)
      .def_readwrite("tap_offloads", &KernelHost::tap_offloads)
      .def_property(
          "stack_dev_mac",
          [](const KernelHost& h) -> std::optional<std::string> {
            if (!h.stack.dev_mac) return std::nullopt;
            return MacText(*h.stack.dev_mac);
          },
          [](KernelHost& h, Opt mac) {
            h.stack.dev_mac.reset();
            if (mac) h.stack.dev_mac = HostMac(*mac);
          })
      .def_property(
          "stack_udp_ports", [](const KernelHost& h) { return h.stack.udp_ports; },
          [](KernelHost& h, const std::vector<uint16_t>& p) { h.stack.udp_ports = p; })
      .def_readwrite("mtu", &KernelHost::mtu)
      .def_readwrite("mss", &KernelHost::mss)
      .def("__repr__", [](const KernelHost& h) {
        return "KernelHost(" + h.nic.name + ", " + h.kv.ToString() + ", " +
               kernel::HostSwitchName(h.sw) + ", " + kernel::HostAttachName(h.attach) +
               (h.vxlan ? ", vxlan" : "") + ")";
      });
  BindHostOvs(c);
}

}  // namespace

void BindKernelHost(py::module_& k) {
  BindHostConfig(k);
  py::class_<kernel::TxOutcome>(k, "TxOutcome", "What a host's transmit put on the wire.")
      .def_property_readonly("wire", [](const kernel::TxOutcome& t) { return WireList(t.wire); })
      .def_readonly("to_driver", &kernel::TxOutcome::to_driver)
      .def_property_readonly("ibmveth",
                             [](const kernel::TxOutcome& t) { return IbmvethList(t.ibmveth); })
      .def_readonly("drops", &kernel::TxOutcome::drops)
      .def_readonly("hw_switched", &kernel::TxOutcome::hw_switched)
      .def_property_readonly("work", [](const kernel::TxOutcome& t) { return WorkDict(t.work); })
      .def_property_readonly("counters",
                             [](const kernel::TxOutcome& t) { return t.counters.values(); });
  py::class_<kernel::RxOutcome>(k, "RxOutcome", "What a host's receive delivered.")
      .def_readonly("delivered", &kernel::RxOutcome::delivered)
      .def_readonly("tap_hdrs", &kernel::RxOutcome::tap_hdrs)
      .def_property_readonly("wire", [](const kernel::RxOutcome& r) { return WireList(r.wire); })
      .def_property_readonly("ibmveth",
                             [](const kernel::RxOutcome& r) { return IbmvethList(r.ibmveth); })
      .def_readonly("nic_gro", &kernel::RxOutcome::nic_gro)
      .def_readonly("cell_gro", &kernel::RxOutcome::cell_gro)
      .def_readonly("cell_gro_ran", &kernel::RxOutcome::cell_gro_ran)
      .def_readonly("not_validated", &kernel::RxOutcome::not_validated)
      .def_readonly("drops", &kernel::RxOutcome::drops)
      .def_readonly("hw_switched", &kernel::RxOutcome::hw_switched)
      .def_property_readonly("work", [](const kernel::RxOutcome& r) { return WorkDict(r.work); })
      .def_property_readonly("counters",
                             [](const kernel::RxOutcome& r) { return r.counters.values(); });

  k.def(
      "host_guest_skb",
      [](const KernelHost& h, const py::bytes& frame, const VnetHdr& hdr) {
        const std::string s = frame;
        kernel::SkBuff skb;
        const std::string err = kernel::HostGuestSkb(h, Bytes(s.begin(), s.end()), hdr, &skb);
        if (!err.empty()) throw Error("tun_get_user refuses the header: " + err);
        return skb;
      },
      py::arg("host"), py::arg("frame"), py::arg("hdr"));
  k.def(
      "host_socket_skb",
      [](const KernelHost& h, const py::bytes& frame) {
        const std::string s = frame;
        kernel::SkBuff skb;
        const std::string err = kernel::HostSocketSkb(h, Bytes(s.begin(), s.end()), &skb);
        if (!err.empty()) throw Error("host_socket_skb: " + err);
        return skb;
      },
      py::arg("host"), py::arg("frame"));
  k.def(
      "host_transmit",
      [](KernelHost& h, const kernel::SkBuff& skb) { return kernel::HostTransmit(h, skb); },
      py::arg("host"), py::arg("skb"), "A guest's (or local socket's) skb through the host.");
  k.def(
      "host_receive",
      [](KernelHost& h, const std::vector<py::bytes>& frames) {
        std::vector<Bytes> in;
        in.reserve(frames.size());
        for (const py::bytes& f : frames) {
          const std::string s = f;
          in.emplace_back(s.begin(), s.end());
        }
        return kernel::HostReceive(h, in);
      },
      py::arg("host"), py::arg("frames"), "Frames from the wire, one NAPI poll, through the host.");
}

}  // namespace offlab
