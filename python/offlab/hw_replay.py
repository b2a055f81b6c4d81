"""``offlab replay``: runs hw-replay (the DPDK trace replayer, hw-replay/) on a
trace. The binary is looked up in $OFFLAB_HW_REPLAY, the installed package, the
source tree's build/ and $PATH; EAL arguments are passed through."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from . import _core

_PKG = Path(__file__).resolve().parent
_REPO = _PKG.parent.parent
BINARY = "offlab-hw-replay"


def binary_path() -> Path | None:
    """The hw-replay binary, or None when it was not built."""
    env = os.environ.get("OFFLAB_HW_REPLAY")
    if env:
        return Path(env)
    for p in (_PKG / "bin" / BINARY, _REPO / "build" / "bin" / BINARY):
        if p.is_file() and os.access(p, os.X_OK):
            return p
    found = shutil.which(BINARY)
    return Path(found) if found else None


def command(
    mode: str,
    trace: str,
    eal: Sequence[str],
    *,
    port: str | None = None,
    profile: str | None = None,
    tx_profile: str | None = None,
    loop: int | None = None,
    timeout_ms: int | None = None,
    verbose: bool = False,
) -> list[str]:
    """The hw-replay command line: ``BINARY [EAL args] -- MODE --trace FILE ...``."""
    from . import trace as trace_format

    try:
        # hw-replay reads the trace itself; reading it here first applies offlab's bounds
        # (regular file, size, record count) before a root-run DPDK process starts.
        trace_format.read(trace)
    except trace_format.TraceError as e:
        raise _core.OfflabError(str(e)) from None
    exe = binary_path()
    if exe is None:
        raise _core.OfflabError(
            "hw-replay is not built: install DPDK (libdpdk-dev) and configure with "
            "-DOFFLAB_BUILD_HW_REPLAY=ON, or set OFFLAB_HW_REPLAY"
        )
    if mode not in ("tx", "check"):
        raise _core.OfflabError(f"replay mode must be tx or check, not {mode!r}")
    app = [mode, "--trace", trace]
    for flag, value in (
        ("--port", port),
        ("--profile", profile),
        ("--tx-profile", tx_profile),
        ("--loop", loop),
        ("--timeout", timeout_ms),
    ):
        if value is not None:
            app += [flag, str(value)]
    if verbose:
        app.append("--verbose")
    return [str(exe), *eal, "--", *app]


def run(*args: object, **kwargs: object) -> int:
    """Runs hw-replay with the terminal attached; returns its exit status."""
    return subprocess.run(command(*args, **kwargs), check=False).returncode  # type: ignore[arg-type]


__all__ = ["binary_path", "command", "run"]
