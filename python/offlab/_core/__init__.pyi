"""
offlab's compiled semantics core (private; use the offlab package).
"""
from __future__ import annotations
import collections.abc
import typing
from . import checksum
from . import caps
from . import kernel
__all__: list[str] = ['ChecksumField', 'Conntrack', 'Csum', 'CsumStatus', 'Dissection', 'FlowKey', 'L4Proto', 'Layer', 'Level', 'NicProfile', 'NicTx', 'OfflabError', 'Offloads', 'Packet', 'Pipeline', 'RxMeta', 'RxStatus', 'RxValidation', 'Sent', 'TunnelConfig', 'TunnelType', 'Verdict', 'VnetHdr', 'builtin_profile', 'builtin_profile_names', 'caps', 'checksum', 'clear_faults', 'coalesce', 'compose_bad_ip_csum', 'ct_state', 'disable_fault', 'dissect', 'enable_fault', 'enabled_faults', 'fault_commit', 'fault_names', 'fault_project', 'gso', 'gso_partial', 'gso_partial_nr_segs', 'kernel', 'load_profile_file', 'netdev_send', 'nic_receive', 'nic_transmit', 'parse', 'parse_profile', 'parse_simple', 'pop_header', 'push_header', 'send_prepare', 'set_ipv4', 'set_ipv6', 'set_l4_ports', 'udp_tunnel_csum', 'verdict_name', 'vnet_complete', 'vnet_transmit']
class OfflabError(ValueError):
    pass
