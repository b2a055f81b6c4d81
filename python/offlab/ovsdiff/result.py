"""What one side of the harness saw for each injected frame."""

from __future__ import annotations

from dataclasses import dataclass, field

# Checksum, tunnel and conntrack coverage counters offlab models, by OVS's
# names (lib/conntrack.c, lib/netdev-native-tnl.c, lib/ipf.c, lib/dp-packet-gso.c,
# lib/dpif-netdev.c, lib/odp-execute.c at openvswitch/ovs d6a632a9b16e). An OVS
# build without one of them (3.1 has conntrack_l3csum_err, conntrack_l4csum_err,
# ipf_l3csum_err, datapath_drop_tunnel_pop_error and
# drop_action_invalid_tunnel_metadata of them) leaves it out of the comparison.
COUNTERS = (
    "conntrack_l3csum_checked",
    "conntrack_l3csum_err",
    "conntrack_l4csum_checked",
    "conntrack_l4csum_err",
    "ipf_l3csum_checked",
    "ipf_l3csum_err",
    "native_tnl_l3csum_checked",
    "native_tnl_l3csum_err",
    "native_tnl_l4csum_checked",
    "native_tnl_l4csum_err",
    "dp_packet_gso",
    "datapath_drop_tunnel_pop_error",
    "drop_action_invalid_tunnel_metadata",
)


@dataclass
class FrameResult:
    """Frames sent on each of the case's ports (in order) and counter deltas."""

    sent: dict[str, list[bytes]] = field(default_factory=dict)
    counters: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # drops and events, for the report

    @property
    def dropped(self) -> bool:
        return not any(self.sent.values())


@dataclass
class CaseResult:
    frames: list[FrameResult]
    counters_known: tuple[str, ...]  # the counters this side reports
