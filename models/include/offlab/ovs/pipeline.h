// A small OVS-like bridge over the core: ports bound to NIC profiles (or
// netdev-dummy `ol_*` options), tunnel ports, a flow table and the datapath
// actions, so that an OVS test recipe is a few lines:
//
//   Pipeline br;
//   br.AddPort({.name = "p1", .options = {{"ol_ip_rx_csum_set_good", "true"}}});
//   br.AddPort({.name = "p2"});
//   br.AddFlow("in_port=p1,actions=mod_nw_dst:192.168.1.1,output:p2");
//   auto out = br.Receive("p1", frame);
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "offlab/net/counters.h"
#include "offlab/net/packet.h"
#include "offlab/nic/nic.h"
#include "offlab/nic/nic_profile.h"
#include "offlab/ovs/conntrack.h"
#include "offlab/ovs/egress.h"
#include "offlab/ovs/flow.h"
#include "offlab/ovs/netdev_len.h"
#include "offlab/ovs/tunnel.h"

namespace offlab {

struct PortConfig {
  std::string name;
  uint32_t ofport = 0;            // 0: the next free number
  std::string profile = "dummy";  // a built-in NIC profile name
  // netdev-dummy Interface options (dummy profile only): ol_ip_tx_csum,
  // ol_l4_tx_csum, ol_out_ip_tx_csum, ol_out_udp_tx_csum (+ "_disabled"),
  // ol_{ip,l4}_rx_csum_set_{good,bad,partial}, ol_tso_segsz.
  std::map<std::string, std::string> options;
  std::optional<TunnelConfig> tunnel;  // makes this a tunnel port
  std::string underlay;                // tunnel ports: where encapsulated frames leave
  // Interface mtu_request, 68..65535 (netdev-dummy's DUMMY_MIN_MTU..MAX):
  // frames longer than it allows leave only as TSO packets (netdev_len.h).
  uint32_t mtu = kDefaultMtu;
};

struct PipelineConfig {
  bool userspace_tso = false;  // other_config:userspace-tso-enable
  bool simple_match = true;    // dpif-netdev simple match fast path
  // Nested datapath recirculations (recirc, ct(table=N), tunnel pop), each
  // run at once inside the action that makes it: MAX_RECIRC_DEPTH
  // (openvswitch/ovs v3.1.0 lib/dpif-netdev.c:101-102, checked at :8919 and
  // :9011; one more is dropped as datapath_drop_recirc_error).
  int max_recirc_depth = 6;
  // Nested resubmits within one translation (one recirculation pass):
  // MAX_DEPTH (v3.1.0 ofproto/ofproto-dpif-xlate.c:88, checked at :4465).
  int max_resubmit_depth = 64;
  EgressOptions egress;
  // Frames whose payload came in a shared tail (offlab/net/payload.h) keep it
  // shared in Sent::tail instead of copying it into Sent::frame; for callers
  // that read Sent::tail (the simulator), off for everyone else.
  bool shared_payloads = false;
};

// Per-packet metadata a virtual NIC hands over with the frame (vnet header /
// vhost): statuses the guest claims and its GSO size.
struct RxMeta {
  std::optional<CsumStatus> ip, l4;
  uint16_t tso_segsz = 0;
  // As `netdev-dummy/receive ... --bad-csum` with a composed packet: the IPv4
  // checksum is corrupted (XOR 1) and the IP status set bad.
  bool bad_ip_csum = false;
};

// flow_compose() with --bad-csum (netdev-dummy/receive ... --bad-csum): the
// IPv4 header checksum of the frame is corrupted (XOR 1) and the IP status set
// bad, leaving layer offsets as they were. Throws offlab::Error if the frame
// has no IPv4 header.
void ComposeBadIpCsum(Packet& p);

// One frame put on the wire by a port's NIC.
struct Sent {
  std::string port;
  Bytes frame;
  Offloads offloads;        // the status word handed to the NIC
  uint16_t tso_segsz = 0;   // of the packet handed to the NIC
  uint32_t nic_packet = 0;  // which packet handed to a NIC this frame came from (per Receive)
  uint32_t tx = 0;          // which netdev_send call it came from (per Receive): see TxTap
  // The rest of the frame's bytes, shared, after `frame` (only with
  // PipelineConfig::shared_payloads; empty otherwise).
  Rope tail;

