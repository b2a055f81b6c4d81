"""
NIC transmit capability bits (OVS netdev_ol_flags).
"""
from __future__ import annotations
import typing
__all__: list[str] = ['ALL', 'GENEVE_TNL_TSO', 'GRE_TNL_TSO', 'IPV4_CKSUM', 'OUTER_IP_CKSUM', 'OUTER_UDP_CKSUM', 'SCTP_CKSUM', 'TCP_CKSUM', 'TCP_TSO', 'UDP_CKSUM', 'VXLAN_TNL_TSO', 'from_name', 'to_string']
def from_name(arg0: str) -> int:
    """
    The bit of one capability name.
    """
def to_string(arg0: typing.SupportsInt | typing.SupportsIndex) -> str:
    """
    'ipv4_cksum|tcp_cksum' for a bit set.
    """
ALL: int = 1023
GENEVE_TNL_TSO: int = 64
GRE_TNL_TSO: int = 512
IPV4_CKSUM: int = 1
OUTER_IP_CKSUM: int = 128
OUTER_UDP_CKSUM: int = 256
SCTP_CKSUM: int = 8
TCP_CKSUM: int = 2
TCP_TSO: int = 16
UDP_CKSUM: int = 4
VXLAN_TNL_TSO: int = 32
