"""Network namespaces for the kernel lab, and their guaranteed cleanup.

Every namespace a lab run makes is named ``olab-<pid>-<n>-<short>``; links, TAP
devices and sockets live inside those namespaces only, so deleting the
namespaces (and closing our file descriptors) removes everything the run made.
`Lab` is a context manager whose exit does that; `guard_signals` turns SIGTERM
and SIGHUP into an exception so the exit also runs on them (Ctrl-C already
raises KeyboardInterrupt).
"""

from __future__ import annotations

import contextlib
import ctypes
import itertools
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from types import FrameType

from ..closing import Closing

CLONE_NEWNET = 0x40000000
PREFIX = "olab-"
_NETNS_DIR = "/run/netns"
_counter = itertools.count()
_libc = ctypes.CDLL(None, use_errno=True)


class LabError(Exception):
    """A lab step failed (a command, a missing kernel feature, a bad case name)."""


class LabInterrupted(BaseException):
    """SIGTERM/SIGHUP arrived; raised so every finally block runs."""


def _setns(fd: int) -> None:
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        raise LabError(f"setns: {os.strerror(err)}")


def run(argv: list[str], check: bool = True) -> subprocess.CompletedProcess[str]:
    """Runs a command (no shell); a failure raises LabError naming it."""
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise LabError(f"{' '.join(argv)}: {e}") from e
    if check and r.returncode != 0:
        msg = (r.stderr or r.stdout).strip().splitlines()
        raise LabError(f"{' '.join(argv)}: {msg[-1] if msg else f'exit {r.returncode}'}")
    return r


# Interface names as the kernel accepts them (net/core/dev.c dev_valid_name, v6.18): at most
# IFNAMSIZ-1 = 15 bytes, not "." or "..", no '/', ':' or whitespace. The lab is stricter
# (a portable character set) so no name can be read as an option or a shell word.
_IFNAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,14}")
# Namespace names as iproute2 accepts them (ip/ipnetns.c is_valid_netns_name: no '/', not
# "." or ".."; a file under /run/netns, so NAME_MAX), with the lab's own prefix.
_NETNS = re.compile(rf"{PREFIX}[0-9]+-[0-9]+-[A-Za-z0-9_-]{{1,32}}")
# `ip link` keywords followed by an interface name.
_NAME_KEYWORDS = frozenset({"name", "dev", "peer", "master", "link"})


def valid_ifname(name: str) -> str:
    """`name` if the kernel (and the lab) accept it as an interface name; LabError otherwise."""
    if not _IFNAME.fullmatch(name):
        raise LabError(f"interface name {name!r}: 1-15 of letters, digits, '_', '.', '-'")
    return name


def owned_netns(name: str) -> str:
    """`name` if it is a namespace name the lab makes (and so may delete); LabError otherwise."""
    if not _NETNS.fullmatch(name):
        raise LabError(f"namespace {name!r} is not a lab namespace ({PREFIX}PID-N-NAME)")
    return name


class Netns:
    """One namespace: runs `ip` in it, and enters it to open sockets or read /proc."""

    def __init__(self, name: str) -> None:
        self.name = owned_netns(name)

    def ip(self, *args: str) -> str:
        for keyword, value in itertools.pairwise(args):
            if keyword in _NAME_KEYWORDS and args[0] == "link":
                valid_ifname(value)
        return run(["ip", "-n", self.name, *args]).stdout

    @contextlib.contextmanager
    def entered(self) -> Iterator[None]:
        """Switches this thread into the namespace; sockets made inside stay in it."""
        own = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
        try:
            target = os.open(os.path.join(_NETNS_DIR, self.name), os.O_RDONLY)
            try:
                _setns(target)
            finally:
                os.close(target)
            try:
                yield
            finally:
                _setns(own)
        finally:
            os.close(own)

    def sysctl(self, key: str, value: str) -> None:
        with self.entered(), open("/proc/sys/" + key.replace(".", "/"), "w") as f:
            f.write(value)

    def read_proc(self, path: str) -> str:
        """A /proc/net file as this namespace sees it."""
        with self.entered(), open(path) as f:
            return f.read()

    def socket(self, family: int, kind: int, proto: int = 0) -> socket.socket:
        with self.entered():
            return socket.socket(family, kind, proto)

    def ifindex(self, dev: str) -> int:
        with self.entered():
            return socket.if_nametoindex(dev)


def pid_alive(pid: int) -> bool:
    """Whether process `pid` exists (one of another user counts as alive)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def lab_namespaces() -> list[str]:
    """Namespaces named like a lab run's (any pid)."""
    out = run(["ip", "netns", "list"], check=False).stdout
    return [ln.split()[0] for ln in out.splitlines() if ln.startswith(PREFIX)]


def reap_stale() -> None:
    """Deletes namespaces left by lab runs whose process is gone (e.g. SIGKILL)."""
    for name in lab_namespaces():
        m = re.match(rf"{PREFIX}(\d+)-", name)
        if m and int(m.group(1)) != os.getpid() and not pid_alive(int(m.group(1))):
            run(["ip", "netns", "del", owned_netns(name)], check=False)


