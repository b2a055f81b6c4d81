// A packet: bytes with headroom (headers are pushed and pulled without
// copying the payload), layer offsets for the outer and inner headers, the
// OVS offloads word, tso_segsz and the datapath metadata that travels with it.
//
// The bytes may end in a shared tail (offlab/net/payload.h): the packet is
// then its contiguous head followed by the tail's slices. Every accessor that
// hands out the bytes (data(), the layer pointers, TakeBytes, Put, ...) first
// copies the tail in, so code unaware of tails sees the same bytes as ever;
// code that reads headers only uses head()/Linear() and leaves the tail shared.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "offlab/net/bytes.h"
#include "offlab/net/payload.h"
#include "offlab/ovs/offloads.h"

namespace offlab {

constexpr uint16_t kNoOffset = UINT16_MAX;

// Tunnel metadata set by decapsulation (OVS `flow_tnl`), matched by flows.
struct TunnelMetadata {
  bool present = false;
  TunnelType type = TunnelType::kNone;
  bool ipv6 = false;
  std::array<uint8_t, 16> src{};  // IPv4 uses the first 4 bytes
  std::array<uint8_t, 16> dst{};
  uint32_t key = 0;  // VNI or GRE key
  uint8_t tos = 0, ttl = 0;
  uint16_t tp_src = 0, tp_dst = 0;
  bool csum = false;  // outer UDP / GRE checksum was present
  // Geneve options that translation refuses: one with the critical type bit,
  // which offlab (without TLV mappings, `ovs-ofctl add-tlv-map`) cannot map,
  // or one running past the options (lib/tun-metadata.c
  // tun_metadata_from_geneve_udpif returns EINVAL).
  bool geneve_md_invalid = false;
  bool operator==(const TunnelMetadata&) const = default;
};

// Connection-tracking state bits (OVS CS_* values, lib/packets.h).
namespace ct {
constexpr uint32_t kNew = 1u << 0;
constexpr uint32_t kEstablished = 1u << 1;
constexpr uint32_t kRelated = 1u << 2;
constexpr uint32_t kReplyDir = 1u << 3;
constexpr uint32_t kInvalid = 1u << 4;
constexpr uint32_t kTracked = 1u << 5;
constexpr uint32_t kSrcNat = 1u << 6;
constexpr uint32_t kDstNat = 1u << 7;
}  // namespace ct

struct PacketMetadata {
  uint32_t in_port = 0;
  uint32_t recirc_id = 0;
  uint32_t ct_state = 0;
  uint16_t ct_zone = 0;
  uint32_t ct_mark = 0;
  uint32_t hash = 0;
  bool has_hash = false;  // `hash` holds the packet's 5-tuple hash (ovs/rss_hash.h)
  uint32_t mark = 0;
  TunnelMetadata tunnel;
};

// A packet's bytes: the buffer with its headroom, the head's length and the
// shared tail. Moving out of it leaves it empty rather than with the old
// lengths over a buffer it no longer holds, so a moved-from Packet is a valid
// packet of zero bytes (its layer pointers null), not one that writes through
// a stale offset.
class PacketStorage {
 protected:
  PacketStorage() = default;
  PacketStorage(const PacketStorage&) = default;
  PacketStorage& operator=(const PacketStorage&) = default;
  PacketStorage(PacketStorage&& o) noexcept
      : buf_(std::move(o.buf_)),
        head_(std::exchange(o.head_, 0)),
        len_(std::exchange(o.len_, 0)),
        tail_(std::move(o.tail_)) {
    o.Empty();
  }
  PacketStorage& operator=(PacketStorage&& o) noexcept {
    if (this != &o) {
      buf_ = std::move(o.buf_);
      head_ = std::exchange(o.head_, 0);
      len_ = std::exchange(o.len_, 0);
      tail_ = std::move(o.tail_);
      o.Empty();
    }
    return *this;
  }
  ~PacketStorage() = default;

  // Mutable: a const reader may need the tail copied in to see the bytes
  // whole; the bytes themselves stay the same.
  mutable std::vector<uint8_t> buf_;
  size_t head_ = 0;
  mutable size_t len_ = 0;  // bytes in the head
  mutable Rope tail_;

 private:
  void Empty() noexcept {
    buf_.clear();
    tail_.Clear();
  }
};

class Packet : private PacketStorage {
 public:
  static constexpr size_t kDefaultHeadroom = 128;

  // An empty packet owns no buffer (skbs and GRO entries default-construct
  // many); its first Push or Put allocates.
  Packet() = default;
  // A null `data` gives `len` zero bytes.
  Packet(const uint8_t* data, size_t len, size_t headroom = kDefaultHeadroom);
  explicit Packet(const Bytes& bytes, size_t headroom = kDefaultHeadroom)
      : Packet(bytes.data(), bytes.size(), headroom) {}
  // Takes over `bytes` without copying them; no headroom, so a later Push
  // reallocates. For frames that arrive from a wire or a guest.
  static Packet Adopt(Bytes&& bytes);

  uint8_t* data() {
    Linearize();
    return buf_.data() + head_;
  }
  const uint8_t* data() const {
    Linearize();
    return buf_.data() + head_;
  }
  size_t size() const { return len_ + tail_.size(); }
  size_t headroom() const { return head_; }
  Bytes bytes() const;
  // The bytes, leaving the packet empty: no allocation, and no copy when
  // there is no headroom and no tail.
  Bytes TakeBytes() &&;

