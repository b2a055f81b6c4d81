// Python bindings of the datapath operations, the fault set and the pipeline.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "offlab/net/error.h"
#include "offlab/nic/caps.h"
#include "offlab/nic/nic.h"
#include "offlab/ovs/complete.h"
#include "offlab/ovs/conntrack.h"
#include "offlab/ovs/egress.h"
#include "offlab/ovs/faults.h"
#include "offlab/ovs/gso.h"
#include "offlab/ovs/parse.h"
#include "offlab/ovs/pipeline.h"
#include "offlab/ovs/rewrite.h"
#include "offlab/ovs/send_prepare.h"
#include "offlab/ovs/tunnel.h"
#include "offlab/ovs/vnet.h"

namespace py = pybind11;

namespace offlab {

namespace {

Bytes ToBytes(const py::bytes& b) {
  std::string s = b;
  return Bytes(s.begin(), s.end());
}
py::bytes FromBytes(const Bytes& b) {
  return py::bytes(reinterpret_cast<const char*>(b.data()), b.size());
}

IpAddr Ip(const std::string& s) {
  bool v6;
  return ParseIp(s, &v6);
}

TunnelConfig MakeTunnel(const std::string& type, const std::string& remote_ip,
                        const std::string& local_ip, uint32_t key, std::optional<bool> csum,
                        const std::string& eth_src, const std::string& eth_dst, uint16_t udp_src,
                        uint16_t udp_dst, uint8_t ttl, uint8_t tos, bool df, bool gre_key,
                        bool gre_seq, const py::bytes& geneve_options) {
  TunnelConfig t;
  if (type == "vxlan")
    t.type = TunnelType::kVxlan;
  else if (type == "geneve")
    t.type = TunnelType::kGeneve;
  else if (type == "gre")
    t.type = TunnelType::kGre;
  else
    throw Error("tunnel type must be vxlan, geneve or gre, not '" + type + "'");
  bool v6_remote, v6_local;
  t.ip_dst = ParseIp(remote_ip, &v6_remote);
  t.ip_src = ParseIp(local_ip, &v6_local);
  if (v6_remote != v6_local) throw Error("tunnel: local and remote IP families differ");
  t.ipv6 = v6_remote;
  t.key = key;
  t.csum = csum;
  t.eth_src = ParseMac(eth_src);
  t.eth_dst = ParseMac(eth_dst);
  t.udp_src = udp_src;
  t.udp_dst = udp_dst;
  t.ttl = ttl;
  t.tos = tos;
  t.df = df;
  t.gre_key = gre_key;
  t.gre_seq = gre_seq;
  t.geneve_options = ToBytes(geneve_options);
  t.Validate();
  return t;
}

}  // namespace

void BindPipeline(py::module_& m) {
  // Capability bits (OVS netdev_ol_flags).
  py::module_ caps_mod =
      m.def_submodule("caps", "NIC transmit capability bits (OVS netdev_ol_flags).");
  caps_mod.attr("IPV4_CKSUM") = cap::kIpv4Cksum;
  caps_mod.attr("TCP_CKSUM") = cap::kTcpCksum;
  caps_mod.attr("UDP_CKSUM") = cap::kUdpCksum;
  caps_mod.attr("SCTP_CKSUM") = cap::kSctpCksum;
  caps_mod.attr("TCP_TSO") = cap::kTcpTso;
  caps_mod.attr("VXLAN_TNL_TSO") = cap::kVxlanTnlTso;
  caps_mod.attr("GENEVE_TNL_TSO") = cap::kGeneveTnlTso;
  caps_mod.attr("OUTER_IP_CKSUM") = cap::kOuterIpCksum;
  caps_mod.attr("OUTER_UDP_CKSUM") = cap::kOuterUdpCksum;
  caps_mod.attr("GRE_TNL_TSO") = cap::kGreTnlTso;
  caps_mod.attr("ALL") = cap::kAll;
  caps_mod.def("to_string", &CapsToString, "'ipv4_cksum|tcp_cksum' for a bit set.");
  caps_mod.def("from_name", &CapFromName, "The bit of one capability name.");

  // Seeded bugs.
  m.def(
      "fault_names",
      [] {
        std::vector<std::string> names;
        for (Fault f : AllFaults()) names.push_back(FaultName(f));
        return names;
      },
      "Names of the seeded historical bugs (OVS, and one DPDK driver bug).");
  m.def(
      "fault_commit",
      [](const std::string& n) { return std::string(FaultCommit(FaultFromName(n))); },
      "The commit that fixed the named bug (in the project fault_project names).");
  m.def(
      "fault_project",
      [](const std::string& n) { return std::string(FaultProject(FaultFromName(n))); },
      "The project whose commit fixed the named bug: 'OVS' or 'DPDK'.");
  m.def("enable_fault", [](const std::string& n) { Faults::Enable(FaultFromName(n)); });
  m.def("disable_fault", [](const std::string& n) { Faults::Disable(FaultFromName(n)); });
  m.def("clear_faults", &Faults::Clear);
  m.def("enabled_faults", [] {
    std::vector<std::string> names;
    for (Fault f : AllFaults()) {
      if (Faults::On(f)) names.push_back(FaultName(f));
    }
    return names;
  });

  // Single operations on a Packet.
  py::class_<FlowKey>(m, "FlowKey", "What flow extraction found in a packet.")
      .def_readonly("dl_type", &FlowKey::dl_type)
      .def_readonly("has_l3", &FlowKey::has_l3)
      .def_readonly("ipv6", &FlowKey::ipv6)
      .def_readonly("nw_proto", &FlowKey::nw_proto)
      .def_readonly("nw_ttl", &FlowKey::nw_ttl)
      .def_readonly("nw_frag", &FlowKey::nw_frag)
      .def_readonly("has_l4", &FlowKey::has_l4)
      .def_readonly("tp_src", &FlowKey::tp_src)
      .def_readonly("tp_dst", &FlowKey::tp_dst)
      .def_readonly("tcp_flags", &FlowKey::tcp_flags)
      .def_readonly("error", &FlowKey::error)
      .def("__repr__", [](const FlowKey& k) { return "<FlowKey " + k.ToString() + ">"; });
  m.def("parse", &Parse, py::arg("packet"),
        "miniflow_extract: sets layer offsets and the L4 protocol, never a status.");
  m.def("parse_simple", &ParseSimple, py::arg("packet"), "parse_tcp_flags (simple match).");
  m.def(
      "set_ipv4",
      [](Packet& p, std::optional<std::string> src, std::optional<std::string> dst,
         std::optional<uint8_t> tos, std::optional<uint8_t> ttl) {
        Ipv4Set s;
        auto v4 = [](const std::string& a) {
          bool v6;
          IpAddr ip = ParseIp(a, &v6);
          if (v6) throw Error("'" + a + "' is not an IPv4 address");
          return std::array<uint8_t, 4>{ip[0], ip[1], ip[2], ip[3]};
        };
        if (src) s.src = v4(*src);
        if (dst) s.dst = v4(*dst);
        s.tos = tos;
        s.ttl = ttl;
        return SetIpv4(p, s);
      },
      py::arg("packet"), py::arg("src") = py::none(), py::arg("dst") = py::none(),
      py::arg("tos") = py::none(), py::arg("ttl") = py::none(), "IPv4 field writes under rule M.");
  m.def(
      "set_ipv6",
      [](Packet& p, std::optional<std::string> src, std::optional<std::string> dst) {
        Ipv6Set s;
        if (src) s.src = Ip(*src);
        if (dst) s.dst = Ip(*dst);
        return SetIpv6(p, s);
      },
      py::arg("packet"), py::arg("src") = py::none(), py::arg("dst") = py::none(),
      "IPv6 address writes under rule M.");
  m.def("set_l4_ports", &SetL4Ports, py::arg("packet"), py::arg("src") = py::none(),
        py::arg("dst") = py::none(), "TCP/UDP/SCTP port writes under rule M.");
  m.def("send_prepare", &SendPrepare, py::arg("packet"), py::arg("caps"),
        py::arg("udp_tunnel_csum") = true,
        "dp_packet_ol_send_prepare for a capability set (udp_tunnel_csum=False: OVS before "
        "the payload-independent outer UDP checksum).");
  m.def("udp_tunnel_csum", &UdpTunnelCsum, py::arg("packet"),
        "The payload-independent outer UDP checksum; False if not applicable.");
  m.def(
      "gso", [](const Packet& p) { return Gso(p); }, py::arg("packet"), "Full software GSO.");
  m.def(
      "gso_partial", [](const Packet& p) { return GsoPartial(p); }, py::arg("packet"),
      "Partial GSO: split off the tail segment.");
  m.def("gso_partial_nr_segs", &GsoPartialNrSegs, py::arg("packet"));
  m.def(
      "netdev_send",
      [](std::vector<Packet> batch, uint32_t caps) {
        std::vector<std::string> errors;
        auto out = NetdevSend(std::move(batch), caps, nullptr, &errors);
        return py::make_tuple(out, errors);
      },
      py::arg("batch"), py::arg("caps"),
      "TSO policy + send_prepare; returns (packets, errors for dropped packets).");

  py::class_<TunnelConfig>(m, "TunnelConfig", "Encapsulation parameters of a tunnel port.")
      .def(py::init(&MakeTunnel), py::arg("type") = "vxlan", py::arg("remote_ip") = "1.1.2.92",
           py::arg("local_ip") = "1.1.2.88", py::arg("key") = 0, py::arg("csum") = py::none(),
           py::arg("eth_src") = "aa:55:aa:55:00:00", py::arg("eth_dst") = "aa:55:aa:55:00:01",
           py::arg("udp_src") = 0, py::arg("udp_dst") = 0, py::arg("ttl") = 64, py::arg("tos") = 0,
           py::arg("df") = true, py::arg("gre_key") = true, py::arg("gre_seq") = false,
           py::arg("geneve_options") = py::bytes())
      .def_property_readonly("csum_enabled", &TunnelConfig::csum_enabled)
      .def_property_readonly("ipv6", [](const TunnelConfig& t) { return t.ipv6; })
      .def_property_readonly("type", [](const TunnelConfig& t) { return t.type; });
  m.def(
      "push_header",
      [](std::vector<Packet> batch, const TunnelConfig& t) {
        Counters c;
        PushHeader(batch, t, &c);
        return py::make_tuple(batch, c.values());
      },
      py::arg("batch"), py::arg("tunnel"), "netdev_push_header; returns (batch, counters).");
  m.def(
      "pop_header",
      [](Packet& p) {
        Counters c;
        std::string why;
        bool ok = PopHeader(p, &c, &why);
        return py::make_tuple(ok, why, c.values());
      },
      py::arg("packet"), "Decapsulate a parsed tunnel packet; returns (ok, reason, counters).");

  py::class_<NicTx>(m, "NicTx", "What a NIC does on transmit.")
      .def(py::init([](uint32_t caps, uint32_t disabled, bool seed, bool as_is, bool segments) {
             NicTx n;
             n.caps = caps;
             n.disabled = disabled;
             n.outer_udp_needs_pseudo_seed = seed;
             n.outer_udp_left_as_is = as_is;
             n.segments_tso = segments;
             return n;
           }),
           py::arg("caps") = 0, py::arg("disabled") = 0,
           py::arg("outer_udp_needs_pseudo_seed") = false, py::arg("outer_udp_left_as_is") = false,
           py::arg("segments_tso") = true)
      .def_static("from_profile", &NicTx::FromProfile)
      .def_readwrite("caps", &NicTx::caps)
      .def_readwrite("disabled", &NicTx::disabled);
  m.def(
      "nic_transmit",
      [](const Packet& p, const NicTx& n) {
        std::vector<std::string> v;
        auto frames = NicTransmit(p, n, &v);
        return py::make_tuple(frames, v);
      },
      py::arg("packet"), py::arg("nic"), "Wire frames for one packet, and violations.");

  // Writable: the verifier's negative controls hand coalesce a NIC's lie.
  py::class_<RxStatus>(m, "RxStatus", "Statuses a receiving NIC reports.")
      .def(py::init<>())
      .def_readwrite("ip", &RxStatus::ip)
      .def_readwrite("l4", &RxStatus::l4)
      .def_readwrite("inner_ip", &RxStatus::inner_ip)
      .def_readwrite("inner_l4", &RxStatus::inner_l4)
      .def_readwrite("tunnel", &RxStatus::tunnel);
  m.def(
      "nic_receive",
      [](const py::bytes& frame, const NicProfile& prof) {
        RxStatus st;
        Packet p = NicReceive(ToBytes(frame), prof, &st);
        return py::make_tuple(p, st);
      },
      py::arg("frame"), py::arg("profile"), "Receive validation per profile: (packet, status).");

  py::class_<Conntrack>(m, "Conntrack", "The userspace connection tracker with ipf.")
      .def(py::init<>())
      .def(
          "execute",
          [](Conntrack& ct, const Packet& p, bool commit, uint16_t zone,
             std::optional<std::string> nat_dst, std::optional<std::string> nat_src, bool nat) {
            CtSpec spec;
            spec.commit = commit;
            spec.zone = zone;
            spec.nat.enabled = nat;  // plain "nat": translate an existing connection
            if (nat_dst || nat_src) {
              spec.nat.enabled = true;
              spec.nat.snat = nat_src.has_value();
              spec.nat.addr = ParseIp(nat_src ? *nat_src : *nat_dst, &spec.nat.ipv6);
            }
            Counters c;
            PacketBatch out = ct.Execute(PacketBatch{p}, spec, &c);
            return py::make_tuple(out, c.values());
          },
          py::arg("packet"), py::arg("commit") = true, py::arg("zone") = 0,
          py::arg("nat_dst") = py::none(), py::arg("nat_src") = py::none(), py::arg("nat") = false,
          "ct(commit, nat) on a parsed packet; returns (packets, counters).")
      .def_property_readonly("connections", &Conntrack::connections);
  m.def(
      "ct_state", [](const Packet& p) { return p.md.ct_state; }, py::arg("packet"));

  py::class_<VnetHdr>(m, "VnetHdr", "A virtio-net header (tap / netdev-linux).")
      .def_readonly("flags", &VnetHdr::flags)
      .def_readonly("gso_type", &VnetHdr::gso_type)
      .def_readonly("gso_size", &VnetHdr::gso_size)
      .def_readonly("csum_start", &VnetHdr::csum_start)
      .def_readonly("csum_offset", &VnetHdr::csum_offset);
  m.def("vnet_transmit", &VnetTransmit, py::arg("packet"),
        "netdev_linux_prepend_vnet_hdr: the header for a packet leaving through a tap.");
  m.def("vnet_complete", &VnetCompleteCsum, py::arg("packet"), py::arg("header"),
        "What the kernel does with NEEDS_CSUM.");

  m.def("compose_bad_ip_csum", &ComposeBadIpCsum, py::arg("packet"),
        "flow_compose --bad-csum: corrupts the IPv4 checksum (XOR 1) and sets the IP status "
        "bad.");

  // The pipeline.
  py::class_<RxMeta>(m, "RxMeta", "Metadata a virtual NIC passes with a received frame.")
      .def(py::init([](std::optional<CsumStatus> ip, std::optional<CsumStatus> l4,
                       uint16_t tso_segsz, bool bad_ip_csum) {
             return RxMeta{ip, l4, tso_segsz, bad_ip_csum};
           }),
           py::arg("ip") = py::none(), py::arg("l4") = py::none(), py::arg("tso_segsz") = 0,
           py::arg("bad_ip_csum") = false);
  py::class_<Sent>(m, "Sent", "A frame a port put on the wire.")
      .def_readonly("port", &Sent::port)
      .def_property_readonly("frame", [](const Sent& s) { return FromBytes(s.frame); })
      .def_readonly("offloads", &Sent::offloads)
      .def_readonly("tso_segsz", &Sent::tso_segsz)
      .def("__repr__", [](const Sent& s) {
        return "<Sent " + s.port + " " + std::to_string(s.frame.size()) + " bytes " +
               s.offloads.Describe() + ">";
      });
  py::class_<Pipeline>(m, "Pipeline", R"doc(
An OVS-like bridge: ports bound to NIC profiles or netdev-dummy options,
tunnel ports, a flow table in ovs-ofctl syntax, and the datapath actions.

    br = Pipeline()
    br.add_port("p1", options={"ol_l4_rx_csum_set_good": "true"})
    br.add_port("p2")
    br.add_flow("in_port=p1,tcp,actions=mod_tp_dst:2222,output:p2")
    out = br.receive("p1", frame)
)doc")
      .def(py::init([](bool userspace_tso, bool simple_match) {
             return std::make_unique<Pipeline>(PipelineConfig{userspace_tso, simple_match});
           }),
           py::arg("userspace_tso") = false, py::arg("simple_match") = true)
      .def(
          "add_port",
          [](Pipeline& br, const std::string& name, const std::string& profile,
             const std::map<std::string, std::string>& options, uint32_t ofport,
             std::optional<TunnelConfig> tunnel, const std::string& underlay, uint32_t mtu) {
            PortConfig c;
            c.name = name;
            c.profile = profile;
            c.options = options;
            c.ofport = ofport;
            c.tunnel = tunnel;
            c.underlay = underlay;
            c.mtu = mtu;
            return br.AddPort(c);
          },
          py::arg("name"), py::arg("profile") = "dummy",
          py::arg("options") = std::map<std::string, std::string>{}, py::arg("ofport") = 0,
          py::arg("tunnel") = py::none(), py::arg("underlay") = "", py::arg("mtu") = kDefaultMtu,
          "Adds a port; returns its ofport. Frames longer than `mtu` allows leave it only as TSO "
          "packets; others are dropped and counted as tx_mtu_exceeded_drops.")
      .def("add_flow", &Pipeline::AddFlow, py::arg("flow"))
      .def("clear_flows", &Pipeline::ClearFlows)
      .def(
          "receive",
          [](Pipeline& br, const std::string& port, const py::bytes& frame,
             std::optional<RxMeta> meta) {
            return br.Receive(port, ToBytes(frame), meta.value_or(RxMeta{}));
          },
          py::arg("port"), py::arg("frame"), py::arg("meta") = py::none(),
          "Runs one frame through the datapath; returns the frames sent.")
      .def("port_number", &Pipeline::PortNumber)
      .def("port_caps", &Pipeline::PortCaps)
      .def_property_readonly("counters", [](Pipeline& br) { return br.counters().values(); })
      .def_property_readonly("events", &Pipeline::events);
}

}  // namespace offlab
