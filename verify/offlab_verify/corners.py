"""Directed witnesses: frames solved for the corners the core's code branches
on, beside the random ones of witnesses.py.

Each corner names the C++ branch it exercises (models/src as of the commit
that added this file). Values are solved with Z3 over one free 16-bit word of
the frame (the first payload word, or the IPv4 identification for the IPv4
header checksum), with the one's-complement arithmetic written as the core
computes it: a full checksum ``~Fold(sum)`` (csum::Finish, checksum.cc) and an
incremental update ``~Fold(~c + ~old + new)`` word by word (csum::Update16 /
UpdateBytes, checksum.cc:141-155). Solutions are cached per shape (the
constant part of the sum and the update chain), so each is solved once per
process.

`classify` tells which corners a frame has from its bytes alone (full
checksums over the rewritten bytes, not the solver's answer), for the coverage
report; the tests check the same with scapy.
"""

from __future__ import annotations

import functools
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import z3

import offlab

from .abstraction import GOOD, PARTIAL
from .onesum import fold, words

# The rewrites of the alphabet (operations.py): set_l3 writes dst 192.0.2.99 and
# TTL 33, set_l4 writes destination port 4242.
SET_L3_DST = bytes([192, 0, 2, 99])
SET_L3_TTL = 33
SET_L4_DPORT = 4242
MTU = 1500


@dataclass(frozen=True)
class Corner:
    name: str
    source: str  # the core's branch (file:line under models/src)
    what: str


CORNERS: tuple[Corner, ...] = (
    Corner("l4-csum-0000", "ovs/rewrite.cc:65 (UDP: 0 is 'none'), net/checksum.cc:144",
           "the L4 checksum field is 0x0000 (TCP: computed zero; UDP: no checksum)"),
    Corner("l4-csum-ffff", "ovs/rewrite.cc:69, net/checksum.cc:141-144 (~old_csum = 0)",
           "the L4 checksum field is 0xffff (UDP: a computed zero; TCP: the other zero)"),
    Corner("set_l3-l4-update-0000", "ovs/rewrite.cc:103 -> 57-58, 65-69 (c ? c : 0xffff)",
           "set_l3's incremental L4 checksum update comes out 0x0000"),
    Corner("set_l4-l4-update-0000", "ovs/rewrite.cc:210-214 -> 57-58, 65-69",
           "set_l4's incremental L4 checksum update comes out 0x0000"),
    Corner("set_l3-ip-update-0000", "ovs/rewrite.cc:18-26 (UpdateIpCsum, status not valid)",
           "set_l3's incremental IPv4 header checksum update comes out 0x0000"),
    Corner("odd-length", "net/checksum.cc:56 (the odd byte padded)",
           "the L4 segment has an odd length"),
    Corner("avx2-sum", "net/checksum.cc:99 (len >= 256: the AVX2 sum)",
           "the L4 segment is 256 bytes or more"),
    Corner("min-size", "ovs/rewrite.cc:53, 62 (L4 length at the header's), ovs/gso.cc:114",
           "no transport payload"),
    Corner("max-size", "ovs/netdev_len.cc:26-47 (frame length against the MTU)",
           "an IPv4 total length of the 1500-byte MTU"),
    Corner("ipv4-options", "ovs/parse.cc:79-115 (IHL above 5: l4 = l3 + ihl)",
           "the IPv4 header carries options"),
    Corner("tso-multiple", "ovs/gso.cc:114-118, 132 (payload % tso_segsz == 0)",
           "a TSO payload that is a multiple of tso_segsz"),
    Corner("tso-remainder", "ovs/gso.cc:114-118, 132 (a shorter last segment)",
           "a TSO payload that is not a multiple of tso_segsz"),
    Corner("tso-one-segment", "ovs/gso.cc:114 (max(1, ...): one segment)",
           "a TSO payload no longer than tso_segsz"),
)  # fmt: skip
NAMES = tuple(c.name for c in CORNERS)

# Corners of a value the core branches on only under some statuses. The
# received L4 field is read (updated by a rewrite, ovs/rewrite.cc:54-69;
# checked by conntrack, conntrack.cc:283-313) unless its status is valid, and
# a partial one is computed afresh, where a computed zero is UDP's 0xffff
# (complete.cc:110, send_prepare.cc:105, nic.cc:57): only a good L4 status
# never looks at it. The IPv4 header's update is made only when its status is
# not valid (rewrite.cc:19-20; a valid one becomes partial, and a computed
# zero has no branch there). A rewrite's L4 update coming out 0x0000 is a
# corner under every status: not valid, the update (rewrite.cc:65-69); valid,
# the partial checksum computed afresh at send. A frame whose corners are
# all out of play in a state is not added there: it would be one more random
# payload.
L4_FIELD = frozenset(("l4-csum-0000", "l4-csum-ffff"))
IP_UPDATE = frozenset(("set_l3-ip-update-0000",))


