"""Time of `offlab verify` on this machine, split into extraction (running the
C++ core on every witness) and proof (Z3 Spacer over the Horn clauses), with a
plain breadth-first search over the same relation measured beside it.

Usage: .venv/bin/python bench/verify_bench.py
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections import deque

import offlab
from offlab_verify.extract import Config, extract, extract_send
from offlab_verify.properties import PROPERTIES, is_bad
from offlab_verify.prove import prove_all


def bfs_check(init, edges) -> int:  # noqa: ANN001
    """Properties violated, by explicit search (the baseline: no invariant, no proof object)."""
    succ: dict = {}
    for (s, _), t in edges.items():
        succ.setdefault(s, []).append(t)
    seen, queue = set(init), deque(init)
    while queue:
        for t in succ.get(queue.popleft(), []):
            if t not in seen:
                seen.add(t)
                queue.append(t)
    return sum(any(is_bad(p, vars(s)) for s in seen) for p in PROPERTIES)


def main() -> None:
    t0 = time.perf_counter()
    extract_s = prove_s = bfs_s = 0.0
    for csum in (False, True):
        t = time.perf_counter()
        ex = extract(Config(csum=csum))
        extract_s += time.perf_counter() - t
        for name in offlab.builtin_profile_names():
            t = time.perf_counter()
            sends = extract_send(ex, offlab.builtin_profile(name))
            extract_s += time.perf_counter() - t
            edges = dict(ex.trans)
            edges.update({(s, "send"): v for s, v in sends.items()})
            t = time.perf_counter()
            prove_all(ex.init, edges, PROPERTIES, name, str(csum))
            prove_s += time.perf_counter() - t
            t = time.perf_counter()
            bfs_check(ex.init, edges)
            bfs_s += time.perf_counter() - t
    total = time.perf_counter() - t0
    print(f"offlab verify, 11 profiles x 2 settings x {len(PROPERTIES)} properties")
    print(f"  extraction (C++ core on witnesses): {extract_s:6.2f} s")
    print(f"  Z3 Spacer proofs:                   {prove_s:6.2f} s")
    ratio = prove_s / bfs_s
    print(f"  explicit search baseline:           {bfs_s:6.2f} s  (proof/search = {ratio:.1f}x)")
    print(f"  total wall:                         {total:6.2f} s  (goal: under 30 s)")
    kernel_part()


def cpu_loop() -> float:
    """The fixed reference: a python3 process summing 5 M integers in a loop."""
    t = time.perf_counter()
    code = "s = 0\nfor i in range(5_000_000):\n    s += i\nprint(s)"
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
    return time.perf_counter() - t


def kernel_part() -> None:
    """The kernel model's half (K0-K4 over every profile with a Linux driver,
    five kernel/VXLAN settings), as a ratio to the CPU loop measured beside it:
    the verifier's goal is 8x the loop (10 s on the slowest machine)."""
    from offlab_verify.kernel.extract import extract, kernel_profiles
    from offlab_verify.kernel.properties import KERNEL_PROPERTIES
    from offlab_verify.kernel.prove import prove_kernel
    from offlab_verify.kernel.run import CONFIGS, verify_kernel

    loops = [cpu_loop() for _ in range(3)]
    t = time.perf_counter()
    verify_kernel()
    wall = time.perf_counter() - t
    ext = prf = 0.0
    for prof in kernel_profiles():
        for cfg in CONFIGS:
            t = time.perf_counter()
            ex = extract(cfg, prof)
            ext += time.perf_counter() - t
            t = time.perf_counter()
            prove_kernel(ex.init, ex.trans, KERNEL_PROPERTIES, prof, cfg.name)
            prf += time.perf_counter() - t
    loop = min(loops)
    print("offlab verify, Linux kernel model (K0-K4, every profile with a Linux driver)")
    print(f"  CPU loop (python3, sum of 5 M ints):  {loop:6.2f} s")
    print(f"  extraction, all profiles x settings:  {ext:6.2f} s")
    print(f"  Z3 datalog proofs:                    {prf:6.2f} s")
    print(f"  verify_kernel wall (shared drivers, hazard re-proofs): {wall:6.2f} s"
          f" = {wall / loop:.1f}x the loop (goal 8x)")  # fmt: skip


if __name__ == "__main__":
    main()
