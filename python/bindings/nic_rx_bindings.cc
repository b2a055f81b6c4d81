// Python bindings of receive coalescing (Coalesce, offlab/nic/nic.h): the
// verifier runs it as an operation of its alphabet.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <utility>
#include <vector>

#include "offlab/nic/nic.h"

namespace py = pybind11;

namespace offlab {

void BindNicRx(py::module_& m) {
  m.def(
      "coalesce",
      [](std::vector<std::pair<Packet, RxStatus>> frames, size_t max_bytes) {
        CoalesceStats st;
        PacketBatch out = Coalesce(std::move(frames), max_bytes, &st);
        py::dict stats;
        stats["frames_in"] = st.frames_in;
        stats["packets_out"] = st.packets_out;
        stats["merged"] = st.merged;
        stats["not_validated"] = st.not_validated;
        return py::make_tuple(out, stats);
      },
      py::arg("frames"), py::arg("max_bytes") = 65535,
      "Receive coalescing (GRO/LRO) of (packet, RxStatus) pairs as nic_receive returns them: "
      "(packets, stats).");
}

}  // namespace offlab
