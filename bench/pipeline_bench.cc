// Packets per second through VXLAN push + netdev_send (TSO policy and
// send-prepare) for a 1500-byte packet and a 64 KB TSO packet, against three
// NIC capability sets measured side by side in one run: no offloads
// (everything in software), checksum + TSO offloads without outer UDP (the
// payload-independent outer checksum), and full tunnel offload.
// Usage: pipeline_bench [--quick]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/nic/caps.h"
#include "offlab/ovs/egress.h"
#include "offlab/ovs/flow.h"
#include "offlab/ovs/parse.h"
#include "offlab/ovs/tunnel.h"

using namespace offlab;

namespace {

// Ethernet/IPv4/TCP with `payload` bytes, as a guest hands it over: checksums
// partial, TSO when larger than one MSS.
Packet GuestPacket(size_t payload, uint16_t mss) {
  Bytes f = FromHex(
      "0a8f394fe0738abf7e2f05840800"
      "4500000000004000400600000a0000010a000002"
      "d4781451000000010000000150100200 00000000");
  f.resize(f.size() + payload, 0x5a);
  PutBe16(&f[16], static_cast<uint16_t>(f.size() - 14));
  Packet p(f);
  Parse(p);
  p.offloads.set_ip(CsumStatus::kPartial);
  p.offloads.set_l4(CsumStatus::kPartial);
  if (payload > mss) p.tso_segsz = mss;
  return p;
}

double Run(const Packet& tmpl, const TunnelConfig& t, uint32_t caps, double seconds,
           size_t* frames_out) {
  using clock = std::chrono::steady_clock;
  size_t n = 0, frames = 0;
  auto start = clock::now();
  auto deadline = start + std::chrono::duration<double>(seconds);
  while (clock::now() < deadline) {
    for (int i = 0; i < 64; i++) {
      PacketBatch b{tmpl};
      PushHeader(b, t, nullptr);
      PacketBatch out = NetdevSend(std::move(b), caps, nullptr, nullptr);
      frames += out.size();
      n++;
    }
  }
  double el = std::chrono::duration<double>(clock::now() - start).count();
  *frames_out = frames;
  return n / el;
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  const double secs = quick ? 0.2 : 1.0;
  TunnelConfig t;
  bool v6;
  t.type = TunnelType::kVxlan;
  t.ip_src = ParseIp("1.1.2.88", &v6);
  t.ip_dst = ParseIp("1.1.2.92", &v6);
  t.key = 123;
  t.csum = true;
  struct NicCase {
    const char* name;
    uint32_t caps;
  } nics[] = {
      {"no offloads (all software)", 0},
      {"csum+TSO, no outer UDP", cap::kIpv4Cksum | cap::kTcpCksum | cap::kUdpCksum | cap::kTcpTso |
                                     cap::kVxlanTnlTso | cap::kOuterIpCksum},
      {"full tunnel offload", cap::kAll},
  };
  struct PktCase {
    const char* name;
    Packet p;
  } pkts[] = {{"1500 B", GuestPacket(1448, 1448)}, {"64 KB TSO", GuestPacket(63712, 1448)}};

  std::printf("VXLAN push + send-prepare, outer UDP checksum on (%.1f s per cell)\n", secs);
  std::printf("%-10s %-28s %14s %12s %10s %12s\n", "packet", "NIC", "packets/s", "frames/pkt",
              "Gbit/s", "vs software");
  for (auto& pc : pkts) {
    double base = 0;
    for (auto& nc : nics) {
      size_t frames = 0;
      double pps = Run(pc.p, t, nc.caps, secs, &frames);
      if (nc.caps == 0) base = pps;
      double gbps = pps * pc.p.size() * 8 / 1e9;
      size_t pkts_run = static_cast<size_t>(pps * secs);
      std::printf("%-10s %-28s %14.0f %12.1f %10.2f %11.2fx\n", pc.name, nc.name, pps,
                  pkts_run ? static_cast<double>(frames) / pkts_run : 0.0, gbps, pps / base);
    }
  }
  return 0;
}
