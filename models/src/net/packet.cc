#include "offlab/net/packet.h"

#include <algorithm>
#include <cstring>

#include "offlab/net/checksum.h"
#include "offlab/net/work.h"

namespace offlab {

Packet::Packet(const uint8_t* data, size_t len, size_t headroom) {
  head_ = headroom;
  len_ = len;
  if (!len || !data) {
    buf_.resize(headroom + len);  // null: zero-filled
    return;
  }
  // Only the headroom is zeroed: filling the frame first would write it twice.
  buf_.reserve(headroom + len);
  buf_.resize(headroom);
  buf_.insert(buf_.end(), data, data + len);
}

Packet Packet::Adopt(Bytes&& bytes) {
  Packet p(nullptr, 0, 0);
  p.len_ = bytes.size();
  p.buf_ = std::move(bytes);
  return p;
}

void Packet::LinearizeSlow() const {
  const size_t end = head_ + len_;
  buf_.resize(end + tail_.size());
  tail_.CopyTo(buf_.data() + end);
  len_ += tail_.size();
  tail_.Clear();
}

Bytes Packet::bytes() const {
  Bytes out;
  out.reserve(size());
  out.assign(head(), head() + len_);
  if (has_tail()) {
    out.resize(size());
    tail_.CopyTo(out.data() + len_);
  }
  return out;
}

Bytes Packet::TakeBytes() && {
  Linearize();
  if (head_) std::memmove(buf_.data(), buf_.data() + head_, len_);
  buf_.resize(len_);
  head_ = len_ = 0;
  return std::move(buf_);
}

std::pair<Bytes, Rope> Packet::TakeSplit() && {
  Rope tail = std::move(tail_);
  tail_.Clear();
  return {std::move(*this).TakeBytes(), std::move(tail)};
}

std::pair<Bytes, Rope> Packet::TakeHeadShared(size_t n) && {
  if (has_tail() || n >= len_) return std::move(*this).TakeSplit();
  Bytes head(buf_.begin() + static_cast<std::ptrdiff_t>(head_),
             buf_.begin() + static_cast<std::ptrdiff_t>(head_ + n));
  const size_t ofs = head_ + n, rest = len_ - n;
  Rope tail;
  tail.Append(Slice{PayloadBuf::Own(std::move(buf_)), ofs, rest});
  buf_.clear();
  head_ = len_ = 0;
  return {std::move(head), std::move(tail)};
}

void Packet::AppendFrom(const Packet& src, size_t ofs, size_t len) {
  const size_t end = std::min(ofs + len, src.size());
  if (ofs >= end) return;
  if (ofs < src.len_) {
    const size_t n = std::min(end, src.len_) - ofs;
    if (has_tail()) {
      tail_.Append(Slice{PayloadBuf::Copy(src.head() + ofs, n), 0, n});
    } else {
      Put(src.head() + ofs, n);
    }
  }
  if (end > src.len_) {
    const size_t from = std::max(ofs, src.len_) - src.len_;
    tail_.Append(src.tail_.Sub(from, end - src.len_ - from));
  }
}

void Packet::ShiftOffsets(long delta) {
  for (uint16_t* ofs : {&l2_5_ofs, &l3_ofs, &l4_ofs, &inner_l2_ofs, &inner_l3_ofs, &inner_l4_ofs}) {
    if (*ofs == kNoOffset) continue;
    long v = static_cast<long>(*ofs) + delta;
    *ofs = (v < 0 || v >= kNoOffset) ? kNoOffset : static_cast<uint16_t>(v);
  }
}

uint8_t* Packet::Push(size_t n) {
  if (head_ < n) {
    // Grow headroom generously so repeated encapsulation does not copy again.
    size_t extra = std::max<size_t>(n - head_, kDefaultHeadroom);
    buf_.insert(buf_.begin(), extra, 0);
    head_ += extra;
  }
  head_ -= n;
  len_ += n;
  ShiftOffsets(static_cast<long>(n));
  return head();
}

void Packet::Pull(size_t n) {
  n = std::min(n, size());
  if (n > len_) Linearize();
  head_ += n;
  len_ -= n;
  ShiftOffsets(-static_cast<long>(n));
}

void Packet::Put(const uint8_t* p, size_t n) {
  Linearize();
  // Copied once: resizing first would zero-fill what the copy overwrites.
  const size_t end = head_ + len_;
  const size_t fit = std::min(n, buf_.size() - end);
  if (fit) std::memcpy(buf_.data() + end, p, fit);
  if (n > fit) buf_.insert(buf_.end(), p + fit, p + n);
  len_ += n;
}

void Packet::Reserve(size_t n) {
  // The head of a packet with a shared tail does not grow into the payload.
  if (!has_tail()) buf_.reserve(head_ + n);
}

void Packet::Resize(size_t n) {
  if (has_tail() && n == size()) return;
  if (has_tail() && n < size()) {
    // Cutting shared bytes off is cutting the rope.
    if (n >= len_) {
      tail_.Truncate(n - len_);
      return;
    }
    tail_.Clear();
  }
  Linearize();
  if (head_ + n > buf_.size()) buf_.resize(head_ + n, 0);
  if (n > len_) std::memset(buf_.data() + head_ + len_, 0, n - len_);
  len_ = n;
}

uint64_t PartialSum(const Packet& p, size_t ofs, size_t len, uint64_t sum) {
  if (!p.has_tail()) return csum::Partial(p.head() + ofs, len, sum);
  work::Csum(len);
  const size_t head = p.head_size();
  size_t in_head = 0;
  if (ofs < head) {
    in_head = std::min(len, head - ofs);
    sum += csum::Unmetered(p.head() + ofs, in_head);
  }
  if (len > in_head) {
    const size_t from = ofs + in_head - head;
    sum += p.tail().Sum(from, len - in_head, (in_head & 1) != 0);
  }
  return sum;
}

}  // namespace offlab