def relevant(tag: str, ip_status: int, l4_status: int) -> bool:
    """Whether a directed frame named `tag` exercises a branch in a state with
    these (outer) IP / L4 statuses (abstraction's UNKNOWN, BAD, GOOD, PARTIAL)."""
    if tag.startswith("inner-"):
        return True  # the inner packet has no status on receive
    names = set(tag.split("+"))
    if names - L4_FIELD - IP_UPDATE:
        return True
    if names & L4_FIELD and l4_status != GOOD:
        return True
    return bool(names & IP_UPDATE and ip_status not in (GOOD, PARTIAL))


def _z3_fold(x: z3.BitVecRef) -> z3.BitVecRef:
    # Two folds suffice below 2^18 (a folded constant plus at most two words).
    for _ in range(2):
        x = (x & 0xFFFF) + z3.LShR(x, 16)
    return x


def _z3_not16(x: z3.BitVecRef) -> z3.BitVecRef:
    return ~x & 0xFFFF


@functools.lru_cache(maxsize=4096)
def solve_word(base: int, chain: tuple[tuple[int, int], ...], udp: bool, target: int) -> int | None:
    """The 16-bit word w for which a checksum field computed over (base + w)
    (``~Fold``; UDP sends a computed zero as 0xffff) and updated incrementally
    over `chain` ((old, new) words, as csum::Update16) comes out `target`;
    None when no word does.
    `base` is the folded sum of everything else the checksum covers."""
    w = z3.BitVec("w", 18)  # sums stay below 3 * 0xffff < 2^18
    c = _z3_not16(_z3_fold(z3.BitVecVal(base, 18) + w))
    if udp:
        c = z3.If(c == 0, z3.BitVecVal(0xFFFF, 18), c)
    for old, new in chain:
        c = _z3_not16(_z3_fold(_z3_not16(c) + (~old & 0xFFFF) + new))
    # Simplification then the SMT core: about 3x faster than the default
    # QF_BV strategy on these small chains.
    s = z3.Then("simplify", "smt").solver()
    s.add(z3.ULT(w, 0x10000), c == target)
    if s.check() != z3.sat:
        return None
    return s.model()[w].as_long()


def _chain(old: bytes, new: bytes) -> tuple[tuple[int, int], ...]:
    return tuple(
        (int.from_bytes(old[i : i + 2], "big"), int.from_bytes(new[i : i + 2], "big"))
        for i in range(0, len(old), 2)
    )


# ---- generation ---------------------------------------------------------------------------

Build = Callable[[int, bytes, int], bytearray]  # (proto, payload, ip ident) -> a correct frame
_REST = bytes((i * 13 + 5) & 0xFF for i in range(62))  # the payload after the free word
TSO_SEGSZ = 400


def _l4_base(f: bytes) -> int:
    """The folded sum the L4 checksum covers, with the field as zero."""
    sh = shape(f)
    assert sh is not None
    l4 = bytearray(f[sh.l4 : sh.end])
    l4[sh.field - sh.l4 : sh.field - sh.l4 + 2] = b"\0\0"
    return fold(words(sh.addrs(f)) + sh.proto + len(l4) + words(bytes(l4)))


def _l4_solved(proto: int, build: Build, op: str, target: int, rest: bytes = _REST,
               ident: int = 1, post: Callable[[bytes], bytes] = bytes) -> bytes | None:  # fmt: skip
    """A frame (`build`, then `post`) whose first payload word is solved so the
    L4 checksum (no op) or `op`'s incremental update of it comes out `target`."""
    f0 = post(bytes(build(proto, b"\0\0" + rest, ident)))
    sh = shape(f0)
    assert sh is not None
    chain: tuple[tuple[int, int], ...] = ()
    if op == "set_l3":
        chain = _chain(f0[30:34], SET_L3_DST)
    elif op == "set_l4":
        chain = _chain(f0[sh.l4 + 2 : sh.l4 + 4], struct.pack("!H", SET_L4_DPORT))
    w = solve_word(_l4_base(f0), chain, proto == 17, target)
    return None if w is None else post(bytes(build(proto, struct.pack("!H", w) + rest, ident)))


def _ip_ident(
    proto: int, build: Build, payload: bytes, post: Callable[[bytes], bytes]
) -> int | None:
    """The IPv4 identification for which set_l3's incremental update of the
    header checksum (dst, then the TTL word) comes out 0x0000."""
    f0 = post(bytes(build(proto, payload, 0)))
    sh = shape(f0)
    assert sh is not None
    h = bytearray(f0[14 : 14 + sh.ihl])
    h[10:12] = b"\0\0"
    chain = _chain(f0[30:34], SET_L3_DST) + _chain(f0[22:24], bytes([SET_L3_TTL, proto]))
    return solve_word(fold(words(bytes(h))), chain, False, 0)


