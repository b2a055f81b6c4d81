/* SPDX-License-Identifier: Apache-2.0 */

/*
 * offlab hw-replay: replays an offlab trace (docs/trace-format.md) onto a
 * DPDK port with per-packet offload requests, and checks what a port
 * receives against offlab's prediction for a NIC profile.
 *
 *   offlab-hw-replay [EAL options] -- tx    --trace FILE [--port P] [--loop N]
 *   offlab-hw-replay [EAL options] -- check --trace FILE [--port P]
 *                                           [--profile NIC] [--tx-profile NIC]
 *
 * TX mode: every tx record becomes mbufs with ol_flags, l2/l3/l4/outer
 * lengths and tso_segsz. Whatever the port's tx_offload_capa lacks is done in
 * software first by offlab's egress (NetdevSend: TSO policy, GSO,
 * send-prepare) for the port's capabilities mapped to offlab's; the rest is
 * requested from the NIC. Check mode: frames received on the port are
 * compared, bytes and RX ol_flags, with what offlab predicts for the sending
 * and the receiving NIC profile (NetdevSend + NicTransmit, NicReceive); a
 * mismatch table is printed and the exit status is 1 on any mismatch.
 *
 * Exit status: 0 success, 1 mismatch (check mode), 2 bad input or set-up
 * failure (one line on stderr naming the problem). A `tx_pcap=FILE` given to
 * a pcap vdev is written to a temporary file that is renamed to FILE only
 * when the run succeeds.
 *
 * docs/hw-replay.md has the runs on mlx5, ice and i40e.
 */

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "mbuf_meta.h"
#include "offlab/net/counters.h"
#include "offlab/net/dissect.h"
#include "offlab/net/error.h"
#include "offlab/net/headers.h"
#include "offlab/net/trace.h"
#include "offlab/nic/caps.h"
#include "offlab/nic/nic.h"
#include "offlab/nic/nic_profile.h"
#include "offlab/ovs/egress.h"
#include "offlab/ovs/pipeline.h"

using offlab::Bytes;
using offlab::CsumStatus;
using offlab::Error;
using offlab::Level;
using offlab::Packet;
using offlab::TunnelType;
namespace tracefile = offlab::trace;

namespace {

constexpr uint16_t kRingSize = 1024;
constexpr uint16_t kMaxBurst = 64;
constexpr unsigned kMbufCache = 256;
constexpr size_t kJumbo = 9216;  // the longest frame check mode sizes its mbufs for

/* Command line of the application (after the EAL's `--`). */
struct Options {
  std::string mode;  /* "tx" or "check" */
  std::string trace; /* --trace */
  std::string port = "0";
  std::string profile = "pcap"; /* check: the receiving NIC */
  std::string tx_profile;       /* check: the sending NIC (default: --profile) */
  uint64_t loop = 1;            /* tx: times the trace is sent */
  unsigned burst = 32;
  unsigned timeout_ms = 1000; /* check: stop after this long without a frame */
  bool verbose = false;
};

[[noreturn]] void Usage(const char* prog, int status) {
  std::fprintf(status ? stderr : stdout,
               "usage: %s [EAL options] -- tx|check --trace FILE [--port P]\n"
               "  tx:    [--loop N] [--burst N]\n"
               "  check: [--profile NIC] [--tx-profile NIC] [--timeout MS]\n"
               "  --verbose prints the EAL log\n",
               prog);
  std::exit(status);
}

uint64_t Number(const std::string& opt, const char* text, uint64_t lo, uint64_t hi) {
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(text, &end, 10);
  if (errno || end == text || *end || v < lo || v > hi) {
    throw Error(opt + " must be a number " + std::to_string(lo) + ".." + std::to_string(hi) +
                ", not '" + text + "'");
  }
  return v;
}

Options ParseOptions(int argc, char** argv, const char* prog) {
  Options o;
  for (int i = 0; i < argc; i++) {
    std::string a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) throw Error("option " + a + " needs a value");
      return argv[++i];
    };
    if (a == "-h" || a == "--help")
      Usage(prog, 0);
    else if (a == "tx" || a == "check")
      o.mode = a;
    else if (a == "--trace")
      o.trace = value();
    else if (a == "--port")
      o.port = value();
    else if (a == "--profile")
      o.profile = value();
    else if (a == "--tx-profile")
      o.tx_profile = value();
    else if (a == "--loop")
      o.loop = Number(a, value(), 1, UINT64_MAX);
    else if (a == "--burst")
      o.burst = static_cast<unsigned>(Number(a, value(), 1, kMaxBurst));
    else if (a == "--timeout")
      o.timeout_ms = static_cast<unsigned>(Number(a, value(), 1, 3600000));
    else if (a == "--verbose" || a == "-v")
      o.verbose = true;
    else
      throw Error("unknown option '" + a + "' (see --help)");
  }
  if (o.mode.empty()) throw Error("give a mode: tx or check (see --help)");
  if (o.trace.empty()) throw Error("--trace FILE is required");
  if (o.tx_profile.empty()) o.tx_profile = o.profile;
  return o;
}

