"""The kernel lab rig of kernel_lab_costs.py: namespaces, links, traffic, counters.

One `Rig` owns every namespace it makes (named ``okc<pid>-<n>-<role>``) and every
process it starts; its exit deletes them, also on an exception or Ctrl-C, so a run
leaves nothing behind. A topology is built fresh for each experiment:

  veth:   ns s [s0 10.77.0.1] <-veth-> ns r [r0 10.77.0.2]
  bridge: ns s [s0] <-veth-> ns w [w0, w1 in br0] <-veth-> ns r [r0]
  vxlan:  the veth pair as underlay, vx0 in s and r (VNI 42, UDP 4789), overlay
          10.78.0.1 / .2; `ip link` VXLAN options per experiment
  tap:    ns s [TAP t0 and s0 in br0] <-veth-> ns r [r0 10.77.0.2]; the "guest"
          behind t0 is 10.77.0.3 (a process reading or writing t0's frames)

Traffic is a sender pinned to CPU 0 and a receiver pinned to CPU 1
(kernel_lab_child.py); each measures its own system time over the window it
moves data in. Counters come from each namespace's /proc/net/dev and
/proc/net/snmp, and from the global /proc/softirqs, /proc/net/softnet_stat and
the ksoftirqd threads' run time.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

PREFIX = "okc"
_counter = itertools.count()
MACS = {
    "s0": "02:00:00:00:77:01",
    "r0": "02:00:00:00:77:02",
    "vs": "02:00:00:00:78:01",
    "vr": "02:00:00:00:78:02",
}

CHILD = str(Path(__file__).resolve().parent / "kernel_lab_child.py")
MAC_GUEST = "02:00:00:00:77:03"


class RigError(Exception):
    """A rig step failed: a command, a missing device kind, a child that died."""


def run(argv: list[str]) -> str:
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise RigError(f"{' '.join(argv)}: {e}") from e
    if r.returncode != 0:
        lines = (r.stderr or r.stdout).strip().splitlines()
        raise RigError(f"{' '.join(argv)}: {lines[-1] if lines else f'exit {r.returncode}'}")
    return r.stdout


@dataclass
class Topo:
    ns: dict[str, str]  # role ("s" sender, "r" receiver, "w" bridge) -> namespace
    dst: str  # the address the sender sends to


class Rig:
    """Owns namespaces and child processes; `close` (and the context exit) removes all."""

    def __init__(self) -> None:
        self.prefix = f"{PREFIX}{os.getpid()}-{next(_counter)}"
        self.namespaces: list[str] = []
        self.procs: list[subprocess.Popen[str]] = []

    def __enter__(self) -> Rig:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        self.procs.clear()
        errors = []
        while self.namespaces:
            ns = self.namespaces.pop()
            r = subprocess.run(["ip", "netns", "del", ns], capture_output=True, text=True)
            if r.returncode != 0 and os.path.exists(f"/run/netns/{ns}"):
                errors.append(r.stderr.strip())
        if errors:
            raise RigError("cleanup: " + "; ".join(errors))

    def netns(self, role: str) -> str:
        name = f"{self.prefix}-{role}"
        run(["ip", "netns", "add", name])
        self.namespaces.append(name)
        # No IPv6: no router or MLD solicitations in the counters.
        for scope in ("default", "all"):
            ip(name, "exec", "sysctl", "-qw", f"net.ipv6.conf.{scope}.disable_ipv6=1")
        ip(name, "link", "set", "lo", "up")
        return name

    def topology(self, kind: str, vxlan_opts: tuple[str, ...] = ()) -> Topo:
        s, r = self.netns("s"), self.netns("r")
        roles = {"s": s, "r": r}
        if kind == "tap":
            # A persistent TAP: the child attaches to it by name (TUNSETIFF).
            ip(s, "tuntap", "add", "dev", "t0", "mode", "tap")
            _veth(s, "s0", r, "r0")
            _bridge(s, ("s0", "t0"))
            run(["bridge", "-n", s, "fdb", "replace", MAC_GUEST, "dev", "t0", "master", "static"])
            run(["bridge", "-n", s, "fdb", "replace", MACS["r0"], "dev", "s0", "master", "static"])
            _addr(r, "r0", "10.77.0.2", "10.77.0.3", MAC_GUEST)
            return Topo(roles, "10.77.0.3")
        if kind == "bridge":
            w = roles["w"] = self.netns("w")
            _veth(s, "s0", w, "w0")
            _veth(w, "w1", r, "r0")
            _bridge(w, ("w0", "w1"))
        else:
            _veth(s, "s0", r, "r0")
        _addr(s, "s0", "10.77.0.1", "10.77.0.2", MACS["r0"])
        _addr(r, "r0", "10.77.0.2", "10.77.0.1", MACS["s0"])
        dst = "10.77.0.2"
        if kind == "vxlan":
            for ns, mac, loc, rem, peer_mac in (
                (s, "vs", ".1", ".2", "vr"),
                (r, "vr", ".2", ".1", "vs"),
            ):
                ip(
                    ns,
                    "link",
                    "add",
                    "vx0",
                    "address",
                    MACS[mac],
                    "type",
                    "vxlan",
                    "id",
                    "42",
                    "local",
                    "10.77.0" + loc,
                    "remote",
                    "10.77.0" + rem,
                    "dstport",
                    "4789",
                    *vxlan_opts,
                )
                _addr(ns, "vx0", "10.78.0" + loc, "10.78.0" + rem, MACS[peer_mac])
            dst = "10.78.0.2"
        return Topo(roles, dst)

    def start(self, ns: str, cpu: int, *args: str) -> subprocess.Popen[str]:
        argv = ["ip", "netns", "exec", ns, "taskset", "-c", str(cpu), "python3", CHILD]
        p = subprocess.Popen(
            [*argv, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        self.procs.append(p)
        return p


def reap_stale() -> None:
    """Deletes namespaces left by runs whose process is gone (e.g. SIGKILL)."""
    listing = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    for line in listing.splitlines():
        m = re.match(rf"({PREFIX}(\d+)-\S+)", line)
        if m and not os.path.exists(f"/proc/{m.group(2)}"):
            subprocess.run(["ip", "netns", "del", m.group(1)], capture_output=True)


def ip(ns: str, *args: str) -> str:
    if args and args[0] == "exec":
        return run(["ip", "netns", "exec", ns, *args[1:]])
    return run(["ip", "-n", ns, *args])


def _veth(ns_a: str, a: str, ns_b: str, b: str) -> None:
    ip(
        ns_a,
        "link",
        "add",
        a,
        "address",
        MACS.get(a, _mac(a)),
        "type",
        "veth",
        "peer",
        "name",
        b,
        "address",
        MACS.get(b, _mac(b)),
        "netns",
        ns_b,
    )
    ip(ns_a, "link", "set", a, "up")
    ip(ns_b, "link", "set", b, "up")


def _bridge(ns: str, ports: tuple[str, ...]) -> None:
    """br0 over `ports`, forwarding at once (no STP, no learning delay)."""
    ip(ns, "link", "add", "br0", "type", "bridge", "forward_delay", "0", "stp_state", "0")
    for dev in ports:
        ip(ns, "link", "set", dev, "master", "br0")
        ip(ns, "link", "set", dev, "up")
    ip(ns, "link", "set", "br0", "up")


def _mac(dev: str) -> str:
    return "02:00:00:00:79:%02x" % (sum(map(ord, dev)) & 0xFF)


def _addr(ns: str, dev: str, addr: str, peer: str, peer_mac: str) -> None:
    """Address and a permanent neighbour: no ARP in the counted traffic."""
    ip(ns, "addr", "add", addr + "/24", "dev", dev)
    ip(ns, "neigh", "replace", peer, "lladdr", peer_mac, "dev", dev, "nud", "permanent")
    ip(ns, "link", "set", dev, "up")


def set_features(ns: str, dev: str, words: list[str]) -> None:
    """`ethtool -K dev <words>`, then checks that every feature named took."""
    run(["ip", "netns", "exec", ns, "ethtool", "-K", dev, *words])
    shown = run(["ip", "netns", "exec", ns, "ethtool", "-k", dev])
    state = {}
    for line in shown.splitlines():
        k, _, v = line.strip().partition(":")
        state[k] = v.strip().split(" ")[0]
    alias = {
        "tso": "tcp-segmentation-offload",
        "gso": "generic-segmentation-offload",
        "gro": "generic-receive-offload",
        "tx": "tx-checksumming",
        "sg": "scatter-gather",
    }
    for k, v in zip(words[::2], words[1::2], strict=True):
        if state.get(alias.get(k, k)) != v:
            raise RigError(f"{dev}: ethtool -K {k} {v} did not take ({state.get(alias.get(k, k))})")


def ns_counters(ns: str) -> dict[str, float]:
    """A namespace's device and SNMP counters, flattened: "dev.s0.rx_packets", "Ip.InReceives"."""
    text = run(["ip", "netns", "exec", ns, "cat", "/proc/net/dev", "/proc/net/snmp"])
    out: dict[str, float] = {}
    lines = text.splitlines()
    for line in lines:
        name, sep, rest = line.partition(":")
        f = rest.split()
        if sep and len(f) == 16 and f[0].isdigit():
            d = name.strip()
            out.update(
                {
                    f"dev.{d}.rx_bytes": float(f[0]),
                    f"dev.{d}.rx_packets": float(f[1]),
                    f"dev.{d}.tx_bytes": float(f[8]),
                    f"dev.{d}.tx_packets": float(f[9]),
                }
            )
    for head, vals in itertools.pairwise(lines):
        h, v = head.split(), vals.split()
        if h and v and h[0] == v[0] and h[0].endswith(":") and not v[1].isalpha():
            out.update({f"{h[0][:-1]}.{k}": float(x) for k, x in zip(h[1:], v[1:], strict=True)})
    return out


