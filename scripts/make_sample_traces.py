#!/usr/bin/env python3
"""Regenerates the sample traces in traces/ from the core (offlab.samples)."""

from __future__ import annotations

import sys
from pathlib import Path

from offlab.samples import write_samples


def main() -> int:
    out = Path(__file__).resolve().parent.parent / "traces"
    for path in write_samples(str(out)):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
