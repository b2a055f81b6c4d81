"""offlab traces: pcapng files whose packet comments (``offlab {json}``) carry the
offload metadata of each packet handed to a NIC (``tx`` records) and the frames
predicted on the wire (``wire`` records). The format is specified in
docs/trace-format.md; this module reads, validates and writes it."""

from __future__ import annotations

import json
import os
import struct
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import dpkt

from . import _core, capture, safeio
from .capture import read_frames

PREFIX = "offlab "
ROLES = ("tx", "wire", "step")
STATUSES = ("unknown", "bad", "good", "partial")
OFS_KEYS = ("l3", "l4", "inner_l2", "inner_l3", "inner_l4")
MBUF_KEYS = ("outer_l2_len", "outer_l3_len", "l2_len", "l3_len", "l4_len")

# pcapng block types and option codes (pcapng draft, section 4 and 3.5).
_SHB = 0x0A0D0D0A
_IDB = 0x00000001
_EPB = 0x00000006
_OPT_COMMENT = 1
_LINKTYPE_ETHERNET = 1

# Bits of the OVS offloads word (lib/dp-packet.h) used to derive layer lengths.
_TUNNEL_BITS = (1 << 11) | (1 << 12)


class TraceError(ValueError):
    """A trace that breaks docs/trace-format.md; the message names file and packet."""


@dataclass
class Record:
    """One packet of a trace: the frame and its comment's JSON object."""

    frame: bytes
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def role(self) -> str:
        default = "wire" if self.meta.get("op") == "wire" else "step"
        return str(self.meta.get("role", default))

    @property
    def offloads(self) -> int:
        return int(self.meta.get("offloads", 0))

    @property
    def tso_segsz(self) -> int:
        return int(self.meta.get("tso_segsz", 0))

    def packet(self) -> _core.Packet:
        """The record as a core packet: bytes, offsets, offloads word, tso_segsz."""
        p = _core.Packet(self.frame)
        ofs = self.meta.get("ofs", {})
        p.l3_ofs = ofs.get("l3")
        p.l4_ofs = ofs.get("l4")
        p.inner_l2_ofs = ofs.get("inner_l2")
        p.inner_l3_ofs = ofs.get("inner_l3")
        p.inner_l4_ofs = ofs.get("inner_l4")
        p.offloads = _core.Offloads(self.offloads)
        p.tso_segsz = self.tso_segsz
        return p


# ---------------------------------------------------------------------------
# Derived metadata


def _l4_header_len(frame: bytes, l3: int | None, l4: int | None) -> int:
    if l3 is None or l4 is None or l4 >= len(frame):
        return 0
    version = frame[l3] >> 4
    if version == 4:
        proto = frame[l3 + 9]
    elif version == 6:
        # The protocol of the header just before L4: walk the extension chain.
        proto, at = frame[l3 + 6], l3 + 40
        while at < l4 and proto in (0, 43, 60) and at + 2 <= len(frame):
            proto, at = frame[at], at + (frame[at + 1] + 1) * 8
    else:
        return 0
    if proto == 6 and l4 + 13 <= len(frame):
        return (frame[l4 + 12] >> 4) * 4
    return {17: 8, 132: 12}.get(proto, 0)


def mbuf_lengths(frame: bytes, offloads: int, ofs: dict[str, int | None]) -> dict[str, int]:
    """DPDK rte_mbuf layer lengths from the offsets (docs/trace-format.md table)."""

    def diff(a: str, b: str) -> int:
        x, y = ofs.get(a), ofs.get(b)
        return y - x if x is not None and y is not None else 0

    l3 = ofs.get("l3")
    if offloads & _TUNNEL_BITS:
        return {
            "outer_l2_len": l3 or 0,
            "outer_l3_len": diff("l3", "l4"),
            "l2_len": diff("l4", "inner_l3"),
            "l3_len": diff("inner_l3", "inner_l4"),
            "l4_len": _l4_header_len(frame, ofs.get("inner_l3"), ofs.get("inner_l4")),
        }
    return {
        "outer_l2_len": 0,
        "outer_l3_len": 0,
        "l2_len": l3 or 0,
        "l3_len": diff("l3", "l4"),
        "l4_len": _l4_header_len(frame, l3, ofs.get("l4")),
    }


def offsets(p: _core.Packet) -> dict[str, int | None]:
    return {
        "l3": p.l3_ofs,
        "l4": p.l4_ofs,
        "inner_l2": p.inner_l2_ofs,
        "inner_l3": p.inner_l3_ofs,
        "inner_l4": p.inner_l4_ofs,
    }


def csum_verdicts(frame: bytes) -> dict[str, str]:
    """Every checksum of the frame recomputed by the independent dissector."""
    out: dict[str, str] = {}
    for c in _core.dissect(frame).checksums:
        key = c.layer if c.depth == 0 else f"{c.layer}@{c.depth}"
        out[key] = _core.verdict_name(c.verdict)
    return out


def _status_name(s: _core.CsumStatus) -> str:
    return str(s.name).lower()


