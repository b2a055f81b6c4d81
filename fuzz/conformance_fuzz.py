"""The conformance fuzzer of offlab verify's abstraction (docs/verification.md),
with coverage feedback from the verifier's own Python (the abstraction, the
operations, the case decoder): atheris instruments it as it is imported. The
core's feedback comes from its sanitizer build (scripts/conformance-fuzz.sh).
Arguments: those of ``python -m offlab_verify.conformance``."""

from __future__ import annotations

import sys

import atheris

with atheris.instrument_imports(include=["offlab_verify"]):
    from offlab_verify.conformance.__main__ import main

if __name__ == "__main__":
    sys.exit(main(sys.argv))