/*
 * EAL log capture. The EAL logs to a memory stream so that the terminal shows
 * one line per problem; --verbose prints the log at exit.
 */
char* g_log_buf = nullptr;
size_t g_log_len = 0;
FILE* g_log = nullptr;

std::string LastLogLine() {
  if (!g_log) return "";
  std::fflush(g_log);
  std::string s(g_log_buf ? g_log_buf : "", g_log_len);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  size_t nl = s.rfind('\n');
  return nl == std::string::npos ? s : s.substr(nl + 1);
}

void DumpLog() {
  if (!g_log) return;
  std::fflush(g_log);
  if (g_log_len) std::fwrite(g_log_buf, 1, g_log_len, stderr);
}

/*
 * Atomic pcap output. Every `tx_pcap=FILE` of a vdev argument is rewritten
 * to a temporary file next to FILE; Publish() renames them once the run has
 * succeeded, Discard() removes them otherwise. `rx_pcap=FILE` must exist.
 */
struct PcapOutput {
  std::string final_path, tmp_path;
};
std::vector<PcapOutput> g_outputs;

void Discard() {
  for (const auto& o : g_outputs) std::remove(o.tmp_path.c_str());
  g_outputs.clear();
}

void Publish() {
  for (const auto& o : g_outputs) {
    if (std::rename(o.tmp_path.c_str(), o.final_path.c_str()) != 0) {
      throw Error("cannot rename " + o.tmp_path + " to " + o.final_path + ": " +
                  std::strerror(errno));
    }
  }
  g_outputs.clear();
}

std::string RewriteDevargs(const std::string& arg) {
  std::string out;
  size_t start = 0;
  while (start <= arg.size()) {
    size_t comma = arg.find(',', start);
    if (comma == std::string::npos) comma = arg.size();
    std::string kv = arg.substr(start, comma - start);
    if (kv.rfind("rx_pcap=", 0) == 0) {
      std::string path = kv.substr(8);
      struct stat st;
      if (stat(path.c_str(), &st) != 0) {
        throw Error("rx_pcap " + path + ": " + std::strerror(errno));
      }
    } else if (kv.rfind("tx_pcap=", 0) == 0 && kv.rfind("tx_pcap=/dev/", 0) != 0) {
      std::string path = kv.substr(8);
      size_t slash = path.rfind('/');
      std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
      std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
      std::string tmp = dir + "." + base + "." + std::to_string(getpid()) + ".tmp";
      g_outputs.push_back({path, tmp});
      kv = "tx_pcap=" + tmp;
    }
    out += (out.empty() && start == 0 ? "" : ",") + kv;
    start = comma + 1;
  }
  return out;
}

