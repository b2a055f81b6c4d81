"""
Internet checksum and CRC32c.
"""
from __future__ import annotations
import typing
__all__: list[str] = ['compute', 'crc32c', 'update16', 'verify']
def compute(arg0: bytes) -> int:
    """
    The Internet checksum (RFC 1071) of the bytes.
    """
def crc32c(arg0: bytes) -> int:
    """
    CRC32c (Castagnoli) as SCTP uses it.
    """
def update16(old_csum: typing.SupportsInt | typing.SupportsIndex, old_word: typing.SupportsInt | typing.SupportsIndex, new_word: typing.SupportsInt | typing.SupportsIndex) -> int:
    """
    RFC 1624 eqn. 3 incremental update.
    """
def verify(arg0: bytes) -> bool:
    """
    True if the bytes, checksum included, sum to 0xffff.
    """
