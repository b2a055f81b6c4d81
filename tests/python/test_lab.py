"""The kernel lab on the running kernel (root, network namespaces). Skipped as
a whole, with one reason, where namespaces, veth, VXLAN or TAP can't be made.

Each case's observation is compared, key by key, with the kernel model's
prediction for the same inputs (the composition of the model's calls along the
case's path, predict*.py); a case whose model piece is not bound is skipped
naming it. Independently of the model, the documented kernel behaviours below
are checked on the observations with expected values derived here (RFC 1071
arithmetic, kernel rules)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from offlab.lab import capability_problem, load
from offlab.lab import main as lab_main

PROBLEM = capability_problem()
if PROBLEM is not None:
    pytest.skip(f"kernel lab unavailable: {PROBLEM}", allow_module_level=True)

from offlab.lab import nsutil  # noqa: E402
from offlab.lab import topology as T  # noqa: E402

REGISTRY = load()


@pytest.fixture(scope="module")
def outcomes():
    kv = lab_main.parse_kernel(None)
    with nsutil.guard_signals():
        return {name: lab_main.run_case(c, kv) for name, c in REGISTRY.items()}


@pytest.mark.parametrize("name", list(REGISTRY))
def test_kernel_agrees_with_model(outcomes, name):
    o = outcomes[name]
    assert o.verdict != lab_main.ERROR, o.detail
    if o.verdict == lab_main.SKIP:
        pytest.skip(o.detail)
    if o.verdict == lab_main.AWAIT:
        pytest.skip(f"model prediction: {o.detail}")
    assert o.verdict == lab_main.AGREE, "\n".join(o.diff)


def rfc1071(data: bytes) -> int:
    if len(data) % 2:
        data += b"\0"
    s = sum((data[i] << 8) | data[i + 1] for i in range(0, len(data), 2))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def frame(o, key):
    vnet, aux, hexdata = o.observation[key].split(" | ")
    return vnet, aux, bytes.fromhex(hexdata)


def pseudo_tcp4(ip: bytes, tcp_len: int) -> int:
    """The folded, uncomplemented TCP/IPv4 pseudo-header sum."""
    return ~rfc1071(ip[12:20] + bytes([0, 6]) + tcp_len.to_bytes(2, "big")) & 0xFFFF


def test_documented_receive_counters(outcomes):
    o = {n: outcomes[n].observation for n in outcomes}
    # UDP verifies a CHECKSUM_NONE datagram when the application copies it.
    assert o["udp4-bad-csum"]["snmp Udp:InCsumErrors"] == "1"
    assert o["udp4-bad-csum"]["socket"] == "0 datagram(s)"
    assert o["udp4-zero-csum"]["socket"] == "1 datagram(s)"
    assert o["ipv4-bad-hdr-csum"]["snmp Ip:InHdrErrors"] == "1"
    assert o["ipv4-bad-hdr-csum"]["snmp IpExt:InCsumErrors"] == "1"
    assert o["tcp4-bad-csum"]["snmp Tcp:InCsumErrors"] == "1"
    assert o["tcp4-bad-csum"]["b0.out.count"] == "0"  # no RST for a bad segment
    assert o["vxlan4-bad-outer-csum"]["snmp Udp:InCsumErrors"] == "1"
    assert o["vxlan4-bad-outer-csum"]["vx0.in.count"] == "0"
    assert o["vxlan6-zerocsum-refused"]["vx0.in.count"] == "0"
    assert o["vxlan6-zerocsum-allowed"]["socket"] == "1 datagram(s)"
    assert o["vxlan4-bad-inner-tcp"]["snmp Tcp:InCsumErrors"] == "1"


def test_documented_gro_merge_bytes(outcomes):
    o = outcomes["veth-gro-on-tcp4"]
    assert o.observation["b0.in.count"] == "1"
    vnet, _, data = frame(o, "b0.in[0]")
    assert vnet == "PARTIAL start=34 off=16 gso=tcpv4/1000"
    ip = data[14:34]
    assert int.from_bytes(ip[2:4], "big") == 20 + 20 + 4 * 1000  # tot_len rewritten
    assert rfc1071(ip) == 0  # header checksum updated with it
    assert int.from_bytes(data[50:52], "big") == pseudo_tcp4(ip, 20 + 4000)


def test_documented_software_gso_segments(outcomes):
    o = outcomes["vnet-gso-tcp4-sw"]
    assert o.observation["b0.in.count"] == "3"
    for i in range(3):
        vnet, _, data = frame(o, f"b0.in[{i}]")
        ip = data[14:34]
        assert vnet == "PARTIAL start=34 off=16"
        assert int.from_bytes(ip[4:6], "big") == 1 + i  # IP id incremented per segment
        assert rfc1071(ip) == 0 and int.from_bytes(ip[2:4], "big") == 1040
        assert int.from_bytes(data[38:42], "big") == 1000 + 1000 * i  # seq
        assert int.from_bytes(data[50:52], "big") == pseudo_tcp4(ip, 1020)
    o = outcomes["vnet-gso-tcp4-sw-nocsum"]
    for i in range(3):
        vnet, _, data = frame(o, f"b0.in[{i}]")
        ip = data[14:34]
        tcp = data[34:]
        assert vnet == "NONE"
        ph = ip[12:20] + bytes([0, 6]) + len(tcp).to_bytes(2, "big")
        assert rfc1071(ph + tcp) == 0  # full checksum written in software


def test_documented_vxlan_outer_checksums(outcomes):
    _, _, zero = frame(outcomes["vxlan4-noudpcsum"], "a0.out[0]")
    assert zero[40:42] == b"\0\0"
    vnet, _, lco = frame(outcomes["vxlan4-lco"], "a0.out[0]")
    assert vnet == "PARTIAL start=84 off=6"  # the inner checksum is still pending
    # LCO: the outer checksum already is the one of the packet whose inner
    # checksum has been filled in.
    inner_ip, inner_udp = lco[64:84], bytearray(lco[84:])
    inner_ph = inner_ip[12:20] + bytes([0, 17]) + len(inner_udp).to_bytes(2, "big")
    inner_udp[6:8] = b"\0\0"
    inner_udp[6:8] = rfc1071(inner_ph + bytes(inner_udp)).to_bytes(2, "big")
    udp = lco[34:84] + bytes(inner_udp)
    ph = lco[26:34] + bytes([0, 17]) + len(udp).to_bytes(2, "big")
    assert lco[40:42] != b"\0\0" and rfc1071(ph + udp) == 0


def _lab_names() -> set[str]:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return {ln.split()[0] for ln in out.splitlines() if ln.startswith(nsutil.PREFIX)}


def _root_links() -> str:
    out = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    return "\n".join(sorted(ln.split(":")[1].strip() for ln in out.splitlines()))


def test_failure_mid_case_leaves_nothing():
    names, links = _lab_names(), _root_links()
    with pytest.raises(RuntimeError), nsutil.Lab() as lab:
        t = T.tap(lab)
        T.vxlan(lab)
        tmp = lab.tmpdir()
        assert t.tap is not None and os.path.isdir(tmp)
        assert {ns.name for ns in lab.namespaces} <= _lab_names()
        raise RuntimeError("boom in the middle of a case")
    assert _lab_names() == names and _root_links() == links and not os.path.exists(tmp)


def test_signal_while_a_namespace_is_made_leaves_nothing(monkeypatch):
    # A signal to the whole process group kills `ip netns add` with the lab;
    # the namespace may exist by then although the call never returned.
    real_run = nsutil.run

    def add_then_interrupt(argv, check=True):
        r = real_run(argv, check)
        if argv[:3] == ["ip", "netns", "add"]:
            raise nsutil.LabInterrupted("SIGTERM")
        return r

    monkeypatch.setattr(nsutil, "run", add_then_interrupt)
    lab = nsutil.Lab()
    with pytest.raises(nsutil.LabInterrupted), lab:
        lab.netns("a")
    monkeypatch.undo()
    assert not any(n.startswith(lab.prefix) for n in _lab_names())


def test_a_failing_closer_does_not_strand_the_namespaces():
    names = _lab_names()

    def broken() -> None:
        raise nsutil.LabError("ip link del: gone already")

    lab = nsutil.Lab()
    with pytest.raises(nsutil.LabError, match="gone already"), lab:
        lab.netns("a")
        lab.on_close(broken)
    assert _lab_names() == names


# The child takes SIGINT as an interactive Ctrl-C does: a suite started in
# the background by a non-interactive shell inherits SIGINT ignored, and
# Python then installs no KeyboardInterrupt handler of its own.
CHILD = """
import signal, sys, time
from offlab.lab import nsutil, topology as T
signal.signal(signal.SIGINT, signal.default_int_handler)
with nsutil.guard_signals(), nsutil.Lab() as lab:
    T.tap(lab)
    print(lab.prefix, flush=True)
    time.sleep(60)