uint16_t ResolvePort(const std::string& name) {
  uint16_t id = RTE_MAX_ETHPORTS;
  if (!name.empty() && name.find_first_not_of("0123456789") == std::string::npos &&
      name.size() < 6) {
    id = static_cast<uint16_t>(std::stoul(name));
  } else if (rte_eth_dev_get_port_by_name(name.c_str(), &id) != 0) {
    id = RTE_MAX_ETHPORTS;
  }
  if (id < RTE_MAX_ETHPORTS && rte_eth_dev_is_valid_port(id)) return id;
  std::string avail;
  uint16_t p;
  RTE_ETH_FOREACH_DEV(p) {
    char dev[RTE_ETH_NAME_MAX_LEN];
    if (rte_eth_dev_get_name_by_port(p, dev) == 0) {
      avail += (avail.empty() ? "" : ", ") + std::to_string(p) + " " + dev;
    }
  }
  throw Error("unknown port '" + name + "' (available: " + (avail.empty() ? "none" : avail) + ")");
}

/*
 * Port initialisation, as in DPDK's examples/skeleton: configure one RX and
 * one TX queue, enabling the TX offloads offlab may request and the RX
 * checksum offloads the port has, then start it.
 */
void PortInit(uint16_t port, rte_mempool* pool, uint32_t* caps, bool* multi_seg) {
  rte_eth_dev_info info;
  int ret = rte_eth_dev_info_get(port, &info);
  if (ret != 0) throw Error("port " + std::to_string(port) + ": " + rte_strerror(-ret));

  rte_eth_conf conf{};
  *caps = hwreplay::OfflabCaps(info.tx_offload_capa);
  *multi_seg = info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
  conf.txmode.offloads =
      hwreplay::DpdkTxOffloads(*caps) | (*multi_seg ? RTE_ETH_TX_OFFLOAD_MULTI_SEGS : 0);
  // Scatter where offered: a frame longer than one mbuf is then read as a
  // chain instead of being truncated and dropped (DPDK v22.11.11
  // drivers/net/tap/rte_eth_tap.c:449-466).
  conf.rxmode.offloads =
      info.rx_offload_capa & (RTE_ETH_RX_OFFLOAD_CHECKSUM | RTE_ETH_RX_OFFLOAD_OUTER_IPV4_CKSUM |
                              RTE_ETH_RX_OFFLOAD_OUTER_UDP_CKSUM | RTE_ETH_RX_OFFLOAD_SCATTER);

  const uint16_t rxq = info.max_rx_queues ? 1 : 0;
  ret = rte_eth_dev_configure(port, rxq, 1, &conf);
  if (ret != 0) throw Error("port " + std::to_string(port) + ": configure: " + rte_strerror(-ret));
  uint16_t nb_rxd = kRingSize, nb_txd = kRingSize;
  ret = rte_eth_dev_adjust_nb_rx_tx_desc(port, &nb_rxd, &nb_txd);
  if (ret != 0)
    throw Error("port " + std::to_string(port) + ": descriptors: " + rte_strerror(-ret));
  const int socket = rte_eth_dev_socket_id(port);
  const unsigned sock = socket < 0 ? SOCKET_ID_ANY : static_cast<unsigned>(socket);
  if (rxq) {
    rte_eth_rxconf rxconf = info.default_rxconf;
    rxconf.offloads = conf.rxmode.offloads;
    ret = rte_eth_rx_queue_setup(port, 0, nb_rxd, sock, &rxconf, pool);
    if (ret < 0) throw Error("port " + std::to_string(port) + ": RX queue: " + rte_strerror(-ret));
  }
  rte_eth_txconf txconf = info.default_txconf;
  txconf.offloads = conf.txmode.offloads;
  ret = rte_eth_tx_queue_setup(port, 0, nb_txd, sock, &txconf);
  if (ret < 0) throw Error("port " + std::to_string(port) + ": TX queue: " + rte_strerror(-ret));
  ret = rte_eth_dev_start(port);
  if (ret < 0) throw Error("port " + std::to_string(port) + ": start: " + rte_strerror(-ret));
  rte_eth_promiscuous_enable(port); /* loopback cables carry any MAC; failure is harmless */
}