class CsumStatus:
    """
    OVS checksum status: the (GOOD, BAD) bit pair.
    
    Members:
    
      UNKNOWN
    
      BAD
    
      GOOD
    
      PARTIAL
    """
    BAD: typing.ClassVar[CsumStatus]
    GOOD: typing.ClassVar[CsumStatus]
    PARTIAL: typing.ClassVar[CsumStatus]
    UNKNOWN: typing.ClassVar[CsumStatus]
    __members__: typing.ClassVar[dict[str, CsumStatus]]
    @typing.overload
    def __eq__(self, other: CsumStatus) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: CsumStatus) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class Csum:
    """
    Members:
    
      IP
    
      L4
    """
    IP: typing.ClassVar[Csum]
    L4: typing.ClassVar[Csum]
    __members__: typing.ClassVar[dict[str, Csum]]
    @typing.overload
    def __eq__(self, other: Csum) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: Csum) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class Level:
    """
    Members:
    
      OUTER
    
      INNER
    """
    INNER: typing.ClassVar[Level]
    OUTER: typing.ClassVar[Level]
    __members__: typing.ClassVar[dict[str, Level]]
    @typing.overload
    def __eq__(self, other: Level) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: Level) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class L4Proto:
    """
    Members:
    
      NONE
    
      TCP
    
      UDP
    
      SCTP
    """
    NONE: typing.ClassVar[L4Proto]
    SCTP: typing.ClassVar[L4Proto]
    TCP: typing.ClassVar[L4Proto]
    UDP: typing.ClassVar[L4Proto]
    __members__: typing.ClassVar[dict[str, L4Proto]]
    @typing.overload
    def __eq__(self, other: L4Proto) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: L4Proto) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class TunnelType:
    """
    Members:
    
      NONE
    
      GENEVE
    
      VXLAN
    
      GRE
    """
    GENEVE: typing.ClassVar[TunnelType]
    GRE: typing.ClassVar[TunnelType]
    NONE: typing.ClassVar[TunnelType]
    VXLAN: typing.ClassVar[TunnelType]
    __members__: typing.ClassVar[dict[str, TunnelType]]
    @typing.overload
    def __eq__(self, other: TunnelType) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: TunnelType) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class Offloads:
    """
    The 32-bit dp_packet offloads word in Open vSwitch's bit layout: outer
    statuses in the low 16 bits, inner = outer << 16.
    """
    __hash__: typing.ClassVar[None] = None
    tunnel: TunnelType
    def __eq__(self, arg0: Offloads) -> bool:
        ...
    def __init__(self, word: typing.SupportsInt | typing.SupportsIndex = 0) -> None:
        ...
    def __repr__(self) -> str:
        ...
    def describe(self) -> str:
        ...
    def l4_proto(self, level: Level = ...) -> L4Proto:
        ...
    def set_l4_proto(self, proto: L4Proto, level: Level = ...) -> None:
        ...
    def set_status(self, level: Level, csum: Csum, status: CsumStatus) -> None:
        ...
    def status(self, level: Level, csum: Csum) -> CsumStatus:
        ...
    @property
    def word(self) -> int:
        ...
    @word.setter
    def word(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
class Packet:
    """
    Packet bytes with headroom, layer offsets, offloads word.
    """
    offloads: Offloads
    def __init__(self, data: bytes) -> None:
        ...
    def __len__(self) -> int:
        ...
    def __repr__(self) -> str:
        ...
    def bytes(self) -> bytes:
        ...
    def copy(self) -> Packet:
        ...
    @property
    def headroom(self) -> int:
        ...
    @property
    def inner_l2_ofs(self) -> int | None:
        ...
    @inner_l2_ofs.setter
    def inner_l2_ofs(self, arg1: typing.SupportsInt | typing.SupportsIndex | None) -> None:
        ...
    @property
    def inner_l3_ofs(self) -> int | None:
        ...
    @inner_l3_ofs.setter
    def inner_l3_ofs(self, arg1: typing.SupportsInt | typing.SupportsIndex | None) -> None:
        ...
    @property
    def inner_l4_ofs(self) -> int | None:
        ...
    @inner_l4_ofs.setter
    def inner_l4_ofs(self, arg1: typing.SupportsInt | typing.SupportsIndex | None) -> None:
        ...
    @property
    def l3_ofs(self) -> int | None:
        ...
    @l3_ofs.setter
    def l3_ofs(self, arg1: typing.SupportsInt | typing.SupportsIndex | None) -> None:
        ...
    @property
    def l4_ofs(self) -> int | None:
        ...
    @l4_ofs.setter
    def l4_ofs(self, arg1: typing.SupportsInt | typing.SupportsIndex | None) -> None:
        ...
    @property
    def tso_segsz(self) -> int:
        ...
    @tso_segsz.setter
    def tso_segsz(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
class RxValidation:
    @property
    def inner_ip(self) -> bool:
        ...
    @property
    def inner_l4(self) -> bool:
        ...
    @property
    def outer_ip(self) -> bool:
        ...
    @property
    def outer_l4(self) -> bool:
        ...
class NicProfile:
    """
    A NIC described as data, with sources.
    """
    def __repr__(self) -> str:
        ...
    @property
    def description(self) -> str:
        ...
    @property
    def driver(self) -> str:
        ...
    @property
    def gro(self) -> bool:
        ...
    @property
    def link_gbps(self) -> float:
        ...
    @property
    def lro(self) -> bool:
        ...
    @property
    def max_tso_bytes(self) -> int:
        ...
    @property
    def max_tso_segs(self) -> int:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def notes(self) -> list[str]:
        ...
    @property
    def outer_udp_left_as_is(self) -> bool:
        ...
    @property
    def outer_udp_needs_pseudo_seed(self) -> bool:
        ...
    @property
    def rx_geneve(self) -> RxValidation:
        ...
    @property
    def rx_gre(self) -> RxValidation:
        ...
    @property
    def rx_partial_from_guest(self) -> bool:
        ...
    @property
    def rx_plain(self) -> RxValidation:
        ...
    @property
    def rx_vxlan(self) -> RxValidation:
        ...
    @property
    def rx_zero_udp_csum_literal(self) -> bool:
        ...
    @property
    def sources(self) -> dict[str, str]:
        ...
    @property
    def tx_caps(self) -> int:
        ...
class Verdict:
    """
    Members:
    
      CORRECT
    
      INCORRECT
    
      ABSENT
    
      NOT_CHECKED
    """
    ABSENT: typing.ClassVar[Verdict]
    CORRECT: typing.ClassVar[Verdict]
    INCORRECT: typing.ClassVar[Verdict]
    NOT_CHECKED: typing.ClassVar[Verdict]
    __members__: typing.ClassVar[dict[str, Verdict]]
    @typing.overload
    def __eq__(self, other: Verdict) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: Verdict) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class ChecksumField:
    @property
    def depth(self) -> int:
        ...
    @property
    def expected(self) -> int:
        ...
    @property
    def layer(self) -> str:
        ...
    @property
    def offset(self) -> int:
        ...
    @property
    def value(self) -> int:
        ...
    @property
    def verdict(self) -> Verdict:
        ...
class Layer:
    @property
    def depth(self) -> int:
        ...
    @property
    def length(self) -> int:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def offset(self) -> int:
        ...
    @property
    def summary(self) -> str:
        ...
class Dissection:
    def __str__(self) -> str:
        ...
    @property
    def checksums(self) -> list[ChecksumField]:
        ...
    @property
    def error(self) -> str | None:
        ...
    @property
    def layers(self) -> list[Layer]:
        ...
class FlowKey:
    """
    What flow extraction found in a packet.
    """
    def __repr__(self) -> str:
        ...
    @property
    def dl_type(self) -> int:
        ...
    @property
    def error(self) -> str:
        ...
    @property
    def has_l3(self) -> bool:
        ...
    @property
    def has_l4(self) -> bool:
        ...
    @property
    def ipv6(self) -> bool:
        ...
    @property
    def nw_frag(self) -> int:
        ...
    @property
    def nw_proto(self) -> int:
        ...
    @property
    def nw_ttl(self) -> int:
        ...
    @property
    def tcp_flags(self) -> int:
        ...
    @property
    def tp_dst(self) -> int:
        ...
    @property
    def tp_src(self) -> int:
        ...
class TunnelConfig:
    """
    Encapsulation parameters of a tunnel port.
    """
    def __init__(self, type: str = 'vxlan', remote_ip: str = '1.1.2.92', local_ip: str = '1.1.2.88', key: typing.SupportsInt | typing.SupportsIndex = 0, csum: bool | None = None, eth_src: str = 'aa:55:aa:55:00:00', eth_dst: str = 'aa:55:aa:55:00:01', udp_src: typing.SupportsInt | typing.SupportsIndex = 0, udp_dst: typing.SupportsInt | typing.SupportsIndex = 0, ttl: typing.SupportsInt | typing.SupportsIndex = 64, tos: typing.SupportsInt | typing.SupportsIndex = 0, df: bool = True, gre_key: bool = True, gre_seq: bool = False, geneve_options: bytes = b'') -> None:
        ...
    @property
    def csum_enabled(self) -> bool:
        ...
    @property
    def ipv6(self) -> bool:
        ...
    @property
    def type(self) -> TunnelType:
        ...
class NicTx:
    """
    What a NIC does on transmit.
    """
    @staticmethod
    def from_profile(arg0: NicProfile) -> NicTx:
        ...
    def __init__(self, caps: typing.SupportsInt | typing.SupportsIndex = 0, disabled: typing.SupportsInt | typing.SupportsIndex = 0, outer_udp_needs_pseudo_seed: bool = False, outer_udp_left_as_is: bool = False, segments_tso: bool = True) -> None:
        ...
    @property
    def caps(self) -> int:
        ...
    @caps.setter
    def caps(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def disabled(self) -> int:
        ...
    @disabled.setter
    def disabled(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
class RxStatus:
    """
    Statuses a receiving NIC reports.
    """
    inner_ip: CsumStatus
    inner_l4: CsumStatus
    ip: CsumStatus
    l4: CsumStatus
    tunnel: TunnelType
    def __init__(self) -> None:
        ...
class Conntrack:
    """
    The userspace connection tracker with ipf.
    """
    def __init__(self) -> None:
        ...
    def execute(self, packet: Packet, commit: bool = True, zone: typing.SupportsInt | typing.SupportsIndex = 0, nat_dst: str | None = None, nat_src: str | None = None, nat: bool = False) -> tuple[list[Packet], dict[str, int]]:
        """
        ct(commit, nat) on a parsed packet; returns (packets, counters).
        """
    @property
    def connections(self) -> int:
        ...
class VnetHdr:
    """
    A virtio-net header (tap / netdev-linux).
    """
    __hash__: typing.ClassVar[None] = None
    def __eq__(self, arg0: VnetHdr) -> bool:
        ...
    def __init__(self, flags: typing.SupportsInt | typing.SupportsIndex = 0, gso_type: typing.SupportsInt | typing.SupportsIndex = 0, hdr_len: typing.SupportsInt | typing.SupportsIndex = 0, gso_size: typing.SupportsInt | typing.SupportsIndex = 0, csum_start: typing.SupportsInt | typing.SupportsIndex = 0, csum_offset: typing.SupportsInt | typing.SupportsIndex = 0) -> None:
        ...
    def __repr__(self) -> str:
        ...
    @property
    def csum_offset(self) -> int:
        ...
    @csum_offset.setter
    def csum_offset(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def csum_start(self) -> int:
        ...
    @csum_start.setter
    def csum_start(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def flags(self) -> int:
        ...
    @flags.setter
    def flags(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def gso_size(self) -> int:
        ...
    @gso_size.setter
    def gso_size(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def gso_type(self) -> int:
        ...
    @gso_type.setter
    def gso_type(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def hdr_len(self) -> int:
        ...
    @hdr_len.setter
    def hdr_len(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
class RxMeta:
    """
    Metadata a virtual NIC passes with a received frame.
    """
    def __init__(self, ip: CsumStatus | None = None, l4: CsumStatus | None = None, tso_segsz: typing.SupportsInt | typing.SupportsIndex = 0, bad_ip_csum: bool = False) -> None:
        ...
class Sent:
    """
    A frame a port put on the wire.
    """
    def __repr__(self) -> str:
        ...
    @property
    def frame(self) -> bytes:
        ...
    @property
    def offloads(self) -> Offloads:
        ...
    @property
    def port(self) -> str:
        ...
    @property
    def tso_segsz(self) -> int:
        ...
class Pipeline:
    """
    An OVS-like bridge: ports bound to NIC profiles or netdev-dummy options,
    tunnel ports, a flow table in ovs-ofctl syntax, and the datapath actions.
    
        br = Pipeline()
        br.add_port("p1", options={"ol_l4_rx_csum_set_good": "true"})
        br.add_port("p2")
        br.add_flow("in_port=p1,tcp,actions=mod_tp_dst:2222,output:p2")
        out = br.receive("p1", frame)
    """
    def __init__(self, userspace_tso: bool = False, simple_match: bool = True) -> None:
        ...
    def add_flow(self, flow: str) -> None:
        ...
    def add_port(self, name: str, profile: str = 'dummy', options: collections.abc.Mapping[str, str] = {}, ofport: typing.SupportsInt | typing.SupportsIndex = 0, tunnel: TunnelConfig | None = None, underlay: str = '', mtu: typing.SupportsInt | typing.SupportsIndex = 1500) -> int:
        """
        Adds a port; returns its ofport. Frames longer than `mtu` allows leave it only as TSO packets; others are dropped and counted as tx_mtu_exceeded_drops.
        """
    def clear_flows(self) -> None:
        ...
    def port_caps(self, arg0: str) -> int:
        ...
    def port_number(self, arg0: str) -> int:
        ...
    def receive(self, port: str, frame: bytes, meta: RxMeta | None = None) -> list[Sent]:
        """
        Runs one frame through the datapath; returns the frames sent.
        """
    @property
    def counters(self) -> dict[str, int]:
        ...
    @property
    def events(self) -> list[str]:
        ...
def builtin_profile(name: str) -> NicProfile:
    ...
def builtin_profile_names() -> list[str]:
    ...
def clear_faults() -> None:
    ...
def coalesce(frames: collections.abc.Sequence[tuple[Packet, RxStatus]], max_bytes: typing.SupportsInt | typing.SupportsIndex = 65535) -> tuple[list[Packet], dict]:
    """
    Receive coalescing (GRO/LRO) of (packet, RxStatus) pairs as nic_receive returns them: (packets, stats).
    """
def compose_bad_ip_csum(packet: Packet) -> None:
    """
    flow_compose --bad-csum: corrupts the IPv4 checksum (XOR 1) and sets the IP status bad.
    """
def ct_state(packet: Packet) -> int:
    ...
def disable_fault(arg0: str) -> None:
    ...
def dissect(frame: bytes) -> Dissection:
    """
    Decodes every layer and recomputes every checksum from the bytes.
    """
def enable_fault(arg0: str) -> None:
    ...
def enabled_faults() -> list[str]:
    ...
def fault_commit(arg0: str) -> str:
    """
    The commit that fixed the named bug (in the project fault_project names).
    """
def fault_names() -> list[str]:
    """
    Names of the seeded historical bugs (OVS, and one DPDK driver bug).
    """
def fault_project(arg0: str) -> str:
    """
    The project whose commit fixed the named bug: 'OVS' or 'DPDK'.
    """
def gso(packet: Packet) -> list[Packet]:
    """
    Full software GSO.
    """
def gso_partial(packet: Packet) -> list[Packet]:
    """
    Partial GSO: split off the tail segment.
    """
def gso_partial_nr_segs(packet: Packet) -> int:
    ...
def load_profile_file(path: str) -> NicProfile:
    ...
def netdev_send(batch: collections.abc.Sequence[Packet], caps: typing.SupportsInt | typing.SupportsIndex) -> tuple[list[Packet], list[str]]:
    """
    TSO policy + send_prepare; returns (packets, errors for dropped packets).
    """
def nic_receive(frame: bytes, profile: NicProfile) -> tuple[Packet, RxStatus]:
    """
    Receive validation per profile: (packet, status).
    """
def nic_transmit(packet: Packet, nic: NicTx) -> tuple[list[Packet], list[str]]:
    """
    Wire frames for one packet, and violations.
    """
def parse(packet: Packet) -> FlowKey:
    """
    miniflow_extract: sets layer offsets and the L4 protocol, never a status.
    """
def parse_profile(text: str, name: str) -> NicProfile:
    ...
def parse_simple(packet: Packet) -> FlowKey:
    """
    parse_tcp_flags (simple match).
    """
def pop_header(packet: Packet) -> tuple[bool, str, dict[str, int]]:
    """
    Decapsulate a parsed tunnel packet; returns (ok, reason, counters).
    """
def push_header(batch: collections.abc.Sequence[Packet], tunnel: TunnelConfig) -> tuple[list[Packet], dict[str, int]]:
    """
    netdev_push_header; returns (batch, counters).
    """
def send_prepare(packet: Packet, caps: typing.SupportsInt | typing.SupportsIndex, udp_tunnel_csum: bool = True) -> None:
    """
    dp_packet_ol_send_prepare for a capability set (udp_tunnel_csum=False: OVS before the payload-independent outer UDP checksum).
    """
def set_ipv4(packet: Packet, src: str | None = None, dst: str | None = None, tos: typing.SupportsInt | typing.SupportsIndex | None = None, ttl: typing.SupportsInt | typing.SupportsIndex | None = None) -> bool:
    """
    IPv4 field writes under rule M.
    """
def set_ipv6(packet: Packet, src: str | None = None, dst: str | None = None) -> bool:
    """
    IPv6 address writes under rule M.
    """
def set_l4_ports(packet: Packet, src: typing.SupportsInt | typing.SupportsIndex | None = None, dst: typing.SupportsInt | typing.SupportsIndex | None = None) -> bool:
    """
    TCP/UDP/SCTP port writes under rule M.
    """
def udp_tunnel_csum(packet: Packet) -> bool:
    """
    The payload-independent outer UDP checksum; False if not applicable.
    """
def verdict_name(arg0: Verdict) -> str:
    ...
def vnet_complete(packet: Packet, header: VnetHdr) -> None:
    """
    What the kernel does with NEEDS_CSUM.
    """
def vnet_transmit(packet: Packet) -> VnetHdr:
    """
    netdev_linux_prepend_vnet_hdr: the header for a packet leaving through a tap.
    """
