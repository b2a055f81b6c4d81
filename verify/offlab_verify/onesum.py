"""One's-complement arithmetic of RFC 1071 for building witness frames and
solving corners, written apart from the core's (offlab.checksum) so the
frames do not take their checksums from the code under proof."""

from __future__ import annotations

import struct


def fold(s: int) -> int:
    """Folds the carries of a one's-complement sum into 16 bits."""
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def words(b: bytes) -> int:
    """The (unfolded) one's-complement sum of big-endian words, odd byte padded."""
    if len(b) % 2:
        b += b"\0"
    return sum(struct.unpack(f"!{len(b) // 2}H", b))