/* Per-port statistics, as `show port stats` prints them. */
void PrintPortStats(uint16_t port) {
  rte_eth_stats s;
  if (rte_eth_stats_get(port, &s) != 0) return;
  char name[RTE_ETH_NAME_MAX_LEN] = "?";
  rte_eth_dev_get_name_by_port(port, name);
  std::printf("port %u (%s): rx %" PRIu64 " pkts %" PRIu64 " bytes, missed %" PRIu64
              ", errors %" PRIu64 "; tx %" PRIu64 " pkts %" PRIu64 " bytes, errors %" PRIu64 "\n",
              port, name, s.ipackets, s.ibytes, s.imissed, s.ierrors, s.opackets, s.obytes,
              s.oerrors);
}

/* >8 TX mode. */
int RunTx(const Options& opt, const std::vector<tracefile::Record>& trace, uint16_t port,
          rte_mempool* pool, uint32_t caps, bool multi_seg) {
  /*
   * Software part: offlab's egress for the port's capabilities completes
   * what the port cannot do; each resulting packet becomes one template
   * mbuf, prepared once for the driver (rte_eth_tx_prepare writes e.g. the
   * pseudo-header seeds Intel NICs need). Sending takes a reference on the
   * template, so the transmit loop copies nothing.
   */
  std::vector<rte_mbuf*> templates;
  offlab::Counters counters;
  size_t records = 0;
  uint64_t requested = 0;
  struct Cleanup {
    std::vector<rte_mbuf*>& t;
    ~Cleanup() {
      for (rte_mbuf* m : t) rte_pktmbuf_free(m);
    }
  } cleanup{templates};
  for (size_t i = 0; i < trace.size(); i++) {
    const tracefile::Record& r = trace[i];
    if (r.role != tracefile::Role::kTx) continue;
    records++;
    const std::string what = "trace " + opt.trace + ": packet " + std::to_string(i + 1);
    std::vector<std::string> errors;
    offlab::PacketBatch ready;
    try {
      ready = offlab::NetdevSend({r.ToPacket()}, caps, &counters, &errors);
    } catch (const Error& e) {
      throw Error(what + ": metadata the port cannot honour: " + e.what());
    }
    if (!errors.empty()) {
      throw Error(what + ": metadata the port cannot honour: " + errors.front());
    }
    for (const Packet& p : ready) {
      const hwreplay::TxMeta m = hwreplay::MbufMeta(p, caps);
      if (m.ol_flags) requested++;
      rte_mbuf* mb = hwreplay::BuildMbuf(pool, p.bytes(), m, multi_seg, what);
      templates.push_back(mb);
      if (rte_eth_tx_prepare(port, 0, &mb, 1) != 1) {
        throw Error(what + ": the driver rejects the offload request (" + rte_strerror(rte_errno) +
                    ")");
      }
    }
  }
  if (templates.empty()) throw Error("trace " + opt.trace + ": no tx record to replay");

  /* Transmit loop: bursts of references to the templates, in trace order. */
  rte_mbuf* burst[kMaxBurst];
  uint64_t sent = 0;
  const uint64_t total = opt.loop * templates.size();
  size_t next = 0;
  const uint64_t start = rte_get_tsc_cycles();
  while (sent < total) {
    const unsigned n = static_cast<unsigned>(std::min<uint64_t>(opt.burst, total - sent));
    for (unsigned k = 0; k < n; k++) {
      rte_mbuf* m = templates[next];
      for (rte_mbuf* s = m; s; s = s->next) rte_mbuf_refcnt_update(s, 1);
      burst[k] = m;
      next = next + 1 == templates.size() ? 0 : next + 1;
    }
    unsigned done = 0;
    while (done < n)
      done += rte_eth_tx_burst(port, 0, burst + done, static_cast<uint16_t>(n - done));
    sent += n;
  }
  const double secs =
      static_cast<double>(rte_get_tsc_cycles() - start) / static_cast<double>(rte_get_tsc_hz());

  std::printf("replay: %zu tx records -> %zu frames (%" PRIu64
              " with hardware offload requests; port caps: %s)\n",
              records, templates.size(), requested,
              caps ? offlab::CapsToString(caps).c_str() : "none");
  for (const auto& [name, value] : counters.values()) {
    std::printf("  software: %s %" PRIu64 "\n", name.c_str(), value);
  }
  std::printf("replay: sent %" PRIu64 " frames in %.6f s: %.0f pps\n", sent, secs,
              secs > 0 ? static_cast<double>(sent) / secs : 0.0);
  PrintPortStats(port);
  return 0;
}
/* >8 End of TX mode. */

