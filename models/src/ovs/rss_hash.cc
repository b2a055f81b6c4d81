#include "offlab/ovs/rss_hash.h"

#include "offlab/net/headers.h"

namespace offlab {

namespace {

// lib/hash.h's mhash functions (openvswitch/ovs d6a632a9b lib/hash.h:63-91, 103-120),
// the hash_add() of a build without SSE4.2 or ARM CRC32 instructions, such as
// Debian's generic x86-64 packages.
uint32_t Rot(uint32_t x, int k) { return (x << k) | (x >> (32 - k)); }

uint32_t HashAdd(uint32_t hash, uint32_t data) {
  if (data) {  // a zero word does not change the hash (mhash_add__)
    data *= 0xcc9e2d51u;
    data = Rot(data, 15);
    data *= 0x1b873593u;
    hash ^= data;
  }
  hash = Rot(hash, 13);
  return hash * 5 + 0xe6546b64u;
}

uint32_t HashAdd64(uint32_t hash, uint64_t data) {
  return HashAdd(HashAdd(hash, static_cast<uint32_t>(data)), static_cast<uint32_t>(data >> 32));
}

uint32_t HashFinish(uint32_t hash, uint32_t final) {
  hash ^= final;
  hash ^= hash >> 16;
  hash *= 0x85ebca6bu;
  hash ^= hash >> 13;
  hash *= 0xc2b2ae35u;
  hash ^= hash >> 16;
  return hash;
}

// A word as struct flow holds it: network-order bytes, read as a native
// (little-endian) integer.
uint32_t Le32(const uint8_t* b) {
  return uint32_t{b[0]} | uint32_t{b[1]} << 8 | uint32_t{b[2]} << 16 | uint32_t{b[3]} << 24;
}
uint64_t Le64(const uint8_t* b) { return uint64_t{Le32(b)} | uint64_t{Le32(b + 4)} << 32; }

}  // namespace

uint32_t Hash5Tuple(const FlowKey& key) {
  uint32_t hash = 0;
  if (key.dl_type == hdr::kEthTypeIpv6) {
    for (const IpAddr* a : {&key.nw_src, &key.nw_dst}) {
      for (int half = 0; half < 2; half++) {
        hash = HashAdd64(hash, Le64(a->data() + 8 * half));
      }
    }
  } else if (key.dl_type == hdr::kEthTypeIpv4) {
    // OVS hashes ARP by its addresses too; offlab's parser does not read ARP
    // (no key fields), so an ARP frame hashes as any other non-IP frame.
    hash = HashAdd(hash, Le32(key.nw_src.data()));
    hash = HashAdd(hash, Le32(key.nw_dst.data()));
  } else {
    return HashFinish(hash, 42);
  }
  hash = HashAdd(hash, key.nw_proto);
  switch (key.nw_proto) {
    case hdr::kProtoTcp:
    case hdr::kProtoUdp:
    case hdr::kProtoSctp:
    case hdr::kProtoIcmp:
    case hdr::kProtoIcmpv6: {
      // "Add both ports at once": tp_src and tp_dst as one 32-bit word (ICMP
      // type and code in the low byte of each).
      const uint8_t ports[4] = {
          static_cast<uint8_t>(key.tp_src >> 8), static_cast<uint8_t>(key.tp_src),
          static_cast<uint8_t>(key.tp_dst >> 8), static_cast<uint8_t>(key.tp_dst)};
      hash = HashAdd(hash, Le32(ports));
      break;
    }
    default:
      break;
  }
  return HashFinish(hash, 42);
}

uint16_t TunnelSourcePortFromHash(uint32_t hash) {
  constexpr uint32_t kMin = 32768, kMax = 61000;
  return static_cast<uint16_t>(kMin + (uint64_t{hash} * (kMax - kMin) >> 32));
}

}  // namespace offlab
