// Payload bytes shared by several packets instead of copied into each: the
// frames cut from one TSO packet, or the segments a receiver coalesces back,
// refer to slices of one immutable buffer. A Packet may end in such a rope of
// slices (its "tail"); whatever reads the bytes directly makes them its own
// first (Packet::data() does), so sharing never changes what anything sees.
//
// One's-complement sums of a slice are remembered by its buffer: the sending
// NIC's checksum, the receiving NIC's validation and a guest's verification
// of the same segment sum its payload once. Sums are byte-order independent
// and additive (RFC 1071 section 2), so a region's sum is the sum of its
// pieces, a piece at an odd offset contributing its sum byte-swapped.
//
// Not thread-safe: a buffer and the packets sharing it belong to one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "offlab/net/bytes.h"

namespace offlab {

// Whether the n bytes at p are all zero.
bool AllZeroBytes(const uint8_t* p, size_t n);

class PayloadRef;

class PayloadBuf {
 public:
  // Takes over `bytes`.
  static PayloadRef Own(Bytes&& bytes);
  static PayloadRef Copy(const uint8_t* p, size_t n);
  // A buffer of at least `n` zero bytes, shared by every caller.
  static PayloadRef Zeros(size_t n);

  const uint8_t* data() const { return bytes_.data(); }
  size_t size() const { return bytes_.size(); }
  // Whether every byte is zero: known for Zeros(), else read once and kept.
  bool AllZero() const;
  // Unmetered one's-complement sum of [ofs, ofs + len) read from its first
  // byte, folded to 16 bits as csum::Partial adds it; kept per slice.
  uint16_t SliceSum(size_t ofs, size_t len) const;

 private:
  friend class PayloadRef;
  struct Cached {
    size_t ofs, len;
    uint16_t sum;
  };
  Bytes bytes_;
  mutable size_t refs_ = 0;
  mutable int8_t zero_ = -1;  // -1: not read yet
  mutable std::vector<Cached> sums_;
};

// A counted reference to a PayloadBuf. The count is a plain integer, not an
// atomic one: every frame copies a few of these, and a locked increment per
// copy cost more than the rest of the bookkeeping (buffers are not shared
// between threads, see above).
class PayloadRef {
 public:
  PayloadRef() = default;
  explicit PayloadRef(const PayloadBuf* b) : p_(b) {
    if (p_) p_->refs_++;
  }
  PayloadRef(const PayloadRef& o) : p_(o.p_) {
    if (p_) p_->refs_++;
  }
  PayloadRef(PayloadRef&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  PayloadRef& operator=(PayloadRef o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  ~PayloadRef() {
    if (p_ && --p_->refs_ == 0) delete p_;
  }
  const PayloadBuf* get() const { return p_; }
  const PayloadBuf* operator->() const { return p_; }
  explicit operator bool() const { return p_ != nullptr; }
  bool operator==(const PayloadRef& o) const { return p_ == o.p_; }

 private:
  const PayloadBuf* p_ = nullptr;
};

struct Slice {
  PayloadRef buf;
  size_t ofs = 0, len = 0;
};

// Bytes as a sequence of shared slices. Appending a slice that continues the
// last one in the same buffer extends it, so a coalesced packet whose
// segments came from one TSO packet stays one slice.
class Rope {
 public:
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t count() const { return n_; }
  const Slice& slice(size_t i) const { return i == 0 ? first_ : more_[i - 1]; }

  void Append(Slice s);
  void Append(const Rope& r);
  // Bytes [ofs, ofs + len) of this rope (clipped to its size).
  Rope Sub(size_t ofs, size_t len) const;
  // Keeps the first n bytes.
  void Truncate(size_t n);
  void Clear();
  // Copies bytes [ofs, ofs + len) to `dst`.
  void CopyTo(uint8_t* dst, size_t ofs, size_t len) const;
  void CopyTo(uint8_t* dst) const { CopyTo(dst, 0, size_); }
  // Whether bytes [ofs, ofs + len) are all zero.
  bool AllZero(size_t ofs, size_t len) const;
  // Unmetered one's-complement contribution of bytes [ofs, ofs + len) to a
  // sum in which byte `ofs` sits at an odd position when `odd` is set.
  uint64_t Sum(size_t ofs, size_t len, bool odd) const;

 private:
  Slice& at(size_t i) { return i == 0 ? first_ : more_[i - 1]; }
  // Calls fn(slice, first byte in its buffer, bytes) for the pieces of [ofs, ofs + len).
  template <typename Fn>
  void ForEach(size_t ofs, size_t len, Fn&& fn) const;

  // Most ropes are one slice (a segment's payload, or segments coalesced
  // back from one TSO packet): it is kept inline, without an allocation.
  Slice first_;
  std::vector<Slice> more_;
  size_t n_ = 0;
  size_t size_ = 0;
};

}  // namespace offlab
