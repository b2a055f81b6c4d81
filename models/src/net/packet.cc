#include "offlab/net/packet.h"

#include <algorithm>
#include <cstring>

namespace offlab {

Packet::Packet(const uint8_t* data, size_t len, size_t headroom)
    : buf_(headroom + len), head_(headroom), len_(len) {
  if (len && data) std::memcpy(buf_.data() + head_, data, len);  // null: zero-filled
}

Packet Packet::Adopt(Bytes&& bytes) {
  Packet p(nullptr, 0, 0);
  p.len_ = bytes.size();
  p.buf_ = std::move(bytes);
  return p;
}

Bytes Packet::TakeBytes() && {
  if (head_) std::memmove(buf_.data(), buf_.data() + head_, len_);
  buf_.resize(len_);
  head_ = len_ = 0;
  return std::move(buf_);
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
  return data();
}

void Packet::Pull(size_t n) {
  n = std::min(n, len_);
  head_ += n;
  len_ -= n;
  ShiftOffsets(-static_cast<long>(n));
}

void Packet::Put(const uint8_t* p, size_t n) {
  // Copied once: resizing first would zero-fill what the copy overwrites.
  const size_t end = head_ + len_;
  const size_t fit = std::min(n, buf_.size() - end);
  if (fit) std::memcpy(buf_.data() + end, p, fit);
  if (n > fit) buf_.insert(buf_.end(), p + fit, p + n);
  len_ += n;
}

void Packet::Reserve(size_t n) { buf_.reserve(head_ + n); }

void Packet::Resize(size_t n) {
  if (head_ + n > buf_.size()) buf_.resize(head_ + n, 0);
  if (n > len_) std::memset(buf_.data() + head_ + len_, 0, n - len_);
  len_ = n;
}

}  // namespace offlab
