// offlab::Pipeline's action lists: what a matched rule's actions do to the
// packet, in order, as ofproto-dpif-xlate translates them and dpif-netdev
// executes the result (citations at each action).
#include <string>
#include <utility>
#include <vector>

#include "offlab/net/error.h"
#include "offlab/ovs/conntrack.h"
#include "offlab/ovs/faults.h"
#include "offlab/ovs/pipeline.h"
#include "offlab/ovs/rewrite.h"
#include "offlab/ovs/send_prepare.h"
#include "offlab/ovs/tunnel.h"
#include "pipeline_port.h"

namespace offlab {

void Pipeline::Execute(Packet& p, const std::vector<Action>& actions, int depth) {
  for (const Action& a : actions) {
    // An action below a resubmit that consumed the packet (conntrack held a
    // fragment, a tunnel push dropped it) leaves it empty: the datapath has
    // nothing left for the caller's remaining actions.
    if (p.size() == 0) return;
    switch (a.type) {
      case ActionType::kOutput:
        // The last action outside a resubmit: nothing uses the packet again.
        if (&a == &actions.back() && resubmits_ == 0) {
          Output(a.port, std::move(p), depth);
          return;
        }
        Output(a.port, p, depth);
        break;
      case ActionType::kSetEth:
        SetEth(p, a.eth_src, a.eth_dst);
        break;
      // IP and L4 rewrites change the flow; the datapath sees them only when
      // the flow has an nw_proto (commit_set_nw_action and
      // commit_set_port_action: "Check if 'flow' really has an L3 header",
      // openvswitch/ovs v3.1.0 lib/odp-util.c:8341-8344, 8546-8549; checked
      // with ovs-vswitchd 3.1.0, ovs-diff case no-nw-proto).
      case ActionType::kSetIpv4:
        if (a.ipv4.ttl) xlate_flow_.nw_ttl = *a.ipv4.ttl;
        if (xlate_flow_.nw_proto) SetIpv4(p, a.ipv4);
        break;
      case ActionType::kSetIpv6:
        if (a.ipv6.hlimit) xlate_flow_.nw_ttl = *a.ipv6.hlimit;
        if (xlate_flow_.nw_proto) SetIpv6(p, a.ipv6);
        break;
      case ActionType::kSetIpAny:
        if (a.ipv4.ttl) xlate_flow_.nw_ttl = *a.ipv4.ttl;
        if (xlate_flow_.nw_proto && !SetIpv4(p, a.ipv4)) SetIpv6(p, a.ipv6);
        break;
      case ActionType::kSetL4Ports:
        // Not for a later fragment: no L4 header (OFPACT_SET_L4_SRC_PORT and
        // _DST_PORT, openvswitch/ovs v3.1.0 ofproto/ofproto-dpif-xlate.c:7165-7180;
        // set_field: lib/meta-flow.c:468-471 mf_are_prereqs_ok, MFP_TCP/UDP/SCTP;
        // "!(flow->nw_frag & FLOW_NW_FRAG_LATER)"; checked with ovs-vswitchd
        // 3.1.0, ovs-diff case fragment-rewrite).
        if (xlate_flow_.nw_proto && !xlate_flow_.later_fragment) SetL4Ports(p, a.tp_src, a.tp_dst);
        break;
      case ActionType::kDecTtl:
        // compose_dec_ttl (ofproto/ofproto-dpif-xlate.c): nothing for a flow
        // that is not IP; the flow's TTL decremented while above 1, else the
        // packet goes to the controller and the table's actions stop.
        if (!xlate_flow_.ip) break;
        if (xlate_flow_.nw_proto ? !DecTtl(p) : xlate_flow_.nw_ttl <= 1) {
          counters_.Inc("datapath_drop_ttl_exceeded");
          events_.push_back("drop: TTL exceeded");
          return;
        }
        xlate_flow_.nw_ttl = static_cast<uint8_t>(xlate_flow_.nw_ttl - 1);
        break;
      case ActionType::kSetEcnCe:
        if (xlate_flow_.nw_proto) SetEcnCe(p);
        break;
      case ActionType::kTnlPush: {
        const Port& t = PortRef(a.port);
        if (!t.cfg.tunnel) {
          events_.push_back("drop: tnl_push to non-tunnel port " + t.cfg.name);
          return;
        }
        PacketBatch batch = OneBatch(std::move(p));
        PushHeader(batch, *t.cfg.tunnel, &counters_);
        if (batch.empty()) return;
        // A batch of several (software-segmented) packets continues one by one.
        for (size_t i = 1; i < batch.size(); i++) {
          std::vector<Action> rest(&a + 1, actions.data() + actions.size());
          Execute(batch[i], rest, depth);
        }
        p = std::move(batch[0]);
        break;
      }
      case ActionType::kTnlPop: {
        std::string why;
        if (!PopHeader(p, &counters_, &why)) {
          events_.push_back("drop: " + why);
          return;
        }
        if (p.md.tunnel.geneve_md_invalid) {
          // Translation of the recirculated packet fails and the datapath
          // drops it (openvswitch/ovs d6a632a9b ofproto/ofproto-dpif-xlate.c:
          // 8467-8479 XLATE_INVALID_TUNNEL_METADATA; lib/odp-execute.c:94-95).
          counters_.Inc("drop_action_invalid_tunnel_metadata");
          events_.push_back("drop: invalid Geneve tunnel metadata (critical option, no TLV map)");
          return;
        }
        p.md.in_port = a.port;
        p.md.recirc_id++;
        Process(p, 0, true, depth + 1);
        return;
      }
      case ActionType::kCt: {
        // Conntrack may hold the packet (a fragment) or release several (the
        // fragments of a datagram it completed): each continues on its own.
        PacketBatch out = conntrack_->Execute(OneBatch(std::move(p)), a.ct, &counters_);
        if (out.empty()) return;
        // Only the earlier packets of several need a copy of the rest of the
        // list; the usual single packet goes on in this loop.
        std::vector<Action> rest;
        if (out.size() > 1) rest.assign(&a + 1, actions.data() + actions.size());
        for (size_t i = 0; i < out.size(); i++) {
          Packet& q = out[i];
          if (a.ct.table) {
            // ct(table=N) forks: a clone recirculates to table N, and the
            // packet goes on with the rest of this action list (v3.1.0
            // ofproto/ofproto-dpif-xlate.c:6395-6398 compose_recirculate_and_fork;
            // the datapath runs recirc on a copy when actions follow:
            // lib/dpif-netdev.c:9010-9028, dp_execute_cb OVS_ACTION_ATTR_RECIRC).
            Packet clone = q;
            clone.md.recirc_id++;
            Process(clone, *a.ct.table, true, depth + 1);
          }
          // The rest of the list sees the packet untracked: xlate clears the
          // conntrack fields after ct() (ofproto-dpif-xlate.c:6402-6407).
          q.md.ct_state = 0;
          // The last packet goes on in this list and, below a resubmit, in the
          // callers' lists: after ct() the datapath runs the actions that
          // follow on the batch conntrack returned. The earlier fragments of
          // a datagram conntrack completed below a resubmit finish this list
          // only (the callers' lists are not replayed for them).
          if (i + 1 < out.size()) Execute(q, rest, depth);
        }
        p = std::move(out.back());
        break;
      }
      case ActionType::kNormal:
        Normal(p, depth);
        break;
      case ActionType::kFlood:
        Flood(p, depth);
        break;
      case ActionType::kInPort:
        Output(p.md.in_port, p, depth);
        break;
      case ActionType::kRecirc:
        p.md.recirc_id++;
        Process(p, a.table, true, depth + 1);
        return;
      case ActionType::kResubmit:
        // The actions after it run on what the resubmitted table left.
        if (xlate_depth_ >= cfg_.max_resubmit_depth) {
          // OVS fails the whole translation (XLATE_RECURSION_TOO_DEEP) and
          // drops the packet (lib/odp-execute.c:73-74); offlab drops it from
          // here on, so outputs made earlier in the pass stay sent.
          counters_.Inc("drop_action_recursion_too_deep");
          events_.push_back("drop: resubmits nested deeper than " +
                            std::to_string(cfg_.max_resubmit_depth));
          return;
        }
        {
          struct Nest {
            int& n;
            explicit Nest(int& c) : n(++c) {}
            ~Nest() { --n; }
          } nest(resubmits_), xlate(xlate_depth_);
          Process(p, a.table, false, depth);
        }
        break;
      case ActionType::kController: {
        // dp_netdev_upcall (type != MISS): send_prepare(p, 0) before the
        // packet leaves the datapath for userspace.
        Packet up = p;
        try {
          SendPrepare(up, 0);
          sent_.push_back({"controller", up.bytes(), up.offloads, up.tso_segsz});
        } catch (const Error& e) {
          counters_.Inc("offlab_send_prepare_errors");
          events_.push_back(std::string("drop on upcall: ") + e.what());
        }
        break;
      }
      case ActionType::kDrop:
        return;
    }
  }
}

}  // namespace offlab
