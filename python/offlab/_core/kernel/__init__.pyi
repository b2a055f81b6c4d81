"""
The Linux kernel path model (skb checksum state).
"""
from __future__ import annotations
import collections.abc
import offlab._core
from offlab._core import VnetHdr
import typing
from . import gso
from . import netif
from . import vnet
from . import tp_status
from . import tun_f
from . import gro_gso
__all__: list[str] = ['DeviceFeatures', 'GSO_TCP_ACCECN', 'GSO_TCP_FIXEDID_618', 'GSO_TCP_FIXEDID_INNER_618', 'GeneveConfig', 'GeneveDf', 'GroCell', 'GroConfig', 'GroGeneveSocket', 'GroResult', 'GroStats', 'GroUdpSocket', 'GroVxlanSocket', 'IbmvethConfig', 'IpSummed', 'KernelHost', 'KernelNicView', 'KernelVersion', 'LAB_KERNEL', 'OvsSkb', 'PacketSocketConfig', 'RxMeta', 'RxOutcome', 'RxResult', 'SkBuff', 'TapConfig', 'TxOutcome', 'UnderlayRoute', 'VirtualDevice', 'VnetHdr', 'VnetHdrTunnel', 'VxlanConfig', 'VxlanDf', 'XmitOptions', 'all_virtual_devices', 'bridge_device', 'can_checksum_protocol', 'device_transmit', 'driver_receive', 'feature_from_name', 'feature_names', 'flow_dissect_basic', 'geneve_rcv', 'geneve_xmit', 'gro_gso', 'gso', 'gso_type_names', 'host_guest_skb', 'host_receive', 'host_socket_skb', 'host_transmit', 'ibmveth_features', 'ibmveth_start_xmit', 'kernel_device_features', 'kernel_view', 'net_gso_ok', 'netif', 'netif_needs_gso', 'netif_skb_features', 'nf_conntrack_in', 'nf_nat_manip_pkt', 'ovs_ct', 'ovs_dec_ttl', 'ovs_output', 'ovs_pop_vlan', 'ovs_push_vlan', 'ovs_recirc', 'ovs_set_eth', 'ovs_set_ipv4', 'ovs_set_ipv6', 'ovs_set_sctp', 'ovs_set_tcp', 'ovs_set_tunnel', 'ovs_set_udp', 'ovs_vport_receive', 'packet_csum_status', 'packet_rcv_vnet', 'packet_snd', 'parse_kernel_version', 'predict_conntrack', 'pskb_trim_rcsum', 'skb_checksum_help', 'skb_complete_partial', 'skb_csum_hwoffload_help', 'skb_csum_unnecessary', 'skb_gso_ok', 'skb_gso_segment', 'skb_needs_linearize', 'stack_rcv', 'tap_device', 'tap_features', 'tap_read', 'tap_write', 'tp_status', 'tun_f', 'validate_xmit_skb', 'veth_device', 'veth_uses_napi', 'veth_xmit', 'virtio_net_hdr_from_skb', 'virtio_net_hdr_tnl_from_skb', 'virtio_net_hdr_tnl_to_skb', 'virtio_net_hdr_to_skb', 'vnet', 'vxlan_compute_rco', 'vxlan_device', 'vxlan_rcv', 'vxlan_source_port', 'vxlan_xmit']
class IpSummed:
    """
    skb->ip_summed (include/linux/skbuff.h).
    
    Members:
    
      NONE
    
      UNNECESSARY
    
      COMPLETE
    
      PARTIAL
    """
    COMPLETE: typing.ClassVar[IpSummed]
    NONE: typing.ClassVar[IpSummed]
    PARTIAL: typing.ClassVar[IpSummed]
    UNNECESSARY: typing.ClassVar[IpSummed]
    __members__: typing.ClassVar[dict[str, IpSummed]]
    @typing.overload
    def __eq__(self, other: IpSummed) -> bool:
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
    def __ne__(self, other: IpSummed) -> bool:
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
class SkBuff:
    """
    An sk_buff's bytes and checksum/offload state.
    """
    csum_not_inet: bool
    csum_valid: bool
    encapsulation: bool
    frame: bytes
    ip_summed: IpSummed
    remcsum_offload: bool
    def __init__(self, frame: bytes = b'') -> None:
        ...
    def __len__(self) -> int:
        ...
    def __repr__(self) -> str:
        ...
    def copy(self) -> SkBuff:
        ...
    def describe(self) -> str:
        ...
    @property
    def csum(self) -> int:
        ...
    @csum.setter
    def csum(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def csum_from(self) -> int:
        ...
    @csum_from.setter
    def csum_from(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def csum_level(self) -> int:
        ...
    @csum_level.setter
    def csum_level(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
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
    def frag_list_lens(self) -> list[int]:
        ...
    @frag_list_lens.setter
    def frag_list_lens(self, arg0: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> None:
        ...
    @property
    def gso_segs(self) -> int:
        ...
    @gso_segs.setter
    def gso_segs(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
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
    def nr_frags(self) -> int:
        ...
    @nr_frags.setter
    def nr_frags(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
class KernelVersion:
    """
    A kernel release a rule variant is for.
    """
    __hash__: typing.ClassVar[None] = None
    def __eq__(self, arg0: KernelVersion) -> bool:
        ...
    def __init__(self, major: typing.SupportsInt | typing.SupportsIndex, minor: typing.SupportsInt | typing.SupportsIndex, rhel7: bool = False) -> None:
        ...
    def __repr__(self) -> str:
        ...
    def __str__(self) -> str:
        ...
    def at_least(self, arg0: typing.SupportsInt | typing.SupportsIndex, arg1: typing.SupportsInt | typing.SupportsIndex) -> bool:
        ...
    @property
    def major(self) -> int:
        ...
    @property
    def minor(self) -> int:
        ...
    @property
    def rhel7(self) -> bool:
        ...
class DeviceFeatures:
    """
    A net device's features.
    """
    def __init__(self, features: typing.SupportsInt | typing.SupportsIndex = 0, hw_enc_features: typing.SupportsInt | typing.SupportsIndex = 0, gso_max_size: typing.SupportsInt | typing.SupportsIndex = 65536, gso_max_segs: typing.SupportsInt | typing.SupportsIndex = 65535, mtu: typing.SupportsInt | typing.SupportsIndex = 1500) -> None:
        ...
    @property
    def features(self) -> int:
        ...
    @features.setter
    def features(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def gso_max_segs(self) -> int:
        ...
    @gso_max_segs.setter
    def gso_max_segs(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def gso_max_size(self) -> int:
        ...
    @gso_max_size.setter
    def gso_max_size(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def hw_enc_features(self) -> int:
        ...
    @hw_enc_features.setter
    def hw_enc_features(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def mtu(self) -> int:
        ...
    @mtu.setter
    def mtu(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
class VnetHdrTunnel:
    """
    virtio_net_hdr_v1_hash_tunnel's offload fields.
    """
    hdr: offlab._core.VnetHdr
    def __init__(self, hdr: offlab._core.VnetHdr = ..., outer_th_offset: typing.SupportsInt | typing.SupportsIndex = 0, inner_nh_offset: typing.SupportsInt | typing.SupportsIndex = 0) -> None:
        ...
    def __repr__(self) -> str:
        ...
    @property
    def inner_nh_offset(self) -> int:
        ...
    @inner_nh_offset.setter
    def inner_nh_offset(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def outer_th_offset(self) -> int:
        ...
    @outer_th_offset.setter
    def outer_th_offset(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
class TapConfig:
    """
    A TAP opened with IFF_TAP|IFF_NO_PI[|IFF_VNET_HDR].
    """
    vnet_hdr: bool
    def __init__(self, vnet_hdr: bool = True, vnet_hdr_sz: typing.SupportsInt | typing.SupportsIndex = 10, mtu: typing.SupportsInt | typing.SupportsIndex = 1500) -> None:
        ...
    @property
    def mtu(self) -> int:
        ...
    @mtu.setter
    def mtu(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def vnet_hdr_sz(self) -> int:
        ...
    @vnet_hdr_sz.setter
    def vnet_hdr_sz(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
class PacketSocketConfig:
    """
    An AF_PACKET socket.
    """
    sock_dgram: bool
    def __init__(self, sock_dgram: bool = False, mtu: typing.SupportsInt | typing.SupportsIndex = 1500, protocol: typing.SupportsInt | typing.SupportsIndex = 0) -> None:
        ...
    @property
    def mtu(self) -> int:
        ...
    @mtu.setter
    def mtu(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def protocol(self) -> int:
        ...
    @protocol.setter
    def protocol(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
class VirtualDevice:
    """
    A virtual device as `ip link add` makes it.
    """
    def __repr__(self) -> str:
        ...
    @property
    def dev(self) -> DeviceFeatures:
        ...
    @property
    def kind(self) -> str:
        ...
    @property
    def unmodelled_on(self) -> list[str]:
        ...
class KernelNicView:
    """
    A NIC as Linux sees it through its driver.
    """
    @property
    def csum_err_stat(self) -> str:
        ...
    @property
    def driver(self) -> str:
        ...
    @property
    def features(self) -> list[str]:
        ...
    @property
    def hw_enc_features(self) -> list[str]:
        ...
    @property
    def notes(self) -> list[str]:
        ...
    @property
    def outer_ip_err_stat(self) -> str:
        ...
    @property
    def quirks(self) -> dict:
        ...
    @property
    def rx_csum(self) -> str:
        ...
    @property
    def rx_page_frags(self) -> bool:
        ...
    @property
    def sources(self) -> dict[str, str]:
        ...
    @property
    def tunnel_csum_level(self) -> int:
        ...
    @property
    def tunnels(self) -> list[str]:
        ...
class RxMeta:
    """
    What arrives with a frame besides its bytes.
    """
    ibmveth_csum_good: bool
    ibmveth_large_packet: bool
    tap: TapConfig
    vnet: VnetHdrTunnel
    vnet_tnl: bool
    vnet_tnl_csum: bool
    def __init__(self, vnet: VnetHdrTunnel = ..., vnet_tnl: bool = False, vnet_tnl_csum: bool = False, tap: TapConfig = ..., ibmveth_csum_good: bool = True, ibmveth_large_packet: bool = False, ibmveth_mss: typing.SupportsInt | typing.SupportsIndex = 0, mtu: typing.SupportsInt | typing.SupportsIndex = 1500) -> None:
        ...
    @property
    def ibmveth_mss(self) -> int:
        ...
    @ibmveth_mss.setter
    def ibmveth_mss(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def mtu(self) -> int:
        ...
    @mtu.setter
    def mtu(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
class RxResult:
    """
    A driver's receive: the skb, or why it was dropped.
    """
    @property
    def drop_reason(self) -> str:
        ...
    @property
    def dropped(self) -> bool:
        ...
    @property
    def skb(self) -> SkBuff:
        ...
class GroResult:
    """
    enum gro_result (napi_gro_receive).
    
    Members:
    
      MERGED
    
      MERGED_FREE
    
      HELD
    
      NORMAL
    
      CONSUMED
    """
    CONSUMED: typing.ClassVar[GroResult]
    HELD: typing.ClassVar[GroResult]
    MERGED: typing.ClassVar[GroResult]
    MERGED_FREE: typing.ClassVar[GroResult]
    NORMAL: typing.ClassVar[GroResult]
    __members__: typing.ClassVar[dict[str, GroResult]]
    @typing.overload
    def __eq__(self, other: GroResult) -> bool:
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
    def __ne__(self, other: GroResult) -> bool:
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
class GroVxlanSocket:
    """
    A VXLAN socket's port and RCO flags.
    """
    remcsum_nopartial: bool
    remcsum_rx: bool
    def __init__(self, port: typing.SupportsInt | typing.SupportsIndex = 4789, remcsum_rx: bool = False, remcsum_nopartial: bool = False) -> None:
        ...
    @property
    def port(self) -> int:
        ...
    @port.setter
    def port(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
class GroUdpSocket:
    """
    A plain UDP socket (UDP_GRO or not).
    """
    gro_enabled: bool
    def __init__(self, port: typing.SupportsInt | typing.SupportsIndex, gro_enabled: bool = False) -> None:
        ...
    @property
    def port(self) -> int:
        ...
    @port.setter
    def port(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
class GroConfig:
    """
    The receiving device and sockets GRO depends on.
    """
    head_frag: bool
    kv: KernelVersion
    tcp_local_socket: bool
    xdp_prog: bool
    def __init__(self, kv: KernelVersion = ..., features: typing.SupportsInt | typing.SupportsIndex = 524288, xdp_prog: bool = False, gro_max_size: typing.SupportsInt | typing.SupportsIndex = 65536, head_frag: bool = False, tcp_local_socket: bool = True, vxlan: collections.abc.Sequence[GroVxlanSocket] = [], udp_sockets: collections.abc.Sequence[GroUdpSocket] = []) -> None:
        ...
    @property
    def features(self) -> int:
        ...
    @features.setter
    def features(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def geneve(self) -> list[GroGeneveSocket]:
        ...
    @geneve.setter
    def geneve(self, arg0: collections.abc.Sequence[GroGeneveSocket]) -> None:
        ...
    @property
    def gro_max_size(self) -> int:
        ...
    @gro_max_size.setter
    def gro_max_size(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def udp_sockets(self) -> list[GroUdpSocket]:
        ...
    @udp_sockets.setter
    def udp_sockets(self, arg0: collections.abc.Sequence[GroUdpSocket]) -> None:
        ...
    @property
    def vxlan(self) -> list[GroVxlanSocket]:
        ...
    @vxlan.setter
    def vxlan(self, arg0: collections.abc.Sequence[GroVxlanSocket]) -> None:
        ...
class GroStats:
    """
    What a GroCell did.
    """
    @property
    def csum_bytes(self) -> int:
        ...
    @property
    def delivered(self) -> int:
        ...
    @property
    def evicted(self) -> int:
        ...
    @property
    def flushed(self) -> int:
        ...
    @property
    def held(self) -> int:
        ...
    @property
    def merged(self) -> int:
        ...
    @property
    def normal(self) -> int:
        ...
    @property
    def normal_reasons(self) -> dict[str, int]:
        ...
    @property
    def not_validated(self) -> dict[str, int]:
        ...
    @property
    def received(self) -> int:
        ...
class GroCell:
    """
    One NAPI context's GRO (napi_gro_receive / flush).
    """
    def __init__(self, config: GroConfig = ...) -> None:
        ...
    def flush(self) -> list[SkBuff]:
        ...
    def receive(self, skb: SkBuff, hash: typing.SupportsInt | typing.SupportsIndex = 0) -> GroResult:
        ...
    @property
    def config(self) -> GroConfig:
        ...
    @property
    def held(self) -> int:
        ...
    @property
    def last_reason(self) -> str:
        ...
    @property
    def stats(self) -> GroStats:
        ...
class VxlanDf:
    """
    ip link ... type vxlan df unset|set|inherit.
    
    Members:
    
      UNSET
    
      SET
    
      INHERIT
    """
    INHERIT: typing.ClassVar[VxlanDf]
    SET: typing.ClassVar[VxlanDf]
    UNSET: typing.ClassVar[VxlanDf]
    __members__: typing.ClassVar[dict[str, VxlanDf]]
    @typing.overload
    def __eq__(self, other: VxlanDf) -> bool:
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
    def __ne__(self, other: VxlanDf) -> bool:
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
class VxlanConfig:
    """
    A vxlan device's options.
    """
    df: VxlanDf
    mac: str
    name: str
    remcsum_nopartial: bool
    remcsum_rx: bool
    remcsum_tx: bool
    ttl_inherit: bool
    udp6_zero_csum_rx: bool
    udp6_zero_csum_tx: bool
    udp_csum: bool | None
    up: bool
    def __init__(self, name: str = 'vxlan0', mac: str = '00:00:00:00:00:00', vni: typing.SupportsInt | typing.SupportsIndex = 0, dstport: typing.SupportsInt | typing.SupportsIndex = 8472, port_min: typing.SupportsInt | typing.SupportsIndex = 0, port_max: typing.SupportsInt | typing.SupportsIndex = 0, local: str = '0.0.0.0', remote: str = '0.0.0.0', ttl: typing.SupportsInt | typing.SupportsIndex = 0, ttl_inherit: bool = False, tos: typing.SupportsInt | typing.SupportsIndex = 0, df: VxlanDf = ..., flowlabel: typing.SupportsInt | typing.SupportsIndex = 0, udp_csum: bool | None = None, udp6_zero_csum_tx: bool = False, udp6_zero_csum_rx: bool = False, remcsum_tx: bool = False, remcsum_rx: bool = False, remcsum_nopartial: bool = False, up: bool = True) -> None:
        ...
    def udp_csum_tx(self, kv: KernelVersion = ...) -> bool:
        ...
    @property
    def dstport(self) -> int:
        ...
    @dstport.setter
    def dstport(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def flowlabel(self) -> int:
        ...
    @flowlabel.setter
    def flowlabel(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def ipv6(self) -> bool:
        ...
    @property
    def local(self) -> str:
        ...
    @property
    def port_max(self) -> int:
        ...
    @port_max.setter
    def port_max(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def port_min(self) -> int:
        ...
    @port_min.setter
    def port_min(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def remote(self) -> str:
        ...
    @property
    def tos(self) -> int:
        ...
    @tos.setter
    def tos(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def ttl(self) -> int:
        ...
    @ttl.setter
    def ttl(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def vni(self) -> int:
        ...
    @vni.setter
    def vni(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
class UnderlayRoute:
    """
    What the route to the remote gives transmit.
    """
    dst_mac: str
    src_mac: str
    def __init__(self, src_mac: str = '00:00:00:00:00:00', dst_mac: str = '00:00:00:00:00:00', ip_id: typing.SupportsInt | typing.SupportsIndex = 0, flow_hash: typing.SupportsInt | typing.SupportsIndex = 0, hop_limit: typing.SupportsInt | typing.SupportsIndex = 64, port_low: typing.SupportsInt | typing.SupportsIndex = 32768, port_high: typing.SupportsInt | typing.SupportsIndex = 60999, dev_features: typing.SupportsInt | typing.SupportsIndex = 0) -> None:
        ...
    @property
    def dev_features(self) -> int:
        ...
    @dev_features.setter
    def dev_features(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def flow_hash(self) -> int:
        ...
    @flow_hash.setter
    def flow_hash(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def hop_limit(self) -> int:
        ...
    @hop_limit.setter
    def hop_limit(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def ip_id(self) -> int:
        ...
    @ip_id.setter
    def ip_id(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def port_high(self) -> int:
        ...
    @port_high.setter
    def port_high(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def port_low(self) -> int:
        ...
    @port_low.setter
    def port_low(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
class XmitOptions:
    """
    Device and skb properties the transmit path reads beyond DeviceFeatures/SkBuff.
    """
    frag_list_head_frag: bool
    frag_list_linear: bool
    def __init__(self, gso_partial_features: typing.SupportsInt | typing.SupportsIndex = 0, frag_list_linear: bool = True, frag_list_head_frag: bool = False) -> None:
        ...
    @property
    def gso_partial_features(self) -> int:
        ...
    @gso_partial_features.setter
    def gso_partial_features(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
class IbmvethConfig:
    """
    An ibmveth adapter's firmware options.
    """
    active_trunk: bool
    fw_large_send: bool
    illan_options: bool
    large_send: bool
    old_large_send: bool
    def __init__(self, illan_options: bool = True, large_send: bool = True, old_large_send: bool = False, fw_large_send: bool = True, active_trunk: bool = True) -> None:
        ...
class OvsSkb:
    """
    An skb inside the OVS kernel datapath.
    """
    nfct_attached: bool
    skb: SkBuff
    vlan_present: bool
    def describe(self) -> str:
        ...
    @property
    def ct_state(self) -> int:
        ...
    @ct_state.setter
    def ct_state(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def ct_zone(self) -> int:
        ...
    @ct_zone.setter
    def ct_zone(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def cutlen(self) -> int:
        ...
    @cutlen.setter
    def cutlen(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def key_ip_proto(self) -> int:
        ...
    @property
    def key_valid(self) -> bool:
        ...
    @property
    def recirc_id(self) -> int:
        ...
    @recirc_id.setter
    def recirc_id(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def vlan_tci(self) -> int:
        ...
    @vlan_tci.setter
    def vlan_tci(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def vlan_tpid(self) -> int:
        ...
    @vlan_tpid.setter
    def vlan_tpid(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
class KernelHost:
    """
    A Linux host: NIC, VXLAN, switch and guest.
    """
    attach: str
    eswitch_offload: bool
    gro: bool
    ibmveth: IbmvethConfig | None
    kv: KernelVersion
    nic_dev: DeviceFeatures
    nic_xmit: XmitOptions
    route: UnderlayRoute
    rx_meta: RxMeta
    stack_dev_mac: str | None
    sw: str
    tap: TapConfig
    vxlan: VxlanConfig | None
    def __init__(self, nic: str | offlab._core.NicProfile = 'ixgbe_82599', kv: KernelVersion = ...) -> None:
        ...
    def __repr__(self) -> str:
        ...
    def add_ovs_dec_ttl(self) -> None:
        ...
    def add_ovs_set_eth(self, src: str | None = None, dst: str | None = None) -> None:
        ...
    def add_ovs_set_ipv4(self, src: str | None = None, dst: str | None = None, tos: typing.SupportsInt | typing.SupportsIndex | None = None, ttl: typing.SupportsInt | typing.SupportsIndex | None = None) -> None:
        ...
    def add_ovs_set_ipv6(self, src: str | None = None, dst: str | None = None, tclass: typing.SupportsInt | typing.SupportsIndex | None = None, label: typing.SupportsInt | typing.SupportsIndex | None = None, hlimit: typing.SupportsInt | typing.SupportsIndex | None = None) -> None:
        ...
    def add_ovs_set_tcp(self, src: typing.SupportsInt | typing.SupportsIndex | None = None, dst: typing.SupportsInt | typing.SupportsIndex | None = None) -> None:
        ...
    def add_ovs_set_udp(self, src: typing.SupportsInt | typing.SupportsIndex | None = None, dst: typing.SupportsInt | typing.SupportsIndex | None = None) -> None:
        ...
    def clear_ovs_actions(self) -> None:
        ...
    def clear_ovs_tunnel(self) -> None:
        ...
    def set_ovs_tunnel(self, dst: str, src: str = '0.0.0.0', vni: typing.SupportsInt | typing.SupportsIndex = 0, csum: bool = False, tos: typing.SupportsInt | typing.SupportsIndex = 0, ttl: typing.SupportsInt | typing.SupportsIndex = 64, tp_dst: typing.SupportsInt | typing.SupportsIndex = 0, df: bool = False) -> None:
        ...
    @property
    def mss(self) -> int:
        ...
    @mss.setter
    def mss(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def mtu(self) -> int:
        ...
    @mtu.setter
    def mtu(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def nic(self) -> str:
        ...
    @property
    def ovs_action_count(self) -> int:
        ...
    @property
    def ovs_tunnel(self) -> typing.Any:
        ...
    @property
    def stack_udp_ports(self) -> list[int]:
        ...
    @stack_udp_ports.setter
    def stack_udp_ports(self, arg1: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> None:
        ...
    @property
    def tap_offloads(self) -> int:
        ...
    @tap_offloads.setter
    def tap_offloads(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
class TxOutcome:
    """
    What a host's transmit put on the wire.
    """
    @property
    def counters(self) -> dict[str, int]:
        ...
    @property
    def drops(self) -> dict[str, int]:
        ...
    @property
    def hw_switched(self) -> int:
        ...
    @property
    def ibmveth(self) -> list:
        ...
    @property
    def to_driver(self) -> list[SkBuff]:
        ...
    @property
    def wire(self) -> list:
        ...
    @property
    def work(self) -> dict:
        ...
class RxOutcome:
    """
    What a host's receive delivered.
    """
    @property
    def cell_gro(self) -> GroStats:
        ...
    @property
    def cell_gro_ran(self) -> bool:
        ...
    @property
    def counters(self) -> dict[str, int]:
        ...
    @property
    def delivered(self) -> list[SkBuff]:
        ...
    @property
    def drops(self) -> dict[str, int]:
        ...
    @property
    def hw_switched(self) -> int:
        ...
    @property
    def ibmveth(self) -> list:
        ...
    @property
    def nic_gro(self) -> GroStats:
        ...
    @property
    def not_validated(self) -> dict[str, int]:
        ...
    @property
    def tap_hdrs(self) -> list[VnetHdrTunnel]:
        ...
    @property
    def wire(self) -> list:
        ...
    @property
    def work(self) -> dict:
        ...
class GeneveDf:
    """
    ip link ... type geneve df unset|set|inherit.
    
    Members:
    
      UNSET
    
      SET
    
      INHERIT
    """
    INHERIT: typing.ClassVar[GeneveDf]
    SET: typing.ClassVar[GeneveDf]
    UNSET: typing.ClassVar[GeneveDf]
    __members__: typing.ClassVar[dict[str, GeneveDf]]
    @typing.overload
    def __eq__(self, other: GeneveDf) -> bool:
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
    def __ne__(self, other: GeneveDf) -> bool:
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
class GeneveConfig:
    """
    A geneve device's options.
    """
    collect_metadata: bool
    critical: bool
    df: GeneveDf
    inner_proto_inherit: bool
    mac: str
    name: str
    oam: bool
    options: bytes
    ttl_inherit: bool
    udp6_zero_csum_rx: bool
    udp6_zero_csum_tx: bool
    udp_csum: bool | None
    up: bool
    def __init__(self, name: str = 'geneve0', mac: str = '00:00:00:00:00:00', vni: typing.SupportsInt | typing.SupportsIndex = 0, dstport: typing.SupportsInt | typing.SupportsIndex = 6081, local: str = '0.0.0.0', remote: str = '0.0.0.0', ttl: typing.SupportsInt | typing.SupportsIndex = 0, ttl_inherit: bool = False, tos: typing.SupportsInt | typing.SupportsIndex = 0, df: GeneveDf = ..., label: typing.SupportsInt | typing.SupportsIndex = 0, udp_csum: bool | None = None, udp6_zero_csum_tx: bool = False, udp6_zero_csum_rx: bool = False, options: bytes = b'', oam: bool = False, critical: bool = False, collect_metadata: bool = False, inner_proto_inherit: bool = False, up: bool = True) -> None:
        ...
    def udp_csum_tx(self) -> bool:
        ...
    @property
    def dstport(self) -> int:
        ...
    @dstport.setter
    def dstport(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def ipv6(self) -> bool:
        ...
    @property
    def label(self) -> int:
        ...
    @label.setter
    def label(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def local(self) -> str:
        ...
    @property
    def port_max(self) -> int:
        ...
    @port_max.setter
    def port_max(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def port_min(self) -> int:
        ...
    @port_min.setter
    def port_min(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def remote(self) -> str:
        ...
    @property
    def tos(self) -> int:
        ...
    @tos.setter
    def tos(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def ttl(self) -> int:
        ...
    @ttl.setter
    def ttl(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def vni(self) -> int:
        ...
    @vni.setter
    def vni(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
class GroGeneveSocket:
    """
    A Geneve socket's port for GRO.
    """
    def __init__(self, port: typing.SupportsInt | typing.SupportsIndex = 6081) -> None:
        ...
    @property
    def port(self) -> int:
        ...
    @port.setter
    def port(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
def all_virtual_devices(kv: KernelVersion = ...) -> list[VirtualDevice]:
    ...
def bridge_device(kv: KernelVersion = ...) -> VirtualDevice:
    ...
def can_checksum_protocol(features: typing.SupportsInt | typing.SupportsIndex, ethertype: typing.SupportsInt | typing.SupportsIndex) -> bool:
    ...
def device_transmit(skb: SkBuff, dev: DeviceFeatures) -> tuple[list, dict[str, int]]:
    """
    The frames a NIC sends for the skb; (frames, counters).
    """
def driver_receive(frame: bytes, profile: str | offlab._core.NicProfile, kv: KernelVersion = ..., meta: RxMeta | None = None, features: DeviceFeatures | None = None) -> tuple[RxResult, dict]:
    """
    What the profile's Linux driver hands to the stack; returns (RxResult, counters).
    """
def feature_from_name(name: str) -> int:
    ...
def feature_names(features: typing.SupportsInt | typing.SupportsIndex) -> list[str]:
    ...
def flow_dissect_basic(skb: SkBuff, proto: typing.SupportsInt | typing.SupportsIndex, nhoff: typing.SupportsInt | typing.SupportsIndex) -> typing.Any:
    ...
def geneve_rcv(outer: SkBuff, cfg: GeneveConfig, kv: KernelVersion = ...) -> tuple[bool, str, SkBuff, str, dict[str, int]]:
    """
    IP/UDP receive and geneve_udp_encap_recv; returns (delivered, reason, inner skb, pkt_type, counters).
    """
def geneve_xmit(inner: SkBuff, cfg: GeneveConfig, route: UnderlayRoute, kv: KernelVersion = ...) -> tuple[bool, str, SkBuff, dict[str, int]]:
    """
    geneve_xmit; returns (sent, reason, skb as handed to the underlay, counters).
    """
def gso_type_names(gso_type: typing.SupportsInt | typing.SupportsIndex) -> str:
    ...
def host_guest_skb(host: KernelHost, frame: bytes, hdr: offlab._core.VnetHdr) -> SkBuff:
    ...
def host_receive(host: KernelHost, frames: collections.abc.Sequence[bytes]) -> RxOutcome:
    """
    Frames from the wire, one NAPI poll, through the host.
    """
def host_socket_skb(host: KernelHost, frame: bytes) -> SkBuff:
    ...
def host_transmit(host: KernelHost, skb: SkBuff) -> TxOutcome:
    """
    A guest's (or local socket's) skb through the host.
    """
def ibmveth_features(cfg: IbmvethConfig, kv: KernelVersion = ...) -> DeviceFeatures:
    ...
def ibmveth_start_xmit(skb: SkBuff, cfg: IbmvethConfig, kv: KernelVersion = ...) -> tuple[bool, str, SkBuff, bool, int, int, dict[str, int]]:
    """
    ibmveth_start_xmit; (sent, drop, skb, largesend, mss, linearized_bytes, counters).
    """
def kernel_device_features(profile: str | offlab._core.NicProfile) -> DeviceFeatures:
    ...
def kernel_view(profile: str | offlab._core.NicProfile) -> KernelNicView:
    ...
def net_gso_ok(features: typing.SupportsInt | typing.SupportsIndex, gso_type: typing.SupportsInt | typing.SupportsIndex) -> bool:
    ...
def netif_needs_gso(skb: SkBuff, features: typing.SupportsInt | typing.SupportsIndex) -> bool:
    ...
def netif_skb_features(skb: SkBuff, dev: DeviceFeatures, kv: KernelVersion = ..., options: XmitOptions | None = None) -> int:
    ...
def nf_conntrack_in(skb: SkBuff, l3_ofs: typing.SupportsInt | typing.SupportsIndex, hook: str = 'pre_routing', checksum: bool = True, tcp_loose: bool = True, existing: str = 'none') -> dict:
    ...
def nf_nat_manip_pkt(skb: SkBuff, l3_ofs: typing.SupportsInt | typing.SupportsIndex, manip: str = 'src', addr: str, port: typing.SupportsInt | typing.SupportsIndex | None = None, kv: KernelVersion = ...) -> bool:
    ...
def ovs_ct(s: OvsSkb, zone: typing.SupportsInt | typing.SupportsIndex = 0, commit: bool = False, nat: dict | None = None, existing: str = 'none', checksum: bool = True, tcp_loose: bool = True, kv: KernelVersion = ...) -> dict:
    ...
def ovs_dec_ttl(s: OvsSkb) -> int:
    ...
def ovs_output(s: OvsSkb, vport: str = 'netdev', mtu: typing.SupportsInt | typing.SupportsIndex | None = None, vxlan_dst_port: typing.SupportsInt | typing.SupportsIndex = 4789) -> dict:
    ...
def ovs_pop_vlan(s: OvsSkb) -> int:
    ...
def ovs_push_vlan(s: OvsSkb, tpid: typing.SupportsInt | typing.SupportsIndex = 33024, tci: typing.SupportsInt | typing.SupportsIndex = 0, kv: KernelVersion = ...) -> int:
    ...
def ovs_recirc(s: OvsSkb, recirc_id: typing.SupportsInt | typing.SupportsIndex) -> None:
    ...
def ovs_set_eth(s: OvsSkb, src: str | None = None, dst: str | None = None) -> int:
    ...
def ovs_set_ipv4(s: OvsSkb, src: str | None = None, dst: str | None = None, tos: typing.SupportsInt | typing.SupportsIndex | None = None, tos_mask: typing.SupportsInt | typing.SupportsIndex = 255, ttl: typing.SupportsInt | typing.SupportsIndex | None = None) -> int:
    ...
def ovs_set_ipv6(s: OvsSkb, src: str | None = None, dst: str | None = None, tclass: typing.SupportsInt | typing.SupportsIndex | None = None, label: typing.SupportsInt | typing.SupportsIndex | None = None, hlimit: typing.SupportsInt | typing.SupportsIndex | None = None, kv: KernelVersion = ...) -> int:
    ...
def ovs_set_sctp(s: OvsSkb, src: typing.SupportsInt | typing.SupportsIndex | None = None, dst: typing.SupportsInt | typing.SupportsIndex | None = None) -> int:
    ...
def ovs_set_tcp(s: OvsSkb, src: typing.SupportsInt | typing.SupportsIndex | None = None, dst: typing.SupportsInt | typing.SupportsIndex | None = None) -> int:
    ...
def ovs_set_tunnel(s: OvsSkb, dst: str, src: str = '0.0.0.0', tun_id: typing.SupportsInt | typing.SupportsIndex = 0, tos: typing.SupportsInt | typing.SupportsIndex = 0, ttl: typing.SupportsInt | typing.SupportsIndex = 64, tp_dst: typing.SupportsInt | typing.SupportsIndex = 0, csum: bool = False, df: bool = False) -> None:
    ...
def ovs_set_udp(s: OvsSkb, src: typing.SupportsInt | typing.SupportsIndex | None = None, dst: typing.SupportsInt | typing.SupportsIndex | None = None) -> int:
    ...
def ovs_vport_receive(skb: SkBuff, core_vlan_untag: bool = True) -> OvsSkb:
    ...
def packet_csum_status(skb: SkBuff, outgoing: bool = False) -> int:
    ...
def packet_rcv_vnet(skb: SkBuff, sock_dgram: bool = False) -> tuple[str, offlab._core.VnetHdr]:
    ...
def packet_snd(frame: bytes, hdr: offlab._core.VnetHdr | None = None, cfg: PacketSocketConfig = ...) -> tuple[str, SkBuff]:
    ...
def parse_kernel_version(text: str) -> KernelVersion:
    ...
def predict_conntrack(frame: bytes, ip_summed: IpSummed = ..., hook: str = 'pre_routing', checksum: bool = True, tcp_loose: bool = True, existing: str = 'none') -> dict:
    ...
def pskb_trim_rcsum(skb: SkBuff, len: typing.SupportsInt | typing.SupportsIndex, kv: KernelVersion = ...) -> int:
    ...
def skb_checksum_help(skb: SkBuff) -> int:
    """
    skb_checksum_help in place; 0 or -errno.
    """
def skb_complete_partial(skb: SkBuff) -> bool:
    """
    skb_checksum_help's completion of a PARTIAL checksum, in place.
    """
def skb_csum_hwoffload_help(skb: SkBuff, features: typing.SupportsInt | typing.SupportsIndex, kv: KernelVersion = ...) -> int:
    """
    skb_csum_hwoffload_help in place; 0 or -errno.
    """
def skb_csum_unnecessary(skb: SkBuff, data_ofs: typing.SupportsInt | typing.SupportsIndex = 0) -> bool:
    ...
def skb_gso_ok(skb: SkBuff, features: typing.SupportsInt | typing.SupportsIndex) -> bool:
    ...
def skb_gso_segment(skb: SkBuff, features: typing.SupportsInt | typing.SupportsIndex, dev: DeviceFeatures, kv: KernelVersion = ..., options: XmitOptions | None = None) -> tuple[int, bool, list[SkBuff], dict[str, int], dict]:
    """
    skb_gso_segment (tx path); returns (err, unsegmented, segs, counters, work).
    """
def skb_needs_linearize(skb: SkBuff, features: typing.SupportsInt | typing.SupportsIndex) -> bool:
    ...
def stack_rcv(skb: SkBuff, dev_mac: str | None = None, udp_ports: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex] = [], udp_no_check6_rx: bool = False, kv: KernelVersion = ...) -> tuple[bool, str, SkBuff, dict, dict[str, int]]:
    """
    Local receive of a frame; returns (delivered, reason, skb, info, counters).
    """
def tap_device(kv: KernelVersion = ...) -> VirtualDevice:
    ...
def tap_features(tun_f: typing.SupportsInt | typing.SupportsIndex, kv: KernelVersion = ...) -> DeviceFeatures:
    """
    set_offload: the TAP's features after TUNSETOFFLOAD (OfflabError for EINVAL).
    """
def tap_read(skb: SkBuff, tap: DeviceFeatures, cfg: TapConfig = ...) -> tuple[str, VnetHdrTunnel]:
    ...
def tap_write(frame: bytes, hdr: typing.Any = None, cfg: TapConfig = ...) -> tuple[str, SkBuff, dict]:
    ...
def validate_xmit_skb(skb: SkBuff, dev: DeviceFeatures, kv: KernelVersion = ..., options: XmitOptions | None = None) -> tuple[list[SkBuff], dict[str, int], dict]:
    """
    validate_xmit_skb; returns (skbs, counters, work). skbs == [] means dropped.
    """
def veth_device(kv: KernelVersion = ...) -> VirtualDevice:
    ...
def veth_uses_napi(tx: DeviceFeatures, peer: DeviceFeatures, peer_xdp: bool = False, from_local_socket: bool = False) -> bool:
    ...
def veth_xmit(skb: SkBuff, peer: DeviceFeatures, kv: KernelVersion = ...) -> None:
    ...
def virtio_net_hdr_from_skb(skb: SkBuff, has_data_valid: bool, vlan_hlen: typing.SupportsInt | typing.SupportsIndex = 0) -> tuple[str, offlab._core.VnetHdr]:
    ...
def virtio_net_hdr_tnl_from_skb(skb: SkBuff, tnl: bool, has_data_valid: bool, vlan_hlen: typing.SupportsInt | typing.SupportsIndex = 0) -> tuple[str, VnetHdrTunnel]:
    ...
def virtio_net_hdr_tnl_to_skb(skb: SkBuff, tnl_hdr: VnetHdrTunnel, tnl: bool, tnl_csum: bool, protocol: typing.SupportsInt | typing.SupportsIndex = 0, network_header_set: bool = False) -> str:
    ...
def virtio_net_hdr_to_skb(skb: SkBuff, hdr: offlab._core.VnetHdr, protocol: typing.SupportsInt | typing.SupportsIndex = 0, network_header_set: bool = False) -> str:
    ...
def vxlan_compute_rco(start: typing.SupportsInt | typing.SupportsIndex, csum_offset: typing.SupportsInt | typing.SupportsIndex) -> int:
    ...
def vxlan_device(kv: KernelVersion = ...) -> VirtualDevice:
    ...
def vxlan_rcv(outer: SkBuff, cfg: VxlanConfig, kv: KernelVersion = ...) -> tuple[bool, str, SkBuff, str, dict[str, int]]:
    """
    IP/UDP receive and vxlan_rcv; returns (delivered, reason, inner skb, pkt_type, counters).
    """
def vxlan_source_port(hash: typing.SupportsInt | typing.SupportsIndex, port_min: typing.SupportsInt | typing.SupportsIndex, port_max: typing.SupportsInt | typing.SupportsIndex, route: UnderlayRoute) -> int:
    ...
def vxlan_xmit(inner: SkBuff, cfg: VxlanConfig, route: UnderlayRoute, kv: KernelVersion = ...) -> tuple[bool, str, SkBuff, dict[str, int]]:
    """
    vxlan_xmit_one; returns (sent, reason, skb as handed to the underlay, counters).
    """
GSO_TCP_ACCECN: int = 524288
GSO_TCP_FIXEDID_618: int = 1073741824
GSO_TCP_FIXEDID_INNER_618: int = 2147483648
LAB_KERNEL: KernelVersion
