#include "offlab/ovs/egress.h"

#include "offlab/net/error.h"
#include "offlab/nic/caps.h"
#include "offlab/ovs/gso.h"
#include "offlab/ovs/send_prepare.h"

namespace offlab {

namespace {

void Reject(const Error& e, Counters* counters, std::vector<std::string>* errors) {
  Count(counters, "offlab_send_prepare_errors");
  if (errors) errors->push_back(e.what());
}

template <typename Fn>
PacketBatch SegmentAll(const PacketBatch& in, Fn&& segment, Counters* counters,
                       std::vector<std::string>* errors) {
  PacketBatch out;
  for (const Packet& p : in) {
    try {
      PacketBatch s = segment(p);
      for (Packet& q : s) out.push_back(std::move(q));
    } catch (const Error& e) {
      Reject(e, counters, errors);
    }
  }
  return out;
}

}  // namespace

void CheckEgressOptions(const EgressOptions& options) {
  if (options.partial_gso && !options.udp_tunnel_csum) {
    throw Error(
        "partial_gso needs udp_tunnel_csum: the NIC would cut packets whose outer UDP "
        "checksum covers the whole payload");
  }
}

bool NetdevSendOne(Packet& p, uint32_t caps, Counters* counters, std::vector<std::string>* errors,
                   const EgressOptions& options) {
  // Without a TSO packet in the batch every rule's condition is false: only
  // the send-prepare loop of NetdevSend runs.
  try {
    SendPrepare(p, caps, options.udp_tunnel_csum);
    return true;
  } catch (const Error& e) {
    Reject(e, counters, errors);
    return false;
  }
}

PacketBatch NetdevSend(PacketBatch batch, uint32_t caps, Counters* counters,
                       std::vector<std::string>* errors, const EgressOptions& options) {
  const bool partial_gso = options.partial_gso && options.udp_tunnel_csum;
  bool any_tso = false, any_tnl_tso = false, any_partial = false;
  for (const Packet& p : batch) {
    any_tso |= p.tso_segsz != 0;
    any_tnl_tso |= p.tso_segsz != 0 && p.offloads.tunnelled();
  }
  if (any_tso && !(caps & cap::kTcpTso)) {
    batch = SegmentAll(
        batch, [&](const Packet& p) { return Gso(p, counters); }, counters, errors);
  } else if (any_tnl_tso && !(caps & cap::kTnlTsoAny)) {
    // dp_packet_gso_batch: every TSO packet of the batch, not only the
    // tunnelled one that triggered it.
    batch = SegmentAll(
        batch, [&](const Packet& p) { return Gso(p, counters); }, counters, errors);
  } else if (any_tso && !(caps & cap::kOuterUdpCksum) && !partial_gso) {
    // Before partial GSO, a TSO packet needing an outer UDP checksum the NIC
    // lacks was segmented in software, whatever its length.
    batch = SegmentAll(
        batch,
        [&](const Packet& p) {
          const TunnelType t = p.offloads.tunnel();
          const bool udp_tnl = t == TunnelType::kVxlan || t == TunnelType::kGeneve;
          return p.tso_segsz && udp_tnl && p.offloads.l4() == CsumStatus::kPartial
                     ? Gso(p, counters)
                     : PacketBatch{p};
        },
        counters, errors);
  } else if (any_tso && !(caps & cap::kOuterUdpCksum)) {
    for (const Packet& p : batch) {
      try {
        any_partial |= GsoPartialNrSegs(p) == 2;
      } catch (const Error&) {
        any_partial = true;  // GsoPartial below reports it
      }
    }
    if (any_partial) {
      batch = SegmentAll(
          batch, [&](const Packet& p) { return GsoPartial(p, counters); }, counters, errors);
    }
  }
  PacketBatch out;
  out.reserve(batch.size());
  for (Packet& p : batch) {
    try {
      SendPrepare(p, caps, options.udp_tunnel_csum);
      out.push_back(std::move(p));
    } catch (const Error& e) {
      Reject(e, counters, errors);
    }
  }
  return out;
}

}  // namespace offlab