/*
 * RX ol_flags as checksum statuses. For a tunnelled frame on a NIC that
 * validates inside the tunnel, RX_IP/RX_L4 describe the inner headers and the
 * OUTER flags the outer ones (lib/mbuf/rte_mbuf_core.h); otherwise RX_IP/RX_L4
 * describe the outer headers.
 */
CsumStatus RxStatus(uint64_t f, uint64_t mask, uint64_t good, uint64_t bad) {
  const uint64_t v = f & mask;
  if (v == (good | bad)) return CsumStatus::kPartial; /* *_CKSUM_NONE */
  if (v == good) return CsumStatus::kGood;
  if (v == bad) return CsumStatus::kBad;
  return CsumStatus::kUnknown;
}

offlab::RxStatus StatusFromFlags(uint64_t f, bool inner_validated) {
  offlab::RxStatus s;
  const CsumStatus ip = RxStatus(f, RTE_MBUF_F_RX_IP_CKSUM_MASK, RTE_MBUF_F_RX_IP_CKSUM_GOOD,
                                 RTE_MBUF_F_RX_IP_CKSUM_BAD);
  const CsumStatus l4 = RxStatus(f, RTE_MBUF_F_RX_L4_CKSUM_MASK, RTE_MBUF_F_RX_L4_CKSUM_GOOD,
                                 RTE_MBUF_F_RX_L4_CKSUM_BAD);
  if (inner_validated) {
    s.inner_ip = ip;
    s.inner_l4 = l4;
    s.ip = (f & RTE_MBUF_F_RX_OUTER_IP_CKSUM_BAD) ? CsumStatus::kBad : CsumStatus::kUnknown;
    s.l4 = RxStatus(f, RTE_MBUF_F_RX_OUTER_L4_CKSUM_MASK, RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD,
                    RTE_MBUF_F_RX_OUTER_L4_CKSUM_BAD);
  } else {
    s.ip = ip;
    s.l4 = l4;
  }
  return s;
}

struct Mismatch {
  size_t frame;
  std::string field, expected, actual;
};

std::string Verdicts(const Bytes& frame) {
  std::string s;
  for (const auto& c : offlab::Dissect(frame).checksums) {
    if (!s.empty()) s += ' ';
    s.append(c.layer);
    if (c.depth) s += "@" + std::to_string(c.depth);
    s += ':';
    s += offlab::ToString(c.verdict);
  }
  return s.empty() ? "-" : s;
}

