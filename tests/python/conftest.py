"""Fixtures shared by the replay suites."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def counterexamples(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """The verifier's counterexamples with a seeded bug (the E810's unseeded
    outer UDP checksum): traces with DPDK tx records. Made once per session
    (about 30 s) for the TAP PMD and kernel TAP replays."""
    out = tmp_path_factory.mktemp("verify")
    res = subprocess.run(
        [sys.executable, "-m", "offlab.cli", "verify", "--profile", "e810", "--inject",
         "intel-outer-udp-unseeded", "--no-lemmas", "--no-kernel", "--out", str(out)],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert res.returncode == 1, res.stdout + res.stderr
    paths = sorted(out.glob("*.pcapng"))
    assert len(paths) >= 2
    return paths
