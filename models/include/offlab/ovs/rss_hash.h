// The datapath's packet hash (the "RSS hash" a NIC would supply), as
// dpif-netdev computes it in software for a netdev without one (netdev-dummy,
// vhost, pcap): the 5-tuple hash of lib/flow.c. A native UDP tunnel takes its
// outer source port from it (netdev_tnl_get_src_port), so one flow keeps one
// port, and the differential harness sees the same port OVS picks.
#pragma once

#include <cstdint>

#include "offlab/ovs/parse.h"

namespace offlab {

// miniflow_hash_5tuple(mf, 0) of the packet's key: the hash dfc_processing
// stores on a packet that misses the caches (openvswitch/ovs d6a632a9b
// lib/dpif-netdev.c:7037-7056, 7396-7399; lib/flow.c:2300-2340). For a key
// miniflow_extract() built it equals flow_hash_5tuple(), which
// netdev_tnl_get_src_port uses for a packet without a hash (lib/flow.c:
// 2347-2384): the extracted miniflow holds every IPv6 address word, zero or not.
uint32_t Hash5Tuple(const FlowKey& key);

// The outer UDP source port for a packet with hash `hash`: the hash scaled
// into tnl/egress_port_range, 32768..61000 by default
// (lib/netdev-native-tnl.c:66-90 netdev_tnl_get_src_port).
uint16_t TunnelSourcePortFromHash(uint32_t hash);

}  // namespace offlab