def _largest(
    proto: int, build: Build, ip_ok: bool, l4_ok: bool, v6: bool
) -> tuple[tuple[str, ...], bytes]:
    """One frame for the corners that live in different fields: the MTU's
    size, IPv4 options, set_l4's L4 update coming out 0x0000 (the first
    payload word) and set_l3's IPv4 header update coming out 0x0000 (the
    identification); a witness each would double the extraction's work."""
    names = ["max-size"]
    post: Callable[[bytes], bytes] = bytes if v6 else with_options
    hlen = 20 if proto == 6 else 8
    rest = bytes(i & 0xFF for i in range(MTU - (40 if v6 else 24) - hlen - 2))
    ident = 1
    if not v6:
        names.append("ipv4-options")
        if ip_ok and (solved := _ip_ident(proto, build, b"\0\0" + rest, post)) is not None:
            names.append("set_l3-ip-update-0000")
            ident = solved
    f = _l4_solved(proto, build, "set_l4", 0, rest, ident, post) if l4_ok else None
    if f is None:
        f = post(bytes(build(proto, b"\0\0" + rest, ident)))
    else:
        names.append("set_l4-l4-update-0000")
    return tuple(names), f


def with_options(frame: bytes) -> bytes:
    """The frame with a 4-byte IPv4 option (three NOPs and an end of list)
    after the header: IHL 6; the IPv4 checksum recomputed, the L4 one
    unchanged (the pseudo-header has no options)."""
    f = bytearray(frame[:34] + b"\x01\x01\x01\x00" + frame[34:])
    f[14] = 0x46
    f[16:18] = struct.pack("!H", int.from_bytes(frame[16:18], "big") + 4)
    f[24:26] = b"\0\0"
    f[24:26] = struct.pack("!H", (~fold(words(bytes(f[14:38])))) & 0xFFFF)
    return bytes(f)


def directed(proto: int, ip_ok: bool, l4_ok: bool, tso: bool, build: Build, v6: bool = False
             ) -> Iterator[tuple[str, bytes, int]]:  # fmt: skip
    """(corner, frame with correct checksums, tso_segsz) for one family of
    initial frames (`v6`: `build` makes IPv6 ones, which have no IPv4 header
    to update or give options); the caller breaks the checksums the family
    has wrong. A frame with several corners is named by all of them, joined
    by "+"."""
    if tso:
        yield "tso-one-segment", bytes(build(6, _REST * 4, 1)), TSO_SEGSZ
        yield "ipv4-options", with_options(bytes(build(6, _REST * 20, 1))), TSO_SEGSZ
        return
    solved: list[tuple[str, bytes | None]] = []
    if l4_ok:
        if proto == 17:
            # No checksum (RFC 768; for IPv6, RFC 6935's zero) over bytes whose
            # computed checksum is zero as well (sent as 0xffff), so a receiver
            # that reads the 0 as a value accepts it: OVS conntrack over IPv6
            # (ovs/conntrack.cc:299), dpdk_tap's receive over IPv6
            # (nic/nic.cc:176-182); a 0 over other bytes is a random witness's.
            ffff = _l4_solved(17, build, "", 0xFFFF)
            f = bytearray(ffff if ffff is not None else build(17, _REST, 1))
            at = shape(bytes(f)).field  # type: ignore[union-attr]
            f[at : at + 2] = b"\0\0"
            solved.append(("l4-csum-0000", bytes(f)))
            solved.append(("l4-csum-ffff", ffff))
        elif (zero := _l4_solved(6, build, "", 0)) is not None:
            # Both zeros by hand: a builder may write either for a computed 0.
            at = shape(zero).field  # type: ignore[union-attr]
            solved.append(("l4-csum-0000", zero[:at] + b"\0\0" + zero[at + 2 :]))
            solved.append(("l4-csum-ffff", zero[:at] + b"\xff\xff" + zero[at + 2 :]))
        if not v6:
            solved.append(("set_l3-l4-update-0000", _l4_solved(proto, build, "set_l3", 0)))
    for name, f in solved:
        if f is not None:
            yield name, f, 0
    names, f = _largest(proto, build, ip_ok, l4_ok, v6)
    yield "+".join(names), f, 0
    yield "min-size", bytes(build(proto, b"", 1)), 0


# ---- independent classification ------------------------------------------------------------


