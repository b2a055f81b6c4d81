"""
TUNSETOFFLOAD flags.
"""
from __future__ import annotations
__all__: list[str] = ['CSUM', 'TSO4', 'TSO6', 'TSO_ECN', 'UDP_TUNNEL_GSO', 'UDP_TUNNEL_GSO_CSUM', 'UFO', 'USO4', 'USO6']
CSUM: int = 1
TSO4: int = 2
TSO6: int = 4
TSO_ECN: int = 8
UDP_TUNNEL_GSO: int = 128
UDP_TUNNEL_GSO_CSUM: int = 256
UFO: int = 16
USO4: int = 32
USO6: int = 64
