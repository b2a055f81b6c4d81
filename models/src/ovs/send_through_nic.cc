// What a port puts on the wire for one packet handed to its netdev_send:
// the datapath's egress, then the NIC's transmit (offlab/ovs/pipeline.h).
#include <algorithm>
#include <utility>

#include "offlab/net/work.h"
#include "offlab/nic/nic.h"
#include "offlab/ovs/egress.h"
#include "offlab/ovs/netdev_len.h"
#include "offlab/ovs/pipeline.h"

namespace offlab {

namespace {

// The netdev class's length check between netdev_send's egress and the NIC.
bool RefusedForLength(const Packet& p, const TxLengthLimit& limit, Counters* counters,
                      std::vector<std::string>* errors) {
  std::string why = TxLengthRefusal(p, limit);
  if (why.empty()) return false;
  Count(counters, kTxMtuExceeded);
  if (errors) errors->push_back(std::move(why));
  return true;
}

}  // namespace

Bytes Sent::Joined() const {
  Bytes out(size());
  std::copy(frame.begin(), frame.end(), out.begin());
  tail.CopyTo(out.data() + frame.size());
  return out;
}

std::vector<Sent> SendThroughNic(Packet p, const std::string& port, uint32_t caps, const NicTx& nic,
                                 const EgressOptions& egress, Counters* counters,
                                 std::vector<std::string>* errors,
                                 std::vector<std::string>* violations, bool shared_payloads,
                                 const TxLengthLimit& limit) {
  auto take = [shared_payloads](Packet&& f) {
    if (!shared_payloads) return std::pair<Bytes, Rope>(std::move(f).TakeBytes(), Rope());
    return std::move(f).TakeSplit();
  };
  std::vector<Sent> out;
  if (!p.tso_segsz && NicSendsWhole(p, nic)) {
    // One packet that nothing segments: the same steps as below, in place,
    // without a batch around it at each.
    if (!NetdevSendOne(p, caps, counters, errors, egress)) return out;
    if (RefusedForLength(p, limit, counters, errors)) return out;
    const Offloads handed = p.offloads;
    const uint16_t segsz = p.tso_segsz;
    {
      HardwareScope hw;
      NicTransmitWhole(p, nic, violations);
    }
    auto [head, tail] = take(std::move(p));
    out.push_back({port, std::move(head), handed, segsz, 0, 0, std::move(tail)});
    return out;
  }
  PacketBatch ready = NetdevSend(OneBatch(std::move(p)), caps, counters, errors, egress);
  for (uint32_t i = 0; i < ready.size(); i++) {
    if (RefusedForLength(ready[i], limit, counters, errors)) {
      // netdev_dummy_send stops at the refused packet and deletes the rest
      // of the batch unsent (OVS d6a632a9b lib/netdev-dummy.c:1381-1384, 1476).
      if (limit.cls != NetdevClass::kDummy) continue;
      const size_t rest = ready.size() - i - 1;
      if (rest) {
        Count(counters, kTxMtuExceeded, rest);
        if (errors) {
          errors->push_back(
              std::to_string(rest) +
              " more packets of the batch not sent (netdev-dummy stops at the first)");
        }
      }
      break;
    }
    const Offloads handed = ready[i].offloads;
    const uint16_t segsz = ready[i].tso_segsz;
    PacketBatch frames;
    {
      HardwareScope hw;
      frames = NicTransmit(std::move(ready[i]), nic, violations);
    }
    if (out.empty()) out.reserve(frames.size());
    for (Packet& f : frames) {
      auto [head, tail] = take(std::move(f));
      out.push_back({port, std::move(head), handed, segsz, i, 0, std::move(tail)});
    }
  }
  return out;
}

}  // namespace offlab
