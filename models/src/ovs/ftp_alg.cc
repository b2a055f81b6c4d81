#include "offlab/ovs/ftp_alg.h"

#include <cstdio>
#include <cstring>
#include <string>

#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/net/headers.h"
#include "offlab/ovs/complete.h"
#include "offlab/ovs/rewrite.h"

namespace offlab {

namespace {

bool TcpIpv4(const Packet& p) {
  return p.l3() && p.l4() && (p.l3()[0] >> 4) == 4 &&
         UpperProtocol(p, p.l3_ofs, p.l4_ofs) == hdr::kProtoTcp &&
         L4Length(p, p.l3_ofs, p.l4_ofs) >= hdr::kTcpMinLen;
}

}  // namespace

int FtpRewritePort(Packet& p, const std::array<uint8_t, 4>& addr) {
  if (!TcpIpv4(p)) return 0;
  const size_t l4_len = L4Length(p, p.l3_ofs, p.l4_ofs);
  const size_t thl = (p.l4()[hdr::kTcpOffFlagsOfs] >> 4) * 4u;
  if (thl < hdr::kTcpMinLen || thl > l4_len) return 0;
  const size_t pay = p.l4_ofs + thl, pay_len = l4_len - thl;
  const std::string text(reinterpret_cast<const char*>(p.data() + pay), pay_len);
  unsigned h[4], port[2];
  int used = 0;
  if (text.rfind("PORT ", 0) != 0 ||
      std::sscanf(text.c_str(), "PORT %u,%u,%u,%u,%u,%u%n", &h[0], &h[1], &h[2], &h[3], &port[0],
                  &port[1], &used) != 6 ||
      text.compare(static_cast<size_t>(used), 2, "\r\n") != 0) {
    return 0;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "PORT %u,%u,%u,%u,%u,%u", addr[0], addr[1], addr[2], addr[3],
                port[0], port[1]);
  const std::string repl = buf;
  const size_t end = pay + static_cast<size_t>(used);
  const Bytes tail(p.data() + end, p.data() + p.size());
  const int delta = static_cast<int>(repl.size()) - used;
  p.Resize(pay + repl.size() + tail.size());
  std::memcpy(p.data() + pay, repl.data(), repl.size());
  std::memcpy(p.data() + pay + repl.size(), tail.data(), tail.size());

  // The IPv4 total length changed: rule M on the header checksum.
  uint8_t* ip = p.l3();
  const uint16_t old_len = GetBe16(ip + hdr::kIpv4TotLenOfs);
  const uint16_t new_len = static_cast<uint16_t>(old_len + delta);
  PutBe16(ip + hdr::kIpv4TotLenOfs, new_len);
  if (IsValid(p.offloads.ip())) {
    p.offloads.set_ip(CsumStatus::kPartial);
  } else {
    const uint16_t c = GetBe16(ip + hdr::kIpv4CsumOfs);
    PutBe16(ip + hdr::kIpv4CsumOfs, csum::Update16(c, old_len, new_len));
  }
  // The payload changed: partial if valid, else recomputed in full.
  if (IsValid(p.offloads.l4())) {
    p.offloads.set_l4(CsumStatus::kPartial);
  } else {
    const CsumStatus kept = p.offloads.l4();
    CompleteL4Csum(p, Level::kOuter, L4Proto::kTcp);
    p.offloads.set_l4(kept);
  }
  return delta;
}

void FtpAdjustSeq(Packet& p, int32_t seq_delta, int32_t ack_delta) {
  if (!TcpIpv4(p) || (!seq_delta && !ack_delta)) return;
  uint8_t* t = p.l4();
  const size_t len = L4Length(p, p.l3_ofs, p.l4_ofs);
  auto move = [&](size_t ofs, int32_t delta) {
    if (!delta) return;
    uint8_t old_b[4], new_b[4];
    std::memcpy(old_b, t + ofs, 4);
    PutBe32(new_b, GetBe32(old_b) + static_cast<uint32_t>(delta));
    UpdateL4Word(p, hdr::kProtoTcp, t, len, old_b, new_b, 4, false);
    std::memcpy(t + ofs, new_b, 4);
  };
  move(hdr::kTcpSeqOfs, seq_delta);
  move(hdr::kTcpAckOfs, ack_delta);
}

}  // namespace offlab
