// Feeds arbitrary text to the flow parser (`Pipeline.add_flow`, ovs-ofctl
// syntax: matches, actions, ct(...), tunnel push/pop) one rule per line, then
// runs frames through the table it built. Anything but offlab::Error escaping,
// or a sanitizer report, is a bug: a bad rule must be refused with a message
// naming the offending token.
#include <cstddef>
#include <cstdint>
#include <string>

#include "offlab/net/error.h"
#include "offlab/ovs/pipeline.h"

namespace {

using offlab::Bytes;

// Ethernet/IPv4/TCP (SYN) and Ethernet/IPv4/UDP to the VXLAN port, both with
// correct checksums, so rules see plausible traffic.
const Bytes kTcp = {0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00,
                    0x01, 0x08, 0x00, 0x45, 0x00, 0x00, 0x28, 0x00, 0x01, 0x00, 0x00,
                    0x40, 0x06, 0x66, 0xcc, 0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00,
                    0x02, 0x04, 0xd2, 0x00, 0x50, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                    0x00, 0x00, 0x50, 0x02, 0x20, 0x00, 0x71, 0x97, 0x00, 0x00};
const Bytes kUdp = {0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00,
                    0x01, 0x08, 0x00, 0x45, 0x00, 0x00, 0x1e, 0x00, 0x00, 0x00, 0x00,
                    0x40, 0x11, 0x66, 0xcd, 0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00,
                    0x02, 0x04, 0xd2, 0x12, 0xb5, 0x00, 0x0a, 0x00, 0x00, 0x61, 0x62};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace offlab;
  const std::string text(reinterpret_cast<const char*>(data), size);
  Pipeline br(PipelineConfig{.userspace_tso = true});
  br.AddPort({.name = "p1"});
  br.AddPort({.name = "p2", .options = {{"ol_l4_tx_csum", "true"}}});
  TunnelConfig t;
  bool v6 = false;
  t.ip_src = ParseIp("10.0.0.1", &v6);
  t.ip_dst = ParseIp("10.0.0.2", &v6);
  br.AddPort({.name = "t1", .tunnel = t, .underlay = "p2"});
  size_t rules = 0;
  for (size_t start = 0; start <= text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    try {
      br.AddFlow(text.substr(start, end - start));
      rules++;
    } catch (const Error&) {
      // Refused with a message: the contract for a bad rule.
    }
    start = end + 1;
  }
  if (!rules) return 0;
  try {
    br.Receive("p1", kTcp);
    br.Receive("p1", kUdp);
  } catch (const Error&) {
    // A rule may be refused only when it runs (e.g. an action on a port it cannot use).
  }
  return 0;
}