/* >8 Check mode. */
int RunCheck(const Options& opt, const std::vector<tracefile::Record>& trace, uint16_t port) {
  const offlab::NicProfile tx_prof = offlab::BuiltinProfile(opt.tx_profile);
  const offlab::NicProfile rx_prof = offlab::BuiltinProfile(opt.profile);

  /* The prediction: the frames a tx_prof port puts on the wire. */
  std::vector<Bytes> expected;
  for (size_t i = 0; i < trace.size(); i++) {
    if (trace[i].role != tracefile::Role::kTx) continue;
    std::vector<std::string> errors;
    try {
      for (offlab::Sent& f : offlab::SendThroughNic(trace[i].ToPacket(), "check", tx_prof.tx_caps,
                                                    offlab::NicTx::FromProfile(tx_prof), {},
                                                    nullptr, &errors, nullptr)) {
        expected.push_back(std::move(f.frame));
      }
    } catch (const Error& e) {
      throw Error("trace " + opt.trace + ": packet " + std::to_string(i + 1) + ": " + e.what());
    }
  }
  /* The trace's own RX expectations for this profile, by wire-record order. */
  std::vector<const tracefile::RxReport*> stated;
  for (const tracefile::Record& r : trace) {
    if (r.role != tracefile::Role::kWire) continue;
    auto it = r.rx.find(rx_prof.name);
    stated.push_back(it == r.rx.end() ? nullptr : &it->second);
  }

  /* Receive until every expected frame is in or the port stays idle. The
   * line below tells a sender on the other side (a test writing into a TAP
   * device) that the port is up. */
  std::printf("check: receiving on port %u, %zu frames expected\n", port, expected.size());
  std::fflush(stdout);
  std::vector<std::pair<Bytes, uint64_t>> got;
  rte_mbuf* bufs[kMaxBurst];
  const uint64_t hz = rte_get_tsc_hz();
  uint64_t last = rte_get_tsc_cycles();
  while (true) {
    const uint16_t n = rte_eth_rx_burst(port, 0, bufs, kMaxBurst);
    for (uint16_t k = 0; k < n; k++) {
      Bytes b(rte_pktmbuf_pkt_len(bufs[k]));
      const void* d = rte_pktmbuf_read(bufs[k], 0, static_cast<uint32_t>(b.size()), b.data());
      if (d != b.data()) std::memcpy(b.data(), d, b.size());
      got.emplace_back(std::move(b), bufs[k]->ol_flags);
      rte_pktmbuf_free(bufs[k]);
    }
    if (n) last = rte_get_tsc_cycles();
    if (got.size() >= expected.size() && n == 0) break;
    if (rte_get_tsc_cycles() - last > hz * opt.timeout_ms / 1000) break;
  }

  /* Compare, frame by frame. */
  std::vector<Mismatch> bad;
  size_t flagged_bad = 0; /* frames the port's RX flags call bad */
  const size_t count = std::max(expected.size(), got.size());
  for (size_t j = 0; j < count; j++) {
    if (j >= got.size()) {
      bad.push_back({j + 1, "frame", std::to_string(expected[j].size()) + " B", "not received"});
      continue;
    }
    const auto& [bytes, flags] = got[j];
    if (j >= expected.size()) {
      bad.push_back({j + 1, "frame", "none", "unexpected " + std::to_string(bytes.size()) + " B"});
      continue;
    }
    if (bytes != expected[j]) {
      size_t at = 0;
      while (at < bytes.size() && at < expected[j].size() && bytes[at] == expected[j][at]) at++;
      bad.push_back({j + 1, "bytes (first difference at " + std::to_string(at) + ")",
                     std::to_string(expected[j].size()) + " B " + Verdicts(expected[j]),
                     std::to_string(bytes.size()) + " B " + Verdicts(bytes)});
    }
    /* What a receiving NIC of rx_prof reports for the bytes that arrived. */
    offlab::RxStatus want;
    offlab::NicReceive(bytes, rx_prof, &want);
    const offlab::RxValidation& v = rx_prof.rx_for(want.tunnel);
    const bool inner = want.tunnel != TunnelType::kNone && (v.inner_ip || v.inner_l4);
    const offlab::RxStatus have = StatusFromFlags(flags, inner);
    if (have.ip == CsumStatus::kBad || have.l4 == CsumStatus::kBad ||
        have.inner_ip == CsumStatus::kBad || have.inner_l4 == CsumStatus::kBad)
      flagged_bad++;
    /* DPDK has RX_OUTER_IP_CKSUM_BAD but no "good": a good outer IP header of
     * a frame validated inside the tunnel reads as unknown. */
    if (inner && want.ip == CsumStatus::kGood) want.ip = CsumStatus::kUnknown;
    const tracefile::RxReport* s = j < stated.size() ? stated[j] : nullptr;
    auto cmp = [&](const char* field, CsumStatus predicted, CsumStatus actual,
                   const CsumStatus* st) {
      if (predicted != actual) {
        bad.push_back({j + 1, std::string("rx ") + field + " (" + rx_prof.name + ")",
                       offlab::ToString(predicted), offlab::ToString(actual)});
      }
      if (st && *st != actual) {
        bad.push_back({j + 1, std::string("rx ") + field + " (trace)", offlab::ToString(*st),
                       offlab::ToString(actual)});
      }
    };
    cmp("ip", want.ip, have.ip, s ? &s->ip : nullptr);
    cmp("l4", want.l4, have.l4, s ? &s->l4 : nullptr);
    cmp("inner_ip", want.inner_ip, have.inner_ip, s ? &s->inner_ip : nullptr);
    cmp("inner_l4", want.inner_l4, have.inner_l4, s ? &s->inner_l4 : nullptr);
  }

  std::printf("check: %zu frames expected (sent by %s), %zu received, RX profile %s: ",
              expected.size(), tx_prof.name.c_str(), got.size(), rx_prof.name.c_str());
  PrintPortStats(port);
  std::printf("check: the port flagged %zu frames with a bad checksum\n", flagged_bad);
  if (bad.empty()) {
    std::printf("check: all %zu frames match the prediction\n", got.size());
    return 0;
  }
  std::printf("%-6s %-34s %-40s %s\n", "frame", "field", "expected", "actual");
  for (const Mismatch& m : bad) {
    std::printf("%-6zu %-34s %-40s %s\n", m.frame, m.field.c_str(), m.expected.c_str(),
                m.actual.c_str());
  }
  std::printf("check: %zu mismatches\n", bad.size());
  return 1;
}
/* >8 End of check mode. */

}  // namespace

