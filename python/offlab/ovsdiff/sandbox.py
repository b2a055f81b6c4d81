"""A private Open vSwitch: ovsdb-server and ovs-vswitchd (dummy datapath, no
kernel datapath) in a temporary directory, as OVS's own testsuite runs them
(openvswitch/ovs v3.1.0 tests/ofproto-macros.at:OVS_VSWITCHD_START: `ovsdb-tool
create`, `ovsdb-server --remote=punix:`, `ovs-vswitchd --enable-dummy
--disable-system`, with OVS_RUNDIR/OVS_DBDIR/OVS_LOGDIR pointing there).

Every process it starts is its own child, stopped and reaped on close(), and the
directory is removed, also on an exception, SIGTERM or SIGHUP.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from . import unixctl

TOOLS = ("ovsdb-tool", "ovsdb-server", "ovs-vswitchd", "ovs-vsctl", "ovs-ofctl")
# Where a tool sits in an installed tree or an OVS build tree (DIR/vswitchd/ovs-vswitchd, ...).
_SUBDIRS = ("", "sbin", "bin", "vswitchd", "ovsdb", "utilities")
_SCHEMA_DIRS = ("", "vswitchd", "share/openvswitch", "../share/openvswitch")


class OvsSandboxError(RuntimeError):
    """Something the sandbox needs is missing or a daemon did not come up; one line."""


@dataclass(frozen=True)
class OvsInstall:
    """Where the OVS programs and the vswitch schema are."""

    tools: dict[str, str]
    schema: str
    version: str  # "3.1.0"

    @staticmethod
    def find(bin_dir: str | None = None) -> OvsInstall:
        """The programs from `bin_dir` (an install or build tree), else from PATH
        and /usr/sbin; raises OvsSandboxError naming what is missing."""
        tools: dict[str, str] = {}
        for tool in TOOLS:
            found = None
            if bin_dir:
                for sub in _SUBDIRS:
                    cand = Path(bin_dir, sub, tool)
                    if cand.is_file() and os.access(cand, os.X_OK):
                        found = str(cand.resolve())
                        break
            else:
                found = shutil.which(tool) or shutil.which(tool, path="/usr/sbin:/usr/bin")
            if not found:
                where = f"in {bin_dir}" if bin_dir else "on PATH (install openvswitch-switch)"
                raise OvsSandboxError(f"{tool} not found {where}")
            tools[tool] = found
        schema = None
        base = Path(bin_dir) if bin_dir else Path("/usr")
        for sub in _SCHEMA_DIRS:
            cand = base / sub / "vswitch.ovsschema"
            if cand.is_file():
                schema = str(cand.resolve())
                break
        if not schema:
            raise OvsSandboxError(f"vswitch.ovsschema not found near {base}")
        out = subprocess.run(
            [tools["ovs-vswitchd"], "--version"], capture_output=True, text=True, check=False
        ).stdout
        version = out.split()[-1] if out.split() else "unknown"
        return OvsInstall(tools, schema, version)

    def version_tuple(self) -> tuple[int, ...]:
        parts = []
        for p in self.version.split("."):
            digits = "".join(c for c in p if c.isdigit())
            parts.append(int(digits) if digits else 0)
        return tuple(parts)


def _die_with_parent() -> None:
    # PR_SET_PDEATHSIG (linux/prctl.h): the daemon gets SIGTERM if we are killed
    # outright (SIGKILL), when no finally block can run.
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)


class _Stop(KeyboardInterrupt):
    """SIGTERM/SIGHUP while the sandbox runs: unwinds like Ctrl-C, so that
    close() runs and the CLI ends as it does on Ctrl-C."""


class OvsSandbox:
    """ovsdb-server + ovs-vswitchd in a temporary directory. Use as a context
    manager; `appctl`, `vsctl` and `ofctl` talk to this sandbox only."""

    def __init__(self, install: OvsInstall) -> None:
        self.install = install
        self.dir = ""
        self._procs: list[subprocess.Popen[bytes]] = []
        self._old_handlers: dict[int, object] = {}
        self.env: dict[str, str] = {}

    # -- life cycle --------------------------------------------------------
    def __enter__(self) -> OvsSandbox:
        for sig in (signal.SIGTERM, signal.SIGHUP):
            self._old_handlers[sig] = signal.signal(sig, self._on_signal)
        try:
            self._start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        raise _Stop(f"signal {signum}")

    def _start(self) -> None:
        self.dir = tempfile.mkdtemp(prefix="offlab-ovs-")
        d = self.dir
        self.env = {
            **os.environ,
            "OVS_RUNDIR": d,
            "OVS_DBDIR": d,
            "OVS_LOGDIR": d,
            "OVS_SYSCONFDIR": d,
            "OVS_PKGDATADIR": str(Path(self.install.schema).parent),
        }
        t = self.install.tools
        self._run([t["ovsdb-tool"], "create", f"{d}/conf.db", self.install.schema])
        self._spawn(
            [t["ovsdb-server"], "--no-chdir", f"--log-file={d}/ovsdb-server.log",
             f"--remote=punix:{d}/db.sock", "-vconsole:off", f"{d}/conf.db"],
            f"{d}/db.sock",
        )  # fmt: skip
        self.vsctl("--no-wait", "init")
        vswitchd = self._spawn(
            [t["ovs-vswitchd"], "--enable-dummy", "--disable-system", "--no-chdir",
             f"--log-file={d}/ovs-vswitchd.log", "-vconsole:off", f"unix:{d}/db.sock"],
            None,
        )  # fmt: skip
        self.ctl = f"{d}/ovs-vswitchd.{vswitchd.pid}.ctl"
        self._wait_for(self.ctl, vswitchd)
        # The daemon answers on its control socket once its main loop runs.
        deadline = time.monotonic() + 10
        while True:
            try:
                self.appctl("version")
                break
            except (OSError, unixctl.UnixctlError) as e:
                if time.monotonic() > deadline or vswitchd.poll() is not None:
                    raise OvsSandboxError(f"ovs-vswitchd did not come up: {e}") from e
                time.sleep(0.02)

    def _spawn(self, argv: list[str], ready: str | None) -> subprocess.Popen[bytes]:
        # A session of its own: a Ctrl-C in the terminal reaches us, not the
        # daemons, and close() stops them in order.
        p = subprocess.Popen(
            argv,
            env=self.env,
            cwd=self.dir,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )
        self._procs.append(p)
        if ready:
            self._wait_for(ready, p)
        return p

    def _wait_for(self, path: str, proc: subprocess.Popen[bytes]) -> None:
        deadline = time.monotonic() + 10
        while not os.path.exists(path):
            if proc.poll() is not None:
                name = Path(str(proc.args[0])).name  # type: ignore[index]
                raise OvsSandboxError(f"{name} exited with status {proc.returncode} at start")
            if time.monotonic() > deadline:
                raise OvsSandboxError(f"{path} did not appear within 10 s")
            time.sleep(0.01)

    def close(self) -> None:
        """Stops every daemon this sandbox started and removes its directory."""
        for p in reversed(self._procs):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        self._procs.clear()
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = ""
        for sig, old in self._old_handlers.items():
            signal.signal(sig, old)  # type: ignore[arg-type]
        self._old_handlers.clear()

    # -- talking to the daemons -------------------------------------------
    def _run(self, argv: list[str], stdin: str | None = None) -> str:
        r = subprocess.run(
            argv, env=self.env, cwd=self.dir, input=stdin, capture_output=True, text=True,
            timeout=30, check=False,
        )  # fmt: skip
        if r.returncode != 0:
            # The tool's own message, not the log lines before it
            # ("2026-...|00001|ofp_actions|WARN|..."), which may add the detail.
            lines = (r.stderr.strip() or r.stdout.strip() or f"exit {r.returncode}").splitlines()
            logs = [ln.split("|", 4)[-1] for ln in lines if ln.count("|") >= 4]
            own = [ln for ln in lines if ln.count("|") < 4] or lines
            tool = Path(argv[0]).name
            msg = own[-1].removeprefix(f"{tool}: ")
            if logs:
                msg += f" ({'; '.join(logs)})"
            raise OvsSandboxError(f"{tool}: {msg}")
        return r.stdout

    def vsctl(self, *args: str) -> str:
        return self._run([self.install.tools["ovs-vsctl"], f"--db=unix:{self.dir}/db.sock", *args])

    def ofctl(self, *args: str, stdin: str | None = None) -> str:
        return self._run([self.install.tools["ovs-ofctl"], *args], stdin=stdin)

    def appctl(self, method: str, *params: str) -> str:
        return unixctl.call(self.ctl, method, *params)

    def counter(self, name: str) -> int | None:
        """A coverage counter's total, None if this OVS has no such counter."""
        try:
            return int(self.appctl("coverage/read-counter", name).strip())
        except unixctl.UnixctlError:
            return None


@contextlib.contextmanager
def running(bin_dir: str | None = None) -> Iterator[OvsSandbox]:
    """A started sandbox for the OVS in `bin_dir` (default: the installed one)."""
    with OvsSandbox(OvsInstall.find(bin_dir)) as sb:
        yield sb
