#include "offlab/ovs/netdev_len.h"

#include <limits>
#include <string_view>

#include "offlab/net/bytes.h"
#include "offlab/net/error.h"
#include "offlab/net/headers.h"

namespace offlab {

namespace {

constexpr size_t kEthCrcLen = 4;  // RTE_ETHER_CRC_LEN

std::string NBytes(size_t n) { return std::to_string(n) + (n == 1 ? " byte" : " bytes"); }

}  // namespace

NetdevClass NetdevClassOf(const std::string& driver) {
  if (driver == "dummy") return NetdevClass::kDummy;
  if (driver == "tun" || driver == "ibmveth") return NetdevClass::kLinux;
  return NetdevClass::kDpdk;
}

size_t MaxFrameLen(const Packet& p, const TxLengthLimit& limit) {
  if (!limit.mtu) return std::numeric_limits<size_t>::max();
  switch (limit.cls) {
    case NetdevClass::kDummy: {
      // netdev_dummy_send (OVS d6a632a9b lib/netdev-dummy.c:1367-1384):
      // max_size = dev->mtu + ETH_HEADER_LEN, + VLAN_HEADER_LEN for an
      // 802.1Q frame.
      const bool vlan =
          p.head_size() >= hdr::kEthLen && GetBe16(p.head() + 12) == hdr::kEthTypeVlan;
      return limit.mtu + hdr::kEthLen + (vlan ? hdr::kVlanLen : 0);
    }
    case NetdevClass::kDpdk:
      // netdev_dpdk_filter_packet_len (lib/netdev-dpdk.c:3043-3064) against
      // dev->max_packet_len = MTU_TO_FRAME_LEN(mtu) = mtu + RTE_ETHER_HDR_LEN
      // + RTE_ETHER_CRC_LEN (lib/netdev-dpdk.c:105, 1517).
      return limit.mtu + hdr::kEthLen + kEthCrcLen;
    case NetdevClass::kLinux:
      // netdev_linux_send writes the frame to the tap fd or an AF_PACKET
      // socket (lib/netdev-linux.c:1718-1830) and checks no length itself.
      break;
  }
  return std::numeric_limits<size_t>::max();
}

std::string TxLengthRefusal(const Packet& p, const TxLengthLimit& limit) {
  if (!limit.mtu) return {};
  const size_t size = p.size();
  if (limit.cls == NetdevClass::kDummy && size < hdr::kEthLen) {
    return "frame of " + NBytes(size) + " is shorter than an Ethernet header (EMSGSIZE)";
  }
  // netdev-dummy: is_tso = userspace_tso_enabled() && dev->ol_tso_segsz &&
  // dp_packet_get_tso_segsz(packet) (lib/netdev-dummy.c:1358-1359);
  // netdev-dpdk: "&& !pkt->tso_segsz" (lib/netdev-dpdk.c:3056-3057).
  const bool tso = p.tso_segsz && (limit.cls != NetdevClass::kDummy || limit.dummy_tso);
  const size_t max = MaxFrameLen(p, limit);
  if (tso || size <= max) return {};
  return "frame of " + NBytes(size) + " exceeds MTU " + std::to_string(limit.mtu) + " (at most " +
         NBytes(max) + " without TSO)";
}

std::string RxLengthRefusal(size_t size) {
  // dfc_processing (OVS d6a632a9b lib/dpif-netdev.c:7344-7348): a packet
  // shorter than ETH_HEADER_LEN is deleted and counted as
  // datapath_drop_rx_invalid_packet before any lookup.
  if (size >= hdr::kEthLen) return {};
  return "frame of " + NBytes(size) + " is shorter than an Ethernet header (14 bytes)";
}

void CheckMtu(const std::string& port, uint32_t mtu) {
  if (mtu < 68 || mtu > 65535) {
    throw Error("port " + port + ": mtu " + std::to_string(mtu) + " outside 68..65535");
  }
}

bool DropRxInvalid(size_t size, Counters* counters, std::vector<std::string>* events) {
  const std::string why = RxLengthRefusal(size);
  if (why.empty()) return false;
  Count(counters, kRxInvalidPacket);
  if (events) events->push_back("drop: " + why);
  return true;
}

const char* MiniflowLengthCounter(const FlowKey& key) {
  // ipv4_sanity_check and ipv6_sanity_check (lib/flow.c:683-749) count
  // these; parse.cc names the failed check in FlowKey::error.
  const std::string_view e = key.error;
  if (e == "ipv4: header truncated") return "miniflow_extract_ipv4_pkt_too_short";
  if (e == "ipv4: IHL below 20 bytes" || e == "ipv4: IHL exceeds frame" ||
      e == "ipv4: total length inconsistent with frame" ||
      e == "ipv4: more than 65535 bytes after the total length") {
    return "miniflow_extract_ipv4_pkt_len_error";
  }
  if (e == "ipv6: header truncated") return "miniflow_extract_ipv6_pkt_too_short";
  if (e == "ipv6: payload length exceeds frame" ||
      e == "ipv6: more than 65535 bytes after the payload length") {
    return "miniflow_extract_ipv6_pkt_len_error";
  }
  return nullptr;
}

void CountMiniflowLengthError(const FlowKey& key, Counters* counters,
                              std::vector<std::string>* events) {
  const char* counter = MiniflowLengthCounter(key);
  if (!counter) return;
  Count(counters, counter);
  if (events) events->push_back("parse: " + key.error + ": no L3/L4 fields (" + counter + ")");
}

}  // namespace offlab
