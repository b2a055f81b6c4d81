"""
SKB_GSO_* bits.
"""
from __future__ import annotations
__all__: list[str] = ['DODGY', 'FRAGLIST', 'GRE', 'GRE_CSUM', 'PARTIAL', 'SCTP', 'TCPV4', 'TCPV6', 'TCP_ECN', 'TCP_FIXEDID', 'TUNNEL_REMCSUM', 'UDP', 'UDP_L4', 'UDP_TUNNEL', 'UDP_TUNNEL_CSUM']
DODGY: int = 2
FRAGLIST: int = 262144
GRE: int = 64
GRE_CSUM: int = 128
PARTIAL: int = 4096
SCTP: int = 16384
TCPV4: int = 1
TCPV6: int = 16
TCP_ECN: int = 4
TCP_FIXEDID: int = 8
TUNNEL_REMCSUM: int = 8192
UDP: int = 65536
UDP_L4: int = 131072
UDP_TUNNEL: int = 1024
UDP_TUNNEL_CSUM: int = 2048