def rx_report(frame: bytes, profile: _core.NicProfile) -> dict[str, str]:
    """What a receiving NIC of the profile reports for the frame (NicReceive)."""
    _, st = _core.nic_receive(frame, profile)
    return {
        "ip": _status_name(st.ip),
        "l4": _status_name(st.l4),
        "inner_ip": _status_name(st.inner_ip),
        "inner_l4": _status_name(st.inner_l4),
    }


# ---------------------------------------------------------------------------
# Building records from the core


def tx_record(p: _core.Packet, op: str = "send", **extra: Any) -> Record:
    """A ``tx`` record for a packet as the datapath hands it to netdev_send."""
    frame = p.bytes()
    ofs = offsets(p)
    meta: dict[str, Any] = {
        "role": "tx",
        "op": op,
        "offloads": p.offloads.word,
        "tso_segsz": p.tso_segsz,
        "ofs": ofs,
        "mbuf": mbuf_lengths(frame, p.offloads.word, ofs),
    }
    meta.update(extra)
    return Record(frame, meta)


def predict(tx: Record, profile: _core.NicProfile) -> tuple[list[_core.Packet], list[str]]:
    """The packets handed to a NIC of `profile` after the datapath's egress
    (NetdevSend) and, per packet, what the NIC does (NicTransmit): returns
    ``(wire frames as packets with the handed-over offloads, errors)``."""
    nic = _core.NicTx.from_profile(profile)
    ready, errors = _core.netdev_send([tx.packet()], profile.tx_caps)
    out: list[_core.Packet] = []
    for q in ready:
        frames, _ = _core.nic_transmit(q, nic)
        for f in frames:
            w = _core.Packet(f.bytes())
            w.offloads = _core.Offloads(q.offloads.word)
            w.tso_segsz = q.tso_segsz
            out.append(w)
    return out, list(errors)


def wire_records(
    tx_index: int, tx: Record, profile: _core.NicProfile, rx_profiles: Iterable[str] = ()
) -> list[Record]:
    """The ``wire`` records predicted for `tx` (at file index `tx_index`)."""
    frames, _ = predict(tx, profile)
    out = []
    for w in frames:
        frame = w.bytes()
        meta: dict[str, Any] = {
            "role": "wire",
            "op": "wire",
            "of": tx_index,
            "profile": profile.name,
            "offloads": w.offloads.word,
            "tso_segsz": w.tso_segsz,
            "csum": csum_verdicts(frame),
        }
        rx = {name: rx_report(frame, _core.builtin_profile(name)) for name in rx_profiles}
        if rx:
            meta["rx"] = rx
        out.append(Record(frame, meta))
    return out


# ---------------------------------------------------------------------------
# Validation


def validate(records: list[Record], where: str = "trace") -> None:
    """Raises TraceError naming the first record that breaks the format."""
    for i, r in enumerate(records):
        at = f"{where}: packet {i + 1}"
        m = r.meta
        role = m.get("role")
        if role is not None and role not in ROLES:
            raise TraceError(f"{at}: role must be one of {', '.join(ROLES)}, not {role!r}")
        for key in ("op", "profile"):
            if key in m and not isinstance(m[key], str):
                raise TraceError(f"{at}: {key} must be a string, not {m[key]!r}")
        for key, hi in (("offloads", 2**32 - 1), ("tso_segsz", 65535), ("of", 2**31)):
            v = m.get(key)
            if v is not None and (
                not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= hi
            ):
                raise TraceError(f"{at}: {key} must be an integer 0..{hi}, not {v!r}")
        if r.role == "tx":
            for key in ("offloads", "tso_segsz", "ofs", "mbuf"):
                if key not in m:
                    raise TraceError(f"{at}: tx record without {key!r}")
            ofs = m["ofs"]
            if not isinstance(ofs, dict):
                raise TraceError(f"{at}: ofs must be an object")
            last = 0
            for key in OFS_KEYS:
                v = ofs.get(key)
                if v is None:
                    continue
                if not isinstance(v, int) or isinstance(v, bool) or not last <= v <= len(r.frame):
                    raise TraceError(
                        f"{at}: ofs.{key} = {v!r} is not an increasing offset within "
                        f"the {len(r.frame)}-byte frame"
                    )
                last = v
            want = mbuf_lengths(r.frame, m["offloads"], ofs)
            got = m["mbuf"]
            if not isinstance(got, dict) or any(got.get(k) != want[k] for k in MBUF_KEYS):
                raise TraceError(f"{at}: mbuf lengths {got} disagree with the offsets ({want})")
        if r.role == "wire":
            of = m.get("of")
            if of is not None and not (of < len(records) and records[of].role == "tx"):
                raise TraceError(f"{at}: 'of' = {of} does not name a tx record")
            for prof, rep in (m.get("rx") or {}).items():
                if not isinstance(rep, dict) or any(
                    rep.get(k, "unknown") not in STATUSES
                    for k in ("ip", "l4", "inner_ip", "inner_l4")
                ):
                    raise TraceError(f"{at}: rx.{prof} must map ip/l4/inner_* to {STATUSES}")


