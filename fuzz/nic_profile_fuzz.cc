// Feeds arbitrary text to the NIC profile loader (`offlab profiles FILE.yaml`,
// `offlab verify --profile FILE.yaml`, scenario files naming a profile) and
// puts every profile it accepts to use: a port's transmit, and a receive that
// validates a frame as the profile says. Anything but offlab::Error escaping,
// or a sanitizer report, is a bug: a bad profile must be refused with a
// message naming the problem.
#include <cstddef>
#include <cstdint>
#include <string>

#include "offlab/net/error.h"
#include "offlab/net/packet.h"
#include "offlab/nic/nic.h"
#include "offlab/nic/nic_profile.h"

namespace {

// An Ethernet/IPv4/UDP frame with a correct IPv4 checksum and UDP checksum 0.
const offlab::Bytes kFrame = {0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00,
                              0x01, 0x08, 0x00, 0x45, 0x00, 0x00, 0x1e, 0x00, 0x00, 0x00, 0x00,
                              0x40, 0x11, 0x66, 0xcd, 0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00,
                              0x02, 0x04, 0xd2, 0x16, 0x2e, 0x00, 0x0a, 0x00, 0x00, 0x61, 0x62};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace offlab;
  NicProfile profile;
  try {
    profile = ParseProfile(std::string(reinterpret_cast<const char*>(data), size), "fuzz");
  } catch (const Error&) {
    return 0;
  }
  try {
    const NicTx tx = NicTx::FromProfile(profile);
    Packet p(kFrame);
    for (Packet& f : NicTransmit(std::move(p), tx)) {
      NicReceive(std::move(f).TakeBytes(), profile);
    }
    (void)profile.rx_for(TunnelType::kVxlan);
  } catch (const Error&) {
    // An accepted profile may still refuse a request with a message.
  }
  return 0;
}
