// Python bindings of the status word, packets, checksums, NIC profiles and
// the independent dissector.
#include <pybind11/operators.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "offlab/net/checksum.h"
#include "offlab/net/dissect.h"
#include "offlab/net/error.h"
#include "offlab/net/packet.h"
#include "offlab/nic/nic_profile.h"
#include "offlab/ovs/offloads.h"

namespace py = pybind11;

namespace offlab {

namespace {

std::string Buf(const py::bytes& b) { return b; }
const uint8_t* U8(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }
std::optional<int> Ofs(uint16_t o) { return o == kNoOffset ? std::nullopt : std::optional<int>(o); }
uint16_t ToOfs(std::optional<int> o) {
  if (!o) return kNoOffset;
  if (*o < 0 || *o >= kNoOffset) throw Error("offset out of range");
  return static_cast<uint16_t>(*o);
}

}  // namespace

void BindCore(py::module_& m) {
  py::enum_<CsumStatus>(m, "CsumStatus", "OVS checksum status: the (GOOD, BAD) bit pair.")
      .value("UNKNOWN", CsumStatus::kUnknown)
      .value("BAD", CsumStatus::kBad)
      .value("GOOD", CsumStatus::kGood)
      .value("PARTIAL", CsumStatus::kPartial);
  py::enum_<Csum>(m, "Csum").value("IP", Csum::kIp).value("L4", Csum::kL4);
  py::enum_<Level>(m, "Level").value("OUTER", Level::kOuter).value("INNER", Level::kInner);
  py::enum_<L4Proto>(m, "L4Proto")
      .value("NONE", L4Proto::kNone)
      .value("TCP", L4Proto::kTcp)
      .value("UDP", L4Proto::kUdp)
      .value("SCTP", L4Proto::kSctp);
  py::enum_<TunnelType>(m, "TunnelType")
      .value("NONE", TunnelType::kNone)
      .value("GENEVE", TunnelType::kGeneve)
      .value("VXLAN", TunnelType::kVxlan)
      .value("GRE", TunnelType::kGre);

  py::class_<Offloads>(m, "Offloads", R"doc(
The 32-bit dp_packet offloads word in Open vSwitch's bit layout: outer
statuses in the low 16 bits, inner = outer << 16.)doc")
      .def(py::init<uint32_t>(), py::arg("word") = 0)
      .def_property("word", &Offloads::word, &Offloads::set_word)
      .def("status", &Offloads::status, py::arg("level"), py::arg("csum"))
      .def("set_status", &Offloads::set_status, py::arg("level"), py::arg("csum"),
           py::arg("status"))
      .def("l4_proto", &Offloads::l4_proto, py::arg("level") = Level::kOuter)
      .def("set_l4_proto", &Offloads::set_l4_proto, py::arg("proto"),
           py::arg("level") = Level::kOuter)
      .def_property("tunnel", &Offloads::tunnel, &Offloads::set_tunnel)
      .def("describe", &Offloads::Describe)
      .def(py::self == py::self)
      .def("__repr__", [](const Offloads& o) {
        return "<Offloads 0x" +
               ToHex(Bytes{uint8_t(o.word() >> 24), uint8_t(o.word() >> 16), uint8_t(o.word() >> 8),
                           uint8_t(o.word())}) +
               " " + o.Describe() + ">";
      });

  py::class_<Packet>(m, "Packet", "Packet bytes with headroom, layer offsets, offloads word.")
      .def(py::init([](const py::bytes& b) {
             std::string s = b;
             return Packet(U8(s), s.size());
           }),
           py::arg("data"))
      .def("bytes",
           [](const Packet& p) {
             return py::bytes(reinterpret_cast<const char*>(p.data()), p.size());
           })
      .def("__len__", &Packet::size)
      .def_property_readonly("headroom", &Packet::headroom)
      // By reference: p.offloads.set_status(...) must change the packet.
      .def_readwrite("offloads", &Packet::offloads)
      .def_readwrite("tso_segsz", &Packet::tso_segsz)
      .def_property(
          "l3_ofs", [](const Packet& p) { return Ofs(p.l3_ofs); },
          [](Packet& p, std::optional<int> o) { p.l3_ofs = ToOfs(o); })
      .def_property(
          "l4_ofs", [](const Packet& p) { return Ofs(p.l4_ofs); },
          [](Packet& p, std::optional<int> o) { p.l4_ofs = ToOfs(o); })
      .def_property(
          "inner_l2_ofs", [](const Packet& p) { return Ofs(p.inner_l2_ofs); },
          [](Packet& p, std::optional<int> o) { p.inner_l2_ofs = ToOfs(o); })
      .def_property(
          "inner_l3_ofs", [](const Packet& p) { return Ofs(p.inner_l3_ofs); },
          [](Packet& p, std::optional<int> o) { p.inner_l3_ofs = ToOfs(o); })
      .def_property(
          "inner_l4_ofs", [](const Packet& p) { return Ofs(p.inner_l4_ofs); },
          [](Packet& p, std::optional<int> o) { p.inner_l4_ofs = ToOfs(o); })
      .def("copy", [](const Packet& p) { return Packet(p); })
      .def("__repr__", [](const Packet& p) {
        return "<Packet " + std::to_string(p.size()) + " bytes " + p.offloads.Describe() +
               (p.tso_segsz ? " tso_segsz=" + std::to_string(p.tso_segsz) : "") + ">";
      });

  py::module_ c = m.def_submodule("checksum", "Internet checksum and CRC32c.");
  c.def(
      "compute",
      [](const py::bytes& b) {
        std::string s = Buf(b);
        return csum::Compute(U8(s), s.size());
      },
      "The Internet checksum (RFC 1071) of the bytes.");
  c.def(
      "verify",
      [](const py::bytes& b) {
        std::string s = Buf(b);
        return csum::Verify(U8(s), s.size());
      },
      "True if the bytes, checksum included, sum to 0xffff.");
  c.def("update16", &csum::Update16, py::arg("old_csum"), py::arg("old_word"), py::arg("new_word"),
        "RFC 1624 eqn. 3 incremental update.");
  c.def(
      "crc32c",
      [](const py::bytes& b) {
        std::string s = Buf(b);
        return csum::Crc32c(U8(s), s.size());
      },
      "CRC32c (Castagnoli) as SCTP uses it.");

  py::class_<RxValidation>(m, "RxValidation")
      .def_readonly("outer_ip", &RxValidation::outer_ip)
      .def_readonly("outer_l4", &RxValidation::outer_l4)
      .def_readonly("inner_ip", &RxValidation::inner_ip)
      .def_readonly("inner_l4", &RxValidation::inner_l4);
  py::class_<NicProfile>(m, "NicProfile", "A NIC described as data, with sources.")
      .def_readonly("name", &NicProfile::name)
      .def_readonly("description", &NicProfile::description)
      .def_readonly("driver", &NicProfile::driver)
      .def_readonly("link_gbps", &NicProfile::link_gbps)
      .def_readonly("tx_caps", &NicProfile::tx_caps)
      .def_readonly("rx_plain", &NicProfile::rx_plain)
      .def_readonly("rx_vxlan", &NicProfile::rx_vxlan)
      .def_readonly("rx_geneve", &NicProfile::rx_geneve)
      .def_readonly("rx_gre", &NicProfile::rx_gre)
      .def_readonly("rx_partial_from_guest", &NicProfile::rx_partial_from_guest)
      .def_readonly("lro", &NicProfile::lro)
      .def_readonly("gro", &NicProfile::gro)
      .def_readonly("max_tso_bytes", &NicProfile::max_tso_bytes)
      .def_readonly("max_tso_segs", &NicProfile::max_tso_segs)
      .def_readonly("outer_udp_needs_pseudo_seed", &NicProfile::outer_udp_needs_pseudo_seed)
      .def_readonly("outer_udp_left_as_is", &NicProfile::outer_udp_left_as_is)
      .def_readonly("rx_zero_udp_csum_literal", &NicProfile::rx_zero_udp_csum_literal)
      .def_readonly("tso_ipv4_only", &NicProfile::tso_ipv4_only)
      .def_readonly("sources", &NicProfile::sources)
      .def_readonly("notes", &NicProfile::notes)
      .def("__repr__", [](const NicProfile& p) { return "<NicProfile " + p.name + ">"; });
  m.def("builtin_profile", &BuiltinProfile, py::arg("name"));
  m.def("builtin_profile_names", &BuiltinProfileNames);
  m.def("load_profile_file", &LoadProfileFile, py::arg("path"));
  m.def("parse_profile", &ParseProfile, py::arg("text"), py::arg("name"));

  py::enum_<Verdict>(m, "Verdict")
      .value("CORRECT", Verdict::kCorrect)
      .value("INCORRECT", Verdict::kIncorrect)
      .value("ABSENT", Verdict::kAbsent)
      .value("NOT_CHECKED", Verdict::kNotChecked);
  m.def("verdict_name", [](Verdict v) { return std::string(ToString(v)); });
  py::class_<ChecksumField>(m, "ChecksumField")
      .def_readonly("layer", &ChecksumField::layer)
      .def_readonly("depth", &ChecksumField::depth)
      .def_readonly("offset", &ChecksumField::offset)
      .def_readonly("value", &ChecksumField::value)
      .def_readonly("expected", &ChecksumField::expected)
      .def_readonly("verdict", &ChecksumField::verdict);
  py::class_<Layer>(m, "Layer")
      .def_readonly("name", &Layer::name)
      .def_readonly("depth", &Layer::depth)
      .def_readonly("offset", &Layer::offset)
      .def_readonly("length", &Layer::length)
      .def_readonly("summary", &Layer::summary);
  py::class_<Dissection>(m, "Dissection")
      .def_readonly("layers", &Dissection::layers)
      .def_readonly("checksums", &Dissection::checksums)
      .def_readonly("error", &Dissection::error)
      .def("__str__", &Dissection::ToString);
  m.def(
      "dissect",
      [](const py::bytes& b) {
        std::string s = Buf(b);
        return Dissect(U8(s), s.size());
      },
      py::arg("frame"), "Decodes every layer and recomputes every checksum from the bytes.");
}

}  // namespace offlab