def global_counters() -> dict[str, float]:
    """What only the whole machine counts: NET_RX softirqs, skbs into the stack, ksoftirqd time."""
    out: dict[str, float] = {}
    with open("/proc/softirqs") as f:
        for line in f:
            w = line.split()
            if w and w[0] in ("NET_RX:", "NET_TX:"):
                out[w[0][:-1]] = float(sum(int(x) for x in w[1:]))
    with open("/proc/net/softnet_stat") as f:
        out["processed"] = float(sum(int(line.split()[0], 16) for line in f))
    ksoft = 0.0
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/comm") as f:
                    if not f.read().startswith("ksoftirqd/"):
                        continue
                with open(f"/proc/{pid}/schedstat") as f:
                    ksoft += int(f.read().split()[0]) / 1e9
            except OSError:
                continue
    out["ksoftirqd_s"] = ksoft
    # Every CPU's non-idle time (user, nice, system, irq, softirq, steal): what
    # others ran beside the experiment. Tick-sampled at USER_HZ.
    with open("/proc/stat") as f:
        w = f.readline().split()
    hz = os.sysconf("SC_CLK_TCK")
    out["busy_s"] = sum(int(w[i]) for i in (1, 2, 3, 6, 7, 8)) / hz
    out["steal_s"] = int(w[8]) / hz
    out["time_s"] = time.monotonic()
    return out


