"""Captures (pcap, pcapng) read within bounds: the file is read whole under offlab's input
limit (safeio), every pcapng block's length is checked against the bytes that are really
there, and a classic pcap must consist of whole records. A forged length therefore costs
nothing and a corrupt file is an error, never a silently shorter list of frames."""

from __future__ import annotations

import io
import os
import struct
from collections.abc import Iterator
from typing import Any

import dpkt

from . import safeio
from ._core import OfflabError

# pcapng section header block type and byte-order magic (pcapng draft, section 4.1).
_SHB = 0x0A0D0D0A
_MAGIC_LE = b"\x4d\x3c\x2b\x1a"
_MAGIC_BE = b"\x1a\x2b\x3c\x4d"
# Classic pcap file and record header sizes (pcap file format draft, sections 4 and 5).
_PCAP_HEADER = 24
_PCAP_RECORD = 16


def pcapng_blocks(data: bytes, name: str) -> Iterator[tuple[int, bytes, str]]:
    """(block type, body, byte order) of every block, each length checked against the data;
    raises OfflabError naming `name` and the byte offset of the first bad block."""
    if len(data) < 12 or struct.unpack_from("<I", data)[0] != _SHB:
        raise OfflabError(f"{name}: not a pcapng file (no section header block)")
    endian = "<"
    at = 0
    while at < len(data):
        if len(data) - at < 12:
            raise OfflabError(f"{name}: truncated block at byte {at}")
        btype = struct.unpack_from("<I", data, at)[0]
        if btype == _SHB:
            magic = data[at + 8 : at + 12]
            if magic not in (_MAGIC_LE, _MAGIC_BE):
                raise OfflabError(f"{name}: bad byte-order magic at byte {at}")
            endian = "<" if magic == _MAGIC_LE else ">"
        else:
            btype = struct.unpack_from(endian + "I", data, at)[0]
        blen = struct.unpack_from(endian + "I", data, at + 4)[0]
        if blen < 12 or blen % 4 or blen > len(data) - at:
            raise OfflabError(f"{name}: corrupt or truncated block at byte {at} (length {blen})")
        if struct.unpack_from(endian + "I", data, at + blen - 4)[0] != blen:
            raise OfflabError(f"{name}: block at byte {at} has mismatched lengths")
        yield btype, data[at + 8 : at + blen - 4], endian
        at += blen


def _pcap_records_whole(data: bytes, name: str) -> None:
    """Checks that a classic pcap is its file header and whole records: dpkt hands back a
    shortened frame for a record whose length runs past the end instead of failing."""
    magic = data[:4]
    endian = "<" if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    if len(data) < _PCAP_HEADER:
        raise OfflabError(f"{name}: truncated pcap file header")
    at, n = _PCAP_HEADER, 0
    while at < len(data):
        n += 1
        if len(data) - at < _PCAP_RECORD:
            raise OfflabError(f"{name}: record {n}: truncated record header at byte {at}")
        incl = struct.unpack_from(endian + "I", data, at + 8)[0]
        if incl > len(data) - at - _PCAP_RECORD:
            raise OfflabError(
                f"{name}: record {n} at byte {at} claims {incl} bytes; "
                f"{len(data) - at - _PCAP_RECORD} are left in the file"
            )
        at += _PCAP_RECORD + incl


def _pcap_frames(data: bytes, name: str) -> Iterator[bytes]:
    reader: Any = dpkt.pcap.Reader(io.BytesIO(data))  # refuses an unknown magic
    _pcap_records_whole(data, name)
    for _, buf in reader:
        yield bytes(buf)


def _pcapng_frames(data: bytes, name: str) -> Iterator[bytes]:
    # Every block is whole once pcapng_blocks has walked the file, so dpkt cannot be
    # asked to read past the end.
    for _ in pcapng_blocks(data, name):
        pass
    for _, buf in dpkt.pcapng.Reader(io.BytesIO(data)):
        yield bytes(buf)


def read_frames(path: str | os.PathLike[str]) -> list[bytes]:
    """Frames of a pcap or pcapng file (no metadata); OfflabError naming the file for
    anything that is not a whole, valid capture within offlab's limits."""
    name = f"capture {os.fspath(path)}"
    data = safeio.read_bytes(path, "capture")
    if len(data) < 4:
        raise OfflabError(f"{name}: too short to be a pcap or pcapng file")
    is_ng = struct.unpack_from("<I", data)[0] == _SHB
    cap = safeio.limit("frames")
    frames: list[bytes] = []
    try:
        for frame in (_pcapng_frames if is_ng else _pcap_frames)(data, name):
            frames.append(frame)
            if len(frames) > cap:
                raise OfflabError(
                    f"{name}: more than {cap} frames (raise with {safeio.LIMITS['frames'][0]})"
                )
    except OfflabError:
        raise
    # dpkt reports a malformed file with several exception types (NeedData, UnpackError,
    # ValueError for a bad magic, struct.error and IndexError inside option parsing).
    except (dpkt.Error, ValueError, struct.error, IndexError, TypeError, KeyError) as e:
        detail = " ".join(str(e).split()) or type(e).__name__
        raise OfflabError(f"{name}: not a valid pcap or pcapng file ({detail})") from None
    return frames


__all__ = ["pcapng_blocks", "read_frames"]