int main(int argc, char** argv) {
  const char* prog = argv[0];
  /* Split at `--`: EAL arguments before, the application's after. */
  int split = argc;
  for (int i = 1; i < argc; i++) {
    if (std::strcmp(argv[i], "--") == 0) {
      split = i;
      break;
    }
  }
  bool eal_up = false;
  uint16_t port = RTE_MAX_ETHPORTS;
  rte_mempool* pool = nullptr;
  Options opt;
  int status = 2;
  try {
    opt = ParseOptions(argc - split - 1 > 0 ? argc - split - 1 : 0, argv + split + 1, prog);

    /* Validate the input before anything is created. */
    const std::vector<tracefile::Record> trace = tracefile::ReadTrace(opt.trace);
    if (opt.mode == "check") {
      offlab::BuiltinProfile(opt.profile);
      offlab::BuiltinProfile(opt.tx_profile);
    }
    std::vector<std::string> eal_args{prog};
    for (int i = 1; i < split; i++) {
      std::string a = argv[i];
      if (a.rfind("--vdev=", 0) == 0) a = "--vdev=" + RewriteDevargs(a.substr(7));
      if (i > 1 && (std::strcmp(argv[i - 1], "--vdev") == 0 || std::strcmp(argv[i - 1], "-a") == 0))
        a = RewriteDevargs(a);
      eal_args.push_back(a);
    }
    std::vector<char*> eal_argv;
    for (std::string& a : eal_args) eal_argv.push_back(a.data());
    eal_argv.push_back(nullptr);

    /* Initialise the EAL, its log captured. */
    g_log = open_memstream(&g_log_buf, &g_log_len);
    if (g_log) rte_openlog_stream(g_log);
    /* The EAL prints option errors and its usage on stdout/stderr: keep them
     * for --verbose and the error line. */
    std::fflush(stdout);
    std::fflush(stderr);
    FILE* eal_out = std::tmpfile();
    const int saved_out = dup(STDOUT_FILENO), saved_err = dup(STDERR_FILENO);
    if (eal_out) {
      dup2(fileno(eal_out), STDOUT_FILENO);
      dup2(fileno(eal_out), STDERR_FILENO);
    }
    const int eal_ret = rte_eal_init(static_cast<int>(eal_args.size()), eal_argv.data());
    const int eal_errno = rte_errno;
    std::fflush(stdout);
    std::fflush(stderr);
    dup2(saved_out, STDOUT_FILENO);
    dup2(saved_err, STDERR_FILENO);
    close(saved_out);
    close(saved_err);
    std::string eal_text;
    if (eal_out) {
      std::rewind(eal_out);
      char line[512];
      while (std::fgets(line, sizeof(line), eal_out)) eal_text += line;
      std::fclose(eal_out);
    }
    if (opt.verbose) std::fputs(eal_text.c_str(), stderr);
    if (eal_ret < 0) {
      rte_errno = eal_errno;
      std::string why = LastLogLine();
      /* getopt's complaint names the offending option: prefer it. */
      for (size_t at = 0; at < eal_text.size();) {
        size_t nl = eal_text.find('\n', at);
        if (nl == std::string::npos) nl = eal_text.size();
        std::string l = eal_text.substr(at, nl - at);
        if (l.find("option") != std::string::npos) {
          size_t colon = l.find(": ");
          why = colon == std::string::npos ? l : l.substr(colon + 2);
          break;
        }
        at = nl + 1;
      }
      throw Error(std::string("EAL initialisation failed: ") + rte_strerror(rte_errno) +
                  (why.empty() ? "" : " (" + why + ")"));
    }
    eal_up = true;
    port = ResolvePort(opt.port);

    /* One mempool: the templates or the received frames, plus the rings. */
    size_t frames = 0;
    for (const tracefile::Record& r : trace) frames += r.role == tracefile::Role::kTx ? 64 : 1;
    const unsigned nb = static_cast<unsigned>(std::min<size_t>(frames + 8191, 65535));
    /* Check mode: mbufs that hold the longest frame the trace can put on the
     * wire (up to a jumbo frame) in one segment, because the TAP PMD checks
     * no checksum of a frame spread over several mbufs (DPDK v22.11.11
     * drivers/net/tap/rte_eth_tap.c:352-354, :367-369, :383-384): its
     * unsegmented IPv6 TSO frame would otherwise read as unverified. */
    size_t room = RTE_MBUF_DEFAULT_DATAROOM;
    if (opt.mode == "check") {
      for (const tracefile::Record& r : trace) {
        if (r.role == tracefile::Role::kTx) room = std::max(room, std::min(r.frame.size(), kJumbo));
      }
    }
    pool = rte_pktmbuf_pool_create("replay_pool", nb, kMbufCache, 0,
                                   static_cast<uint16_t>(RTE_PKTMBUF_HEADROOM + room),
                                   rte_socket_id());
    if (!pool) throw Error(std::string("cannot create the mbuf pool: ") + rte_strerror(rte_errno));
    uint32_t caps = 0;
    bool multi_seg = false;
    PortInit(port, pool, &caps, &multi_seg);

    status = opt.mode == "tx" ? RunTx(opt, trace, port, pool, caps, multi_seg)
                              : RunCheck(opt, trace, port);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "offlab-hw-replay: error: %s\n", e.what());
    status = 2;
  }

  /* Clean up: stop and close the port (the pcap PMD closes its files). */
  if (port < RTE_MAX_ETHPORTS) {
    rte_eth_dev_stop(port);
    rte_eth_dev_close(port);
  }
  if (eal_up) rte_eal_cleanup();
  if (opt.verbose) DumpLog();
  if (status == 2) {
    Discard();
  } else {
    try {
      Publish();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "offlab-hw-replay: error: %s\n", e.what());
      Discard();
      status = 2;
    }
  }
  (void)pool;
  return status;
}
