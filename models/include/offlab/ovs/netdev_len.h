// Frame lengths OVS's userspace datapath refuses, and the counters it names
// them by (sources at OVS d6a632a9b, cited in netdev_len.cc):
// - receive: dfc_processing drops a frame shorter than an Ethernet header
//   (datapath_drop_rx_invalid_packet);
// - parse: miniflow_extract stops before L3 when an IPv4 total length or an
//   IPv6 payload length runs past the frame and counts it
//   (miniflow_extract_ipv{4,6}_pkt_{len_error,too_short}); the packet goes
//   on with an L2-only flow key, it is not dropped;
// - send: a port's netdev class refuses a frame longer than its MTU allows
//   unless it is a TSO packet (netdev-dpdk: tx_mtu_exceeded_drops;
//   netdev-dummy: EMSGSIZE).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "offlab/net/counters.h"
#include "offlab/net/packet.h"
#include "offlab/ovs/parse.h"

namespace offlab {

// The MTU a port starts with: netdev-dummy's and netdev-dpdk's default.
constexpr uint32_t kDefaultMtu = 1500;

// The netdev class whose send bounds a port's frames.
enum class NetdevClass {
  kDummy,  // netdev-dummy: mtu + 14 (+ 4 for an 802.1Q frame)
  kDpdk,   // netdev-dpdk, NICs and vhost-user: MTU_TO_FRAME_LEN(mtu) = mtu + 18
  kLinux,  // netdev-linux (tap, AF_PACKET): OVS leaves it to the kernel; no check here
};

// The class a NIC profile's driver is sent through: "dummy", "tun" and
// "ibmveth" (netdev-linux system ports), anything else a DPDK PMD.
NetdevClass NetdevClassOf(const std::string& driver);

struct TxLengthLimit {
  NetdevClass cls = NetdevClass::kDpdk;
  uint32_t mtu = 0;  // 0: no limit (a caller that models no port)
  // netdev-dummy only: the port takes TSO packets whole (ol_tso_segsz with
  // userspace TSO). netdev-dpdk lets every packet with tso_segsz through.
  bool dummy_tso = false;
};

// The largest frame the port's send takes for a frame of `p`'s Ethernet type.
size_t MaxFrameLen(const Packet& p, const TxLengthLimit& limit);

// Empty when the port's send takes `p`; otherwise why it refuses it.
std::string TxLengthRefusal(const Packet& p, const TxLengthLimit& limit);

// Empty when dpif-netdev takes a received frame of `size` bytes; otherwise why not.
std::string RxLengthRefusal(size_t size);

// Throws offlab::Error unless 68 <= mtu <= 65535 (netdev-dummy's
// DUMMY_MIN_MTU..DUMMY_MAX_MTU, lib/netdev-dummy.c:1520-1528).
void CheckMtu(const std::string& port, uint32_t mtu);

inline constexpr const char* kRxInvalidPacket = "datapath_drop_rx_invalid_packet";
inline constexpr const char* kTxMtuExceeded = "tx_mtu_exceeded_drops";

// dfc_processing's check: true (and counted, with a line in `events`) when a
// received frame of `size` bytes is dropped.
bool DropRxInvalid(size_t size, Counters* counters, std::vector<std::string>* events);

// The coverage counter miniflow_extract counts for a key whose IPv4/IPv6
// length check failed (FlowKey::error), or nullptr.
const char* MiniflowLengthCounter(const FlowKey& key);
// Counts it, with a line in `events`; the packet goes on (L2-only key).
void CountMiniflowLengthError(const FlowKey& key, Counters* counters,
                              std::vector<std::string>* events);

}  // namespace offlab
