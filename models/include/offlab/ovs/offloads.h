// The checksum/offload status word of a packet, in Open vSwitch's exact bit
// layout (lib/dp-packet.h `dp_packet::offloads`, OVS >= 3.6): per checksum a
// GOOD/BAD bit pair, L4 protocol and tunnel type bits; outer = low 16 bits,
// inner = outer << 16.
#pragma once

#include <cstdint>
#include <string>

namespace offlab {

namespace ol {
constexpr uint32_t kL4CksumBad = 1u << 3;
constexpr uint32_t kIpCksumBad = 1u << 4;
constexpr uint32_t kIpCksumGood = 1u << 7;
constexpr uint32_t kL4CksumGood = 1u << 8;
constexpr uint32_t kL4ProtoTcp = 1u << 9;
constexpr uint32_t kL4ProtoUdp = 1u << 10;
constexpr uint32_t kTunnelGeneve = 1u << 11;
constexpr uint32_t kTunnelVxlan = 1u << 12;
constexpr unsigned kShift = 16;  // DP_PACKET_OL_SHIFT_COUNT
constexpr uint32_t kInnerL4CksumBad = kL4CksumBad << kShift;
constexpr uint32_t kInnerIpCksumBad = kIpCksumBad << kShift;
constexpr uint32_t kInnerIpCksumGood = kIpCksumGood << kShift;
constexpr uint32_t kInnerL4CksumGood = kL4CksumGood << kShift;
constexpr uint32_t kInnerL4ProtoTcp = kL4ProtoTcp << kShift;
constexpr uint32_t kInnerL4ProtoUdp = kL4ProtoUdp << kShift;
constexpr uint32_t kTunnelMask = kTunnelGeneve | kTunnelVxlan;
}  // namespace ol

// (GOOD, BAD) = 00 unknown, 01 bad, 10 good, 11 partial: the enum value is
// (good << 1) | bad.
enum class CsumStatus : uint8_t { kUnknown = 0, kBad = 1, kGood = 2, kPartial = 3 };
enum class Csum : uint8_t { kIp, kL4 };
enum class Level : uint8_t { kOuter, kInner };
enum class L4Proto : uint8_t { kNone, kTcp, kUdp, kSctp };
enum class TunnelType : uint8_t { kNone, kGeneve, kVxlan, kGre };

const char* ToString(CsumStatus s);
const char* ToString(L4Proto p);
const char* ToString(TunnelType t);

// True for good or partial: the header was verified intact.
inline bool IsValid(CsumStatus s) { return s == CsumStatus::kGood || s == CsumStatus::kPartial; }

// A value type over the 32-bit word; every accessor is a pure bit operation
// so that the word round-trips exactly to and from OVS/DPDK encodings.
class Offloads {
 public:
  constexpr Offloads() = default;
  constexpr explicit Offloads(uint32_t word) : word_(word) {}
  constexpr uint32_t word() const { return word_; }
  void set_word(uint32_t w) { word_ = w; }

  CsumStatus status(Level level, Csum csum) const {
    uint32_t w = Shifted(level);
    uint32_t good = csum == Csum::kIp ? ol::kIpCksumGood : ol::kL4CksumGood;
    uint32_t bad = csum == Csum::kIp ? ol::kIpCksumBad : ol::kL4CksumBad;
    return static_cast<CsumStatus>(((w & good) ? 2 : 0) | ((w & bad) ? 1 : 0));
  }
  // set_good/set_bad clear the other bit, set_partial sets both, set_unknown
  // clears both: together that is "store the pair".
  void set_status(Level level, Csum csum, CsumStatus s) {
    unsigned sh = level == Level::kInner ? ol::kShift : 0;
    uint32_t good = (csum == Csum::kIp ? ol::kIpCksumGood : ol::kL4CksumGood) << sh;
    uint32_t bad = (csum == Csum::kIp ? ol::kIpCksumBad : ol::kL4CksumBad) << sh;
    word_ &= ~(good | bad);
    if (static_cast<uint8_t>(s) & 2) word_ |= good;
    if (static_cast<uint8_t>(s) & 1) word_ |= bad;
  }
  CsumStatus ip(Level l = Level::kOuter) const { return status(l, Csum::kIp); }
  CsumStatus l4(Level l = Level::kOuter) const { return status(l, Csum::kL4); }
  void set_ip(CsumStatus s, Level l = Level::kOuter) { set_status(l, Csum::kIp, s); }
  void set_l4(CsumStatus s, Level l = Level::kOuter) { set_status(l, Csum::kL4, s); }

  L4Proto l4_proto(Level level = Level::kOuter) const {
    uint32_t w = Shifted(level);
    bool tcp = w & ol::kL4ProtoTcp, udp = w & ol::kL4ProtoUdp;
    if (tcp && udp) return L4Proto::kSctp;
    if (tcp) return L4Proto::kTcp;
    if (udp) return L4Proto::kUdp;
    return L4Proto::kNone;
  }
  void set_l4_proto(L4Proto p, Level level = Level::kOuter) {
    unsigned sh = level == Level::kInner ? ol::kShift : 0;
    word_ &= ~((ol::kL4ProtoTcp | ol::kL4ProtoUdp) << sh);
    if (p == L4Proto::kTcp || p == L4Proto::kSctp) word_ |= ol::kL4ProtoTcp << sh;
    if (p == L4Proto::kUdp || p == L4Proto::kSctp) word_ |= ol::kL4ProtoUdp << sh;
  }

  TunnelType tunnel() const {
    bool g = word_ & ol::kTunnelGeneve, v = word_ & ol::kTunnelVxlan;
    if (g && v) return TunnelType::kGre;
    if (g) return TunnelType::kGeneve;
    if (v) return TunnelType::kVxlan;
    return TunnelType::kNone;
  }
  void set_tunnel(TunnelType t) {
    word_ &= ~ol::kTunnelMask;
    if (t == TunnelType::kGeneve || t == TunnelType::kGre) word_ |= ol::kTunnelGeneve;
    if (t == TunnelType::kVxlan || t == TunnelType::kGre) word_ |= ol::kTunnelVxlan;
  }
  bool tunnelled() const { return (word_ & ol::kTunnelMask) != 0; }

  // tnl_ol_push: the outer status and proto become inner, old inner bits are
  // shifted out (old tunnel bits land, unnamed, at 27/28).
  void ShiftForEncap() { word_ <<= ol::kShift; }
  // Decap: tnl_ol_pop shifts down, then netdev_pop_header resets to 0.
  void Reset() { word_ = 0; }

  bool operator==(const Offloads& o) const { return word_ == o.word_; }
  bool operator!=(const Offloads& o) const { return word_ != o.word_; }

  // e.g. "ip=good l4=partial proto=tcp | inner ip=... tunnel=vxlan"
  std::string Describe() const;

 private:
  uint32_t Shifted(Level level) const {
    return level == Level::kInner ? word_ >> ol::kShift : word_;
  }
  uint32_t word_ = 0;
};

}  // namespace offlab