# ---------------------------------------------------------------------------
# pcapng I/O


def _options(body: bytes, endian: str) -> list[tuple[int, bytes]]:
    out, at = [], 0
    while at + 4 <= len(body):
        code, length = struct.unpack_from(endian + "HH", body, at)
        if code == 0:
            break
        value = body[at + 4 : at + 4 + length]
        if len(value) != length:
            raise ValueError("option runs past its block")
        out.append((code, value))
        at += 4 + (length + 3) // 4 * 4
    return out


def read(path: str | os.PathLike[str]) -> list[Record]:
    """Every packet of an offlab trace, validated. Raises OSError for an
    unreadable file and TraceError for anything that is not a valid trace."""
    name = os.fspath(path)
    try:
        data = safeio.read_bytes(name, "trace")
    except _core.OfflabError as e:
        raise TraceError(str(e)) from None
    records: list[Record] = []
    max_records = safeio.limit("frames")
    linktypes: list[int] = []
    try:
        blocks = list(capture.pcapng_blocks(data, name))
    except _core.OfflabError as e:
        raise TraceError(str(e)) from None
    for btype, body, endian in blocks:
        if btype == _SHB:
            linktypes = []
        elif btype == _IDB:
            linktypes.append(struct.unpack_from(endian + "H", body)[0])
        elif btype == _EPB:
            n = len(records) + 1
            if len(body) < 20:
                raise TraceError(f"{name}: packet {n}: corrupt packet block")
            iface, _, _, cap, orig = struct.unpack_from(endian + "IIIII", body)
            if iface >= len(linktypes) or linktypes[iface] != _LINKTYPE_ETHERNET:
                raise TraceError(f"{name}: packet {n}: not on an Ethernet interface")
            if 20 + cap > len(body):
                raise TraceError(f"{name}: packet {n}: captured length runs past the block")
            if cap != orig:
                raise TraceError(f"{name}: packet {n}: truncated capture ({cap} of {orig} bytes)")
            frame = body[20 : 20 + cap]
            try:
                opts = _options(body[20 + (cap + 3) // 4 * 4 :], endian)
            except ValueError as e:
                raise TraceError(f"{name}: packet {n}: {e}") from e
            meta: dict[str, Any] = {}
            for code, value in opts:
                text = value.decode("utf-8", "replace").rstrip("\0")
                if code == _OPT_COMMENT and text.startswith(PREFIX):
                    try:
                        meta = json.loads(text[len(PREFIX) :])
                    except json.JSONDecodeError as e:
                        raise TraceError(f"{name}: packet {n}: comment is not JSON ({e})") from e
                    if not isinstance(meta, dict):
                        raise TraceError(f"{name}: packet {n}: comment is not a JSON object")
            records.append(Record(bytes(frame), meta))
            if len(records) > max_records:
                raise TraceError(
                    f"{name}: more than {max_records} packets "
                    f"(raise with {safeio.LIMITS['frames'][0]})"
                )
    validate(records, name)
    return records


def write(path: str | os.PathLike[str], records: Iterable[Record]) -> None:
    """Writes the trace atomically: a half-written file never appears at `path`."""
    records = list(records)
    name = os.fspath(path)
    validate(records, name)
    directory = os.path.dirname(os.path.abspath(name))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            writer = dpkt.pcapng.Writer(f, snaplen=262144, linktype=_LINKTYPE_ETHERNET)
            base = 1_700_000_000.0
            for i, r in enumerate(records):
                comment = PREFIX + json.dumps(r.meta)
                epb = dpkt.pcapng.EnhancedPacketBlockLE(
                    pkt_data=r.frame,
                    pkt_len=len(r.frame),
                    cap_len=len(r.frame),
                    opts=[
                        dpkt.pcapng.PcapngOptionLE(
                            code=dpkt.pcapng.PCAPNG_OPT_COMMENT, text=comment.encode()
                        ),
                        dpkt.pcapng.PcapngOptionLE(code=dpkt.pcapng.PCAPNG_OPT_ENDOFOPT),
                    ],
                )
                writer.writepkt(epb, ts=base + i * 1e-6)
        os.replace(tmp, name)
    except BaseException:
        os.unlink(tmp)
        raise


def write_frames_pcap(path: str | os.PathLike[str], frames: Iterable[bytes]) -> None:
    """Plain pcap of the frames (e.g. an rx_pcap input for the pcap PMD), atomically."""
    name = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(name))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            w = dpkt.pcap.Writer(f, snaplen=262144, linktype=_LINKTYPE_ETHERNET)
            for i, fr in enumerate(frames):
                w.writepkt(fr, ts=1_700_000_000.0 + i * 1e-6)
        os.replace(tmp, name)
    except BaseException:
        os.unlink(tmp)
        raise


__all__ = [
    "Record",
    "TraceError",
    "csum_verdicts",
    "mbuf_lengths",
    "offsets",
    "predict",
    "read",
    "read_frames",
    "rx_report",
    "tx_record",
    "validate",
    "wire_records",
    "write",
    "write_frames_pcap",
]