@dataclass(frozen=True)
class Shape:
    """Where things are in an Ethernet/IPv4-or-IPv6/TCP-or-UDP frame."""

    ihl: int  # IPv4 header length (0: IPv6)
    proto: int
    l4: int  # offset of the L4 header
    end: int  # end of the IP packet (total length)

    def addrs(self, frame: bytes) -> bytes:
        """The addresses of the pseudo-header."""
        return frame[22:54] if not self.ihl else frame[26:34]

    @property
    def field(self) -> int:
        return self.l4 + (16 if self.proto == 6 else 6)

    @property
    def hlen(self) -> int:
        return 20 if self.proto == 6 else 8


def shape(frame: bytes) -> Shape | None:
    if len(frame) >= 54 and frame[12:14] == b"\x86\xdd" and frame[20] in (6, 17):
        # IPv6 without extension headers, as the witnesses are.
        return Shape(0, frame[20], 54, 54 + int.from_bytes(frame[18:20], "big"))
    if len(frame) < 34 or frame[12:14] != b"\x08\x00" or frame[14] >> 4 != 4:
        return None
    ihl = (frame[14] & 0x0F) * 4
    proto = frame[23]
    if proto not in (6, 17) or len(frame) < 14 + ihl + (20 if proto == 6 else 8):
        return None
    return Shape(ihl, proto, 14 + ihl, 14 + int.from_bytes(frame[16:18], "big"))


def l4_computed(frame: bytes, sh: Shape) -> int:
    """The L4 checksum computed afresh over the bytes (field taken as zero)."""
    l4 = bytearray(frame[sh.l4 : sh.end])
    at = sh.field - sh.l4
    l4[at : at + 2] = b"\0\0"
    pseudo = words(sh.addrs(frame)) + sh.proto + len(l4)
    return (~fold(pseudo + words(bytes(l4)))) & 0xFFFF


def ip_computed(frame: bytes, sh: Shape) -> int:
    h = bytearray(frame[14 : 14 + sh.ihl])
    h[10:12] = b"\0\0"
    return (~fold(words(bytes(h)))) & 0xFFFF


def rewritten(frame: bytes, op: str) -> bytes:
    """The frame as set_l3 / set_l4 leave it, headers only (checksums untouched)."""
    f = bytearray(frame)
    sh = shape(frame)
    assert sh is not None
    if op == "set_l3":
        f[30:34] = SET_L3_DST
        f[22] = SET_L3_TTL
    else:
        f[sh.l4 + 2 : sh.l4 + 4] = struct.pack("!H", SET_L4_DPORT)
    return bytes(f)


def classify(frame: bytes, segsz: int = 0) -> frozenset[str]:
    """The corners a received frame (and its tso_segsz) has, from its bytes;
    those of a tunnel's inner frame prefixed ``inner-``."""
    inner = next((x.offset for x in offlab.dissect(frame).layers
                  if x.name == "eth" and x.depth == 1), None)  # fmt: skip
    out = _classify_plain(frame, segsz)
    if inner is not None:
        out |= {f"inner-{c}" for c in _classify_plain(frame[inner:], 0)}
    return out


def _classify_plain(frame: bytes, segsz: int) -> frozenset[str]:
    sh = shape(frame)
    if sh is None:
        return frozenset()
    out = set()
    field = int.from_bytes(frame[sh.field : sh.field + 2], "big")
    out |= {"l4-csum-0000"} if field == 0 else {"l4-csum-ffff"} if field == 0xFFFF else set()
    udp_none = sh.proto == 17 and field == 0
    if not udp_none and l4_computed(frame, sh) == (field if field != 0xFFFF else 0):
        # A correct field: whether each rewrite's update comes out zero is the
        # full checksum of the rewritten bytes (equal to the incremental one).
        # (set_l3 writes IPv4 fields: nothing in an IPv6 packet.)
        for op in ("set_l3", "set_l4") if sh.ihl else ("set_l4",):
            if l4_computed(rewritten(frame, op), sh) == 0:
                out.add(f"{op}-l4-update-0000")
    ip_right = sh.ihl and ip_computed(frame, sh) == int.from_bytes(frame[24:26], "big")
    if ip_right and ip_computed(rewritten(frame, "set_l3"), sh) == 0:
        out.add("set_l3-ip-update-0000")
    l4len = sh.end - sh.l4
    out |= {"odd-length"} if l4len % 2 else set()
    out |= {"avx2-sum"} if l4len >= 256 else set()
    payload = l4len - sh.hlen
    out |= {"min-size"} if payload == 0 else set()
    out |= {"max-size"} if sh.end - 14 == MTU else set()
    out |= {"ipv4-options"} if sh.ihl > 20 else set()
    if segsz:
        out.add("tso-remainder" if payload % segsz else "tso-multiple")
        if payload <= segsz:
            out.add("tso-one-segment")
    return frozenset(out)


def verdict_ok(frame: bytes) -> bool:
    """Every checksum of the frame verifies (the dissector's word)."""
    return all(c.verdict != offlab.Verdict.INCORRECT for c in offlab.dissect(frame).checksums)