  size_t size() const { return frame.size() + tail.size(); }
  // The whole frame as one buffer.
  Bytes Joined() const;
};

// What a port puts on the wire for one packet handed to its netdev_send: the
// datapath's egress for `caps` (NetdevSend), then the NIC's transmit. Frames
// of the i-th packet handed to the NIC carry nic_packet = i; `errors` gets the
// egress drops, `violations` the requests outside the NIC's capabilities.
// With `shared_payloads`, a frame's shared tail stays in Sent::tail. A
// packet the port's send refuses for its length (`limit`) is dropped,
// counted as tx_mtu_exceeded_drops and reported in `errors`.
std::vector<Sent> SendThroughNic(Packet p, const std::string& port, uint32_t caps, const NicTx& nic,
                                 const EgressOptions& egress, Counters* counters,
                                 std::vector<std::string>* errors,
                                 std::vector<std::string>* violations, bool shared_payloads = false,
                                 const TxLengthLimit& limit = {});

class Pipeline {
 public:
  explicit Pipeline(PipelineConfig cfg = {});
  ~Pipeline();
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  // Throws offlab::Error for a duplicate name/number, an unknown profile or
  // option, or a tunnel port without a valid underlay.
  uint32_t AddPort(const PortConfig& cfg);
  // Throws offlab::Error naming what is wrong with the rule.
  void AddFlow(const std::string& text);
  void ClearFlows();

  // Receives one frame on `port` and runs it through the datapath; returns
  // every frame sent as a result, in order. A frame shorter than an Ethernet
  // header is dropped first (datapath_drop_rx_invalid_packet, netdev_len.h).
  std::vector<Sent> Receive(const std::string& port, const Bytes& frame, const RxMeta& meta = {});

  // As Receive() for a packet the caller already received: NIC validation,
  // coalescing and metadata applied (a simulated NIC or guest does that).
  std::vector<Sent> ReceivePacket(const std::string& port, Packet p);

  uint32_t PortNumber(const std::string& name) const;
  // Advertised transmit capabilities of a port (cap:: bits).
  uint32_t PortCaps(const std::string& name) const;
  Counters& counters() { return counters_; }
  // One line per dropped packet, NIC violation or IP length field the
  // parser refused (netdev_len.h) since the last Receive().
  const std::vector<std::string>& events() const { return events_; }
  Conntrack& conntrack() { return *conntrack_; }

  // Called with every packet the datapath hands to netdev_send on a port
  // (before send-prepare, as a trace's tx record holds it) and that call's
  // number within the current Receive, which its Sent frames carry as `tx`.
  using TxTap = std::function<void(const std::string& port, const Packet& p, uint32_t tx)>;
  void SetTxTap(TxTap tap) { tx_tap_ = std::move(tap); }

 private:
  struct Port;
  void Process(Packet& p, uint8_t table, bool reparse, int depth);
  void Execute(Packet& p, const std::vector<Action>& actions, int depth);
  void Output(uint32_t ofport, Packet p, int depth);
  void Normal(const Packet& p, int depth);  // normal.cc
  void Flood(const Packet& p, int depth);
  Port& PortRef(uint32_t ofport);
  const Port& PortByName(const std::string& name) const;

  PipelineConfig cfg_;
  std::map<uint32_t, std::unique_ptr<Port>> ports_;
  std::vector<Rule> rules_;
  std::map<MacAddr, uint32_t> mac_table_;  // NORMAL's learned MACs: port of each source
  Counters counters_;
  std::vector<std::string> events_;
  std::vector<Sent> sent_;
  uint32_t nic_packets_ = 0;
  uint32_t tx_calls_ = 0;
  int resubmits_ = 0;    // resubmits in progress: their callers still use the packet
  int xlate_depth_ = 0;  // resubmits nested in the current recirculation pass
  // The current translation's flow where it can differ from the bytes: its
  // nw_proto (0 when the packet has no L3 the flow could hold), whether it is
  // IP, and its TTL as mod_nw_ttl and dec_ttl leave it.
  struct XlateFlow {
    uint8_t nw_proto = 0, nw_ttl = 0;
    bool ip = false;
    bool later_fragment = false;  // its tp_src and tp_dst are 0
  } xlate_flow_;
  TxTap tx_tap_;
  std::unique_ptr<Conntrack> conntrack_;
  std::string rx_name_;  // ReceivePacket's last port
  const Port* rx_port_ = nullptr;
};

}  // namespace offlab
