"""
virtio-net header constants.
"""
from __future__ import annotations
__all__: list[str] = ['DATA_VALID', 'GSO_ECN', 'GSO_NONE', 'GSO_TCPV4', 'GSO_TCPV6', 'GSO_UDP', 'GSO_UDP_L4', 'GSO_UDP_TUNNEL_IPV4', 'GSO_UDP_TUNNEL_IPV6', 'HDR_LEN', 'HDR_TUNNEL_LEN', 'HDR_V1_LEN', 'NEEDS_CSUM', 'RSC_INFO', 'UDP_TUNNEL_CSUM']
DATA_VALID: int = 2
GSO_ECN: int = 128
GSO_NONE: int = 0
GSO_TCPV4: int = 1
GSO_TCPV6: int = 4
GSO_UDP: int = 3
GSO_UDP_L4: int = 5
GSO_UDP_TUNNEL_IPV4: int = 32
GSO_UDP_TUNNEL_IPV6: int = 64
HDR_LEN: int = 10
HDR_TUNNEL_LEN: int = 24
HDR_V1_LEN: int = 12
NEEDS_CSUM: int = 1
RSC_INFO: int = 4
UDP_TUNNEL_CSUM: int = 8