"""


@pytest.mark.parametrize("group", [False, True], ids=["process", "group"])
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_mid_case_leaves_nothing(sig, group):
    # `group`: as `kill -- -PGID` or a terminal's Ctrl-C sends it, to the lab
    # and every command it is running.
    p = subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.PIPE, text=True,
                         start_new_session=group)  # fmt: skip
    try:
        prefix = p.stdout.readline().strip()
        assert prefix.startswith(nsutil.PREFIX)
        assert any(n.startswith(prefix) for n in _lab_names())
        if group:
            os.killpg(p.pid, sig)
        else:
            p.send_signal(sig)
        p.wait(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
            # Killed, it could not clean up: its namespaces go now, not at the
            # next lab run.
            nsutil.reap_stale()
    time.sleep(0.1)
    assert p.returncode != 0
    assert not any(n.startswith(prefix) for n in _lab_names())


def test_cli_runs_a_case_and_writes_json(tmp_path):
    out = tmp_path / "lab.json"
    code = "import sys; from offlab.cli import main; sys.exit(main(sys.argv[1:]))"
    r = subprocess.run([sys.executable, "-c", code, "lab", "udp4-bad-csum", "--json", str(out)],
                       capture_output=True, text=True, timeout=120)  # fmt: skip
    assert "udp4-bad-csum" in r.stdout
    import json

    data = json.loads(out.read_text())
    assert data[0]["case"] == "udp4-bad-csum"
    assert data[0]["observation"]["snmp Udp:InCsumErrors"] == "1"
    assert r.returncode == (1 if data[0]["verdict"] in ("DISAGREE", "ERROR") else 0)


def test_cli_kernel_option_reports_version_differences(tmp_path):
    """--kernel 4.0 predicts with the 4.0 rules: before v4.4 (ce8c839b74e3)
    veth_xmit marked a CHECKSUM_NONE skb UNNECESSARY for a peer with
    rx-checksum, so 4.0 accepts the bad UDP checksum the running kernel
    drops. That is a version difference, not a failure (exit 0)."""
    pytest.importorskip("offlab._core").kernel  # noqa: B018
    out = tmp_path / "lab.json"
    code = "import sys; from offlab.cli import main; sys.exit(main(sys.argv[1:]))"
    r = subprocess.run([sys.executable, "-c", code, "lab", "udp4-bad-csum", "--kernel", "4.0",
                        "--json", str(out)], capture_output=True, text=True,
                       timeout=120)  # fmt: skip
    import json

    data = json.loads(out.read_text())
    assert data[0]["verdict"] == "version difference", r.stdout
    assert data[0]["prediction"]["socket"] == "1 datagram(s)"
    assert data[0]["observation"]["socket"] == "0 datagram(s)"
    assert "version difference" in r.stdout and r.returncode == 0
