"""
TP_STATUS_* checksum bits.
"""
from __future__ import annotations
__all__: list[str] = ['CSUMNOTREADY', 'CSUM_VALID', 'GSO_TCP']
CSUMNOTREADY: int = 8
CSUM_VALID: int = 128
GSO_TCP: int = 256