def child_result(p: subprocess.Popen[str], what: str, timeout: float) -> dict[str, float]:
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired as e:
        p.kill()
        p.wait()
        raise RigError(f"{what} did not finish in {timeout:.0f} s") from e
    if p.returncode != 0:
        lines = err.strip().splitlines()
        raise RigError(f"{what} failed: {lines[-1] if lines else f'exit {p.returncode}'}")
    return dict(json.loads(out.strip().splitlines()[-1]))


def traffic(rig: Rig, topo: Topo, proto: str, size: int, gso: int, gro: bool, duration: float,
            tap: str = "") -> dict[str, float]:  # fmt: skip
    """One measured run: counter deltas over every namespace plus the global ones,
    and each side's system seconds, payload bytes, calls and wakeups. `tap`:
    "inject" writes the guest's frames into t0 towards r's socket, "sink" sends
    from r's socket to the guest, which reads them from t0."""
    names = {ns: role for role, ns in topo.ns.items()}
    before = {ns: ns_counters(ns) for ns in names} | {"": global_counters()}
    rx_ns, rx_role, tx_ns, tx_role = topo.ns["r"], "rx", topo.ns["s"], "tx"
    if tap == "inject":
        tx_role = "tap-tx"
    elif tap == "sink":
        rx_ns, rx_role, tx_ns = topo.ns["s"], "tap-rx", topo.ns["r"]
    args = (proto, topo.dst, str(size), str(gso), str(int(gro)), str(duration))
    rx = rig.start(rx_ns, 1, rx_role, *args)
    assert rx.stdout is not None
    if rx.stdout.readline().strip() != "ready":
        child_result(rx, "receiver", 5)
        raise RigError("receiver did not start")
    sent = child_result(rig.start(tx_ns, 0, tx_role, *args), "sender", duration + 30)
    got = child_result(rx, "receiver", 30)
    after = {ns: ns_counters(ns) for ns in names} | {"": global_counters()}
    delta = {f"{names.get(ns, 'all')}:{k}": v - before[ns].get(k, 0.0)
             for ns, vals in after.items() for k, v in vals.items()}  # fmt: skip
    for side, r in (("tx", sent), ("rx", got)):
        delta |= {f"{side}_{k}": float(r[k]) for k in ("sys", "user", "bytes", "calls", "wakeups")}
    return delta
