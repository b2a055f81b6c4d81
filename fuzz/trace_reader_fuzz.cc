// Feeds arbitrary bytes to the trace reader (offlab sim --replay and
// hw-replay read user-supplied traces with it) and turns every record it
// accepts into a packet and a pass through a NIC's transmit and receive.
// Anything but offlab::Error escaping, or a sanitizer report, is a bug: bad
// traces must be refused with a message.
#include <cstddef>
#include <cstdint>

#include "offlab/net/error.h"
#include "offlab/net/trace.h"
#include "offlab/nic/nic.h"
#include "offlab/nic/nic_profile.h"
#include "offlab/ovs/egress.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace offlab;
  static const NicProfile kProfile = BuiltinProfile("e810");
  static const NicTx kTx = NicTx::FromProfile(kProfile);
  std::vector<trace::Record> records;
  try {
    records = trace::ParseTrace(Bytes(data, data + size), "fuzz");
  } catch (const Error&) {
    return 0;
  }
  for (const trace::Record& r : records) {
    if (r.role != trace::Role::kTx) continue;
    try {
      PacketBatch ready = NetdevSend(OneBatch(r.ToPacket()), kProfile.tx_caps);
      for (Packet& q : ready) {
        for (Packet& f : NicTransmit(std::move(q), kTx)) {
          NicReceive(std::move(f).TakeBytes(), kProfile);
        }
      }
    } catch (const Error&) {
      // Refused with a message (e.g. TSO without a TCP header): the replayers
      // report it naming the packet.
    }
  }
  return 0;
}
