#include "offlab/net/payload.h"

#include <algorithm>
#include <cstring>

#include "offlab/net/checksum.h"

namespace offlab {

bool AllZeroBytes(const uint8_t* p, size_t n) {
  // Compared with zeros by the C library's vectorised memcmp: this runs
  // over whole TSO payloads.
  static const uint8_t kZeros[4096] = {};
  while (n) {
    const size_t k = std::min(n, sizeof kZeros);
    if (std::memcmp(p, kZeros, k) != 0) return false;
    p += k;
    n -= k;
  }
  return true;
}

template <typename Fn>
void Rope::ForEach(size_t ofs, size_t len, Fn&& fn) const {
  size_t pos = 0;
  for (size_t i = 0; i < n_ && len; i++) {
    const Slice& s = slice(i);
    if (ofs >= pos + s.len) {
      pos += s.len;
      continue;
    }
    const size_t skip = ofs - pos;
    const size_t take = std::min(s.len - skip, len);
    fn(s, s.ofs + skip, take);
    ofs += take;
    len -= take;
    pos += s.len;
  }
}

PayloadRef PayloadBuf::Own(Bytes&& bytes) {
  auto* b = new PayloadBuf();
  b->bytes_ = std::move(bytes);
  return PayloadRef(b);
}

PayloadRef PayloadBuf::Copy(const uint8_t* p, size_t n) { return Own(Bytes(p, p + n)); }

PayloadRef PayloadBuf::Zeros(size_t n) {
  static PayloadRef zeros;
  if (!zeros || zeros->size() < n) {
    // Packets still referring to a smaller one keep it alive.
    auto* b = new PayloadBuf();
    b->bytes_.assign(std::max<size_t>(n, 65536), 0);
    b->zero_ = 1;
    zeros = PayloadRef(b);
  }
  return zeros;
}

bool PayloadBuf::AllZero() const {
  if (zero_ < 0) zero_ = AllZeroBytes(bytes_.data(), bytes_.size()) ? 1 : 0;
  return zero_ == 1;
}

uint16_t PayloadBuf::SliceSum(size_t ofs, size_t len) const {
  if (zero_ == 1) return 0;
  // Slices are mostly asked for in increasing order (segments of one TSO
  // packet), so the list stays sorted by offset and is searched in it.
  auto it = std::lower_bound(sums_.begin(), sums_.end(), ofs,
                             [](const Cached& c, size_t o) { return c.ofs < o; });
  for (auto j = it; j != sums_.end() && j->ofs == ofs; ++j) {
    if (j->len == len) return j->sum;
  }
  const uint16_t s = csum::Unmetered(bytes_.data() + ofs, len);
  sums_.insert(it, Cached{ofs, len, s});
  return s;
}

void Rope::Append(Slice s) {
  if (s.len == 0) return;
  size_ += s.len;
  if (n_) {
    Slice& last = at(n_ - 1);
    if (last.buf == s.buf && last.ofs + last.len == s.ofs) {
      last.len += s.len;
      return;
    }
  }
  if (n_ == 0) {
    first_ = std::move(s);
  } else {
    more_.push_back(std::move(s));
  }
  n_++;
}

void Rope::Append(const Rope& r) {
  for (size_t i = 0; i < r.n_; i++) Append(r.slice(i));
}

Rope Rope::Sub(size_t ofs, size_t len) const {
  Rope out;
  ForEach(ofs, len, [&](const Slice& s, size_t from, size_t n) {
    out.Append(Slice{s.buf, from, n});
  });
  return out;
}

void Rope::Truncate(size_t n) {
  if (n >= size_) return;
  if (n == 0) {
    Clear();
    return;
  }
  size_t pos = 0;
  for (size_t i = 0; i < n_; i++) {
    Slice& s = at(i);
    if (pos + s.len >= n) {
      s.len = n - pos;
      n_ = i + 1;
      more_.resize(n_ - 1);
      break;
    }
    pos += s.len;
  }
  size_ = n;
}

void Rope::Clear() {
  first_ = Slice();
  more_.clear();
  n_ = 0;
  size_ = 0;
}

void Rope::CopyTo(uint8_t* dst, size_t ofs, size_t len) const {
  ForEach(ofs, len, [&](const Slice& s, size_t from, size_t n) {
    std::memcpy(dst, s.buf->data() + from, n);
    dst += n;
  });
}

bool Rope::AllZero(size_t ofs, size_t len) const {
  bool zero = true;
  ForEach(ofs, len, [&](const Slice& s, size_t from, size_t n) {
    zero = zero && (s.buf->AllZero() || AllZeroBytes(s.buf->data() + from, n));
  });
  return zero;
}

uint64_t Rope::Sum(size_t ofs, size_t len, bool odd) const {
  uint64_t sum = 0;
  ForEach(ofs, len, [&](const Slice& s, size_t from, size_t n) {
    const uint16_t piece = s.buf->SliceSum(from, n);
    sum += odd ? csum::Swapped(piece) : piece;
    odd ^= (n & 1) != 0;
  });
  return sum;
}

}  // namespace offlab