  // Prepends n bytes (contents unspecified) and shifts every layer offset by
  // n; returns a pointer to the new front.
  uint8_t* Push(size_t n);
  // Removes n bytes from the front; offsets that fall off become unset.
  void Pull(size_t n);
  // Appends bytes at the tail; `p` must not point into this packet.
  void Put(const uint8_t* p, size_t n);
  // Makes room for a packet of n bytes, so Puts up to that do not reallocate.
  void Reserve(size_t n);
  // Truncates or zero-extends the tail.
  void Resize(size_t n);

  // Shared tail. The head is the contiguous part in front of it (all of the
  // packet when there is no tail).
  bool has_tail() const { return !tail_.empty(); }
  const Rope& tail() const { return tail_; }
  size_t head_size() const { return len_; }
  uint8_t* head() { return buf_.data() + head_; }
  const uint8_t* head() const { return buf_.data() + head_; }
  // The head, made to hold at least the first min(n, size()) bytes (copying
  // the tail in when it does not): for reading or writing headers that end
  // before byte n without touching a shared payload.
  uint8_t* Linear(size_t n) {
    if (n > len_ && has_tail()) Linearize();
    return head();
  }
  const uint8_t* Linear(size_t n) const {
    if (n > len_ && has_tail()) Linearize();
    return head();
  }
  // Copies the tail into the head.
  void Linearize() const {
    if (has_tail()) LinearizeSlow();
  }
  // Appends `r` as shared bytes.
  void AppendTail(const Rope& r) { tail_.Append(r); }
  // Appends bytes [ofs, ofs + len) of `src`: the part in src's head copied,
  // the part in its tail shared.
  void AppendFrom(const Packet& src, size_t ofs, size_t len);
  // The head's bytes and the tail, leaving the packet empty.
  std::pair<Bytes, Rope> TakeSplit() &&;
  // The first `n` bytes copied out and the rest handed over as a shared tail
  // (the packet's own buffer becomes the payload buffer, nothing is moved),
  // leaving the packet empty: for headers read and rewritten apart from a
  // payload that is only passed on.
  std::pair<Bytes, Rope> TakeHeadShared(size_t n) &&;

  // Layer offsets from data(): outer L2 is always at 0.
  uint16_t l2_5_ofs = kNoOffset;  // first VLAN tag
  uint16_t l3_ofs = kNoOffset;
  uint16_t l4_ofs = kNoOffset;
  uint16_t inner_l2_ofs = kNoOffset;
  uint16_t inner_l3_ofs = kNoOffset;
  uint16_t inner_l4_ofs = kNoOffset;

  uint8_t* l3() { return Ptr(l3_ofs); }
  uint8_t* l4() { return Ptr(l4_ofs); }
  uint8_t* inner_l3() { return Ptr(inner_l3_ofs); }
  uint8_t* inner_l4() { return Ptr(inner_l4_ofs); }
  const uint8_t* l3() const { return Ptr(l3_ofs); }
  const uint8_t* l4() const { return Ptr(l4_ofs); }
  const uint8_t* inner_l3() const { return Ptr(inner_l3_ofs); }
  const uint8_t* inner_l4() const { return Ptr(inner_l4_ofs); }
  // Bytes from the offset to the end of the packet (0 if unset).
  size_t SizeFrom(uint16_t ofs) const {
    return ofs == kNoOffset || ofs > size() ? 0 : size() - ofs;
  }

  Offloads offloads;
  uint16_t tso_segsz = 0;  // 0 = not a TSO packet
  PacketMetadata md;

  void ResetOffsets() {
    l2_5_ofs = l3_ofs = l4_ofs = kNoOffset;
    inner_l2_ofs = inner_l3_ofs = inner_l4_ofs = kNoOffset;
  }
  // The same bytes (head and shared tail) with every layer offset, offload
  // and metadata field back to a new packet's: for a frame that enters a
  // different stack (a guest's frame becoming a fresh skb).
  Packet WithBytesOnly() && {
    ResetOffsets();
    ResetOffload();
    tso_segsz = 0;
    md = PacketMetadata{};
    return std::move(*this);
  }
  // dp_packet_reset_offload: offloads cleared together with hash and mark.
  void ResetOffload() {
    offloads.Reset();
    md.hash = 0;
    md.has_hash = false;
    md.mark = 0;
  }

 private:
  uint8_t* Ptr(uint16_t ofs) { return ofs == kNoOffset || ofs > size() ? nullptr : data() + ofs; }
  const uint8_t* Ptr(uint16_t ofs) const {
    return ofs == kNoOffset || ofs > size() ? nullptr : data() + ofs;
  }
  void ShiftOffsets(long delta);
  void LinearizeSlow() const;
};

// One's-complement sum of bytes [ofs, ofs + len) of `p`, added to `sum` as
// csum::Partial would for the contiguous bytes (and metered the same way),
// without copying a shared tail in: its slices' sums are reused.
uint64_t PartialSum(const Packet& p, size_t ofs, size_t len, uint64_t sum = 0);

using PacketBatch = std::vector<Packet>;

// A batch of one, moved in (a braced list would copy the packet).
inline PacketBatch OneBatch(Packet&& p) {
  PacketBatch b;
  b.push_back(std::move(p));
  return b;
}

}  // namespace offlab
