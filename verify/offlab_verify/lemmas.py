"""Byte-level lemmas about the checksum arithmetic, proved with Z3.

One's-complement sums over many 16-bit words do not scale as bit-vector
formulas, so sums are modelled over integers with fold(x) = 0 if x = 0 else
(x - 1) mod 65535 + 1; lemma L0 proves once that this integer fold is the
16-bit end-around-carry addition, and the others are stated over it."""

from __future__ import annotations

import time
from dataclasses import dataclass

import z3

M = 65535


def fold(x: z3.ArithRef) -> z3.ArithRef:
    return z3.If(x == 0, 0, (x - 1) % M + 1)


def neg(x: z3.ArithRef) -> z3.ArithRef:
    return M - x


def words(prefix: str, n: int) -> list[z3.ArithRef]:
    return [z3.Int(f"{prefix}{i}") for i in range(n)]


def in_range(ws: list[z3.ArithRef]) -> list[z3.BoolRef]:
    return [z3.And(w >= 0, w <= M) for w in ws]


@dataclass
class Lemma:
    key: str
    title: str
    verdict: str
    seconds: float
    detail: str = ""


def _prove(claim: z3.BoolRef, premises: list[z3.BoolRef], timeout_ms: int) -> tuple[str, str]:
    s = z3.Solver()
    s.set("timeout", timeout_ms)
    s.add(*premises)
    s.add(z3.Not(claim))
    r = s.check()
    if r == z3.unsat:
        return "PROVED", ""
    if r == z3.sat:
        return "FAILED", str(s.model())
    return "UNKNOWN", s.reason_unknown()


def l0_integer_fold_is_end_around_carry(timeout_ms: int) -> tuple[str, str]:
    """Two steps, each in one theory: (a) in 17-bit vectors, the 16-bit
    end-around-carry add is "subtract 0xffff on overflow"; (b) over integers,
    that conditional subtraction is fold(a + b) (0 only for 0 + 0)."""
    a, b = z3.BitVecs("a b", 16)
    wide = z3.ZeroExt(1, a) + z3.ZeroExt(1, b)
    eac = z3.ZeroExt(1, z3.Extract(15, 0, wide) + z3.ZeroExt(15, z3.Extract(16, 16, wide)))
    cond = z3.If(z3.UGT(wide, 0xFFFF), wide - 0xFFFF, wide)
    r1, d1 = _prove(eac == cond, [], timeout_ms)
    x, y = z3.Ints("x y")
    sub = z3.If(x + y > M, x + y - M, x + y)
    r2, d2 = _prove(sub == fold(x + y), in_range([x, y]), timeout_ms)
    if r1 == "PROVED" and r2 == "PROVED":
        return "PROVED", ""
    return (r1 if r1 != "PROVED" else r2), d1 or d2


def l1_outer_udp_identity(n: int, timeout_ms: int) -> tuple[str, str]:
    """The outer UDP checksum over (headers + inner IPv4 + inner L4 segment) equals
    the one over (headers + ~pseudo_in) when the inner checksums are valid."""
    pout = words("pout", 6)
    hdr = words("hdr", 15)  # UDP, tunnel header, inner Ethernet: any words
    ip = words("ip", 10)
    seg = words("t", n)
    pin = [ip[6], ip[7], ip[8], ip[9], z3.IntVal(6), z3.IntVal(2 * n)]
    premises = in_range(pout + hdr + ip + seg)
    premises += [pout[4] == 17, fold(sum(ip)) == M, fold(sum(pin) + sum(seg)) == M]
    left = fold(sum(pout) + sum(hdr) + sum(ip) + sum(seg))
    right = fold(sum(pout) + sum(hdr) + neg(fold(sum(pin))))
    return _prove(left == right, premises, timeout_ms)


def l2_rfc1624(timeout_ms: int) -> tuple[str, str]:
    """HC' = ~(~HC + ~m + m') equals recomputation for a 10-word IPv4 header whose
    new contents are not all zero (the version nibble guarantees it)."""
    h = words("h", 10)
    k = z3.Int("k")
    m2 = z3.Int("m2")
    old_others = sum(h[i] for i in range(10) if i != 5)
    premises = [*in_range(h), z3.And(m2 >= 0, m2 <= M), k >= 0, k <= 9, k != 5]
    premises += [h[5] == neg(fold(old_others))]  # the old checksum is correct
    premises += [z3.And(h[0] >= 0x4000, h[0] <= 0x4FFF)]  # version 4
    m = z3.Sum([z3.If(k == i, h[i], 0) for i in range(10)])
    new_sum = old_others - m + m2
    premises += [z3.Implies(k == 0, z3.And(m2 >= 0x4000, m2 <= 0x4FFF))]
    incremental = neg(fold(neg(h[5]) + neg(m) + m2))
    recomputed = neg(fold(new_sum))
    return _prove(incremental == recomputed, premises, timeout_ms)


def l3_partial_tso_lengths(timeout_ms: int) -> tuple[str, str]:
    """Partial GSO: for payload P not a multiple of segsz s, n = ceil(P/s); the head
    keeps (n-1)*s (a whole number of segments), the tail is in (0, s), together P."""
    p, s, n = z3.Ints("P s n")
    head, tail = (n - 1) * s, p - (n - 1) * s
    premises = [s >= 1, s <= 65535, p >= 1, p <= 1 << 20, p % s != 0, n == (p + s - 1) / s]
    claim = z3.And(head % s == 0, tail > 0, tail < s, head + tail == p, head >= 0)
    return _prove(claim, premises, timeout_ms)


def l4_update_keeps_bad_bad(timeout_ms: int) -> tuple[str, str]:
    """An incremental update of a wrong checksum leaves it wrong by the same error."""
    hc, good, m, m2 = z3.Ints("hc good m m2")
    premises = [*in_range([hc, good, m, m2]), fold(hc + neg(good)) != M, fold(hc + neg(good)) != 0]
    hc2 = neg(fold(neg(hc) + neg(m) + m2))
    good2 = neg(fold(neg(good) + neg(m) + m2))
    claim = fold(hc2 + neg(good2)) == fold(hc + neg(good))
    return _prove(claim, premises, timeout_ms)


def prove_lemmas(timeout_ms: int = 20000) -> list[Lemma]:
    jobs = [
        (
            "L0",
            "integer fold = 16-bit end-around-carry add",
            lambda: l0_integer_fold_is_end_around_carry(timeout_ms),
        ),
        *[
            (
                f"L1/{n}",
                f"outer UDP checksum identity, {n}-word inner segment",
                lambda n=n: l1_outer_udp_identity(n, timeout_ms),
            )
            for n in (8, 64, 512)
        ],
        ("L2", "RFC 1624 update = recomputation", lambda: l2_rfc1624(timeout_ms)),
        ("L3", "partial-TSO segment lengths", lambda: l3_partial_tso_lengths(timeout_ms)),
        (
            "L4",
            "incremental update keeps a bad checksum bad",
            lambda: l4_update_keeps_bad_bad(timeout_ms),
        ),
    ]
    out = []
    for key, title, fn in jobs:
        t0 = time.perf_counter()
        verdict, detail = fn()
        out.append(Lemma(key, title, verdict, time.perf_counter() - t0, detail))
    return out