class Lab(Closing):
    """Owns the namespaces, descriptors and temp files of one lab run (or case)."""

    def __init__(self) -> None:
        self.prefix = f"{PREFIX}{os.getpid()}-{next(_counter)}"
        self.namespaces: list[Netns] = []
        self._closers: list[Callable[[], None]] = []
        self._tmpdir: str | None = None

    def netns(self, short: str, ipv6: bool = False) -> Netns:
        taken = {n.name for n in self.namespaces}
        name = f"{self.prefix}-{short}"
        i = 1
        while name in taken:
            i += 1
            name = f"{self.prefix}-{short}{i}"
        ns = Netns(name)
        # Recorded before it exists: a signal that lands while `ip netns add`
        # runs (or just after) still leaves it to close(), which tolerates a
        # namespace that was never made.
        self.namespaces.append(ns)
        run(["ip", "netns", "add", ns.name])
        # Quiet namespaces: no IPv6 (no DAD, router or MLD solicitations) unless
        # the case needs it, and then no DAD and no router solicitations.
        for scope in ("default", "all"):
            ns.sysctl(f"net.ipv6.conf.{scope}.disable_ipv6", "0" if ipv6 else "1")
            if ipv6:
                ns.sysctl(f"net.ipv6.conf.{scope}.accept_dad", "0")
                ns.sysctl(f"net.ipv6.conf.{scope}.router_solicitations", "0")
                ns.sysctl(f"net.ipv6.conf.{scope}.mldv1_unsolicited_report_interval", "0")
                ns.sysctl(f"net.ipv6.conf.{scope}.mldv2_unsolicited_report_interval", "0")
        ns.ip("link", "set", "lo", "up")
        return ns

    def on_close(self, fn: Callable[[], None]) -> None:
        self._closers.append(fn)

    def own(self, sock: socket.socket) -> socket.socket:
        self.on_close(sock.close)
        return sock

    def tmpdir(self) -> str:
        if self._tmpdir is None:
            self._tmpdir = tempfile.mkdtemp(prefix=self.prefix + "-")
        return self._tmpdir

    def close(self) -> None:
        # A signal during cleanup waits until it is done (it is raised when
        # the mask is restored), so a second SIGTERM, or one sent to the whole
        # process group, cannot cut it short and strand a namespace.
        with _signals_blocked():
            self._close()

    def _close(self) -> None:
        # Descriptors first (a TAP device disappears with its fd), then the
        # namespaces, which take their links and veth peers with them. A
        # closer that fails does not keep the rest from running.
        errors: list[str] = []
        while self._closers:
            fn = self._closers.pop()
            try:
                fn()
            except Exception as e:  # reported below; the cleanup goes on
                errors.append(str(e))
        while self.namespaces:
            ns = self.namespaces.pop()
            if not ns.name.startswith(self.prefix + "-"):
                errors.append(f"{ns.name}: not made by this run; left alone")
                continue
            try:
                r = run(["ip", "netns", "del", ns.name], check=False)
            except LabError as e:
                errors.append(str(e))
                continue
            if r.returncode != 0 and os.path.exists(os.path.join(_NETNS_DIR, ns.name)):
                errors.append(r.stderr.strip())
        if self._tmpdir is not None:
            shutil.rmtree(self._tmpdir, ignore_errors=True)
            self._tmpdir = None
        if errors:
            raise LabError("cleanup: " + "; ".join(errors))


_CLEANUP_SIGNALS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}


@contextlib.contextmanager
def _signals_blocked() -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP held back (pending) while the block runs."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _CLEANUP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


@contextlib.contextmanager
def guard_signals() -> Iterator[None]:
    """SIGTERM and SIGHUP raise LabInterrupted while the block runs."""

    def handler(signum: int, frame: FrameType | None) -> None:
        raise LabInterrupted(signal.Signals(signum).name)

    old = {s: signal.signal(s, handler) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)


def capability_problem() -> str | None:
    """Why this machine cannot run the lab, or None: root, netns, veth, VXLAN, TAP."""
    if os.geteuid() != 0:
        return "the kernel lab needs root (network namespaces, raw sockets)"
    if shutil.which("ip") is None:
        return "the kernel lab needs iproute2's `ip`"
    if not os.path.exists("/dev/net/tun"):
        return "the kernel lab needs /dev/net/tun (TAP devices)"
    try:
        with Lab() as lab:
            ns = lab.netns("probe")
            ns.ip("link", "add", "name", "p0", "type", "veth", "peer", "name", "p1")
            ns.ip("link", "add", "name", "x0", "type", "vxlan", "id", "1", "dstport", "4789")
            ns.ip("link", "add", "name", "b0", "type", "bridge")
    except LabError as e:
        return f"the kernel lab cannot build its devices here: {e}"
    return None
