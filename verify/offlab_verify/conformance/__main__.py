"""``python -m offlab_verify.conformance --relation FILE [libFuzzer flags] [corpus]``:
the conformance fuzzer under atheris (libFuzzer for Python); fuzz/conformance_fuzz.py
runs it with the verifier's Python instrumented for coverage. Every input
decodes to a case (cases.decode); a transition the relation lacks prints one
line ``abstraction unsound: ...``, writes the witness trace to --witness-out
(a witness file `offlab verify --witnesses` loads) and exits 1.

Run it with ``LD_PRELOAD`` of atheris' ``asan_with_fuzzer.so`` when the core
module was built with ``-fsanitize=address,undefined,fuzzer-no-link``
(scripts/conformance-fuzz.sh): libFuzzer then also sees the core's
comparisons (``-use_value_profile=1``)."""

from __future__ import annotations

import argparse
import os
import sys

import offlab

from ..relation import load_relation
from .cases import decode
from .check import Checker, write_witness

EXIT_UNSOUND = 1


def _args(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    p = argparse.ArgumentParser(
        prog="python -m offlab_verify.conformance",
        description="conformance fuzzer of offlab verify's abstraction; other arguments "
        "go to libFuzzer (e.g. -max_total_time=60 -use_value_profile=1 CORPUS_DIR)",
    )
    p.add_argument("--relation", required=True, help="file `offlab verify --export-relation` wrote")
    p.add_argument("--witness-out", default="verify-out", help="folder for witness traces")
    return p.parse_known_args(argv)


def main(argv: list[str]) -> int:
    args, fuzzer_args = _args(argv[1:])
    try:
        import atheris
    except ImportError:
        print("offlab: error: atheris is not installed (pip install atheris)", file=sys.stderr)
        return 2
    try:
        rel = load_relation(args.relation)
        offlab.clear_faults()
        for bug in rel.faults:
            offlab.enable_fault(bug)
        names = sorted({n for st in rel.settings for n in st.profiles})
        if not names or not rel.settings:
            raise offlab.OfflabError(f"relation {args.relation}: no NIC profile in it")
        profiles = [offlab.builtin_profile(n) for n in names]
        os.makedirs(args.witness_out, exist_ok=True)
    except (offlab.OfflabError, OSError) as e:
        print(f"offlab: error: {e}", file=sys.stderr)
        return 2
    checker = Checker(rel, profiles)

    def one(data: bytes) -> None:
        case = decode(data, len(rel.settings), len(profiles))
        found = checker.run(case)
        if found is None:
            return
        path = write_witness(found, args.witness_out, rel.faults)
        print(f"{found.line()} (witness: {path})", flush=True)
        sys.stderr.flush()
        os._exit(EXIT_UNSOUND)

    atheris.Setup([argv[0], *fuzzer_args], one)
    atheris.Fuzz()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
