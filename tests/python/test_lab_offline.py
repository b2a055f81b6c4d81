"""Kernel lab pieces that need no privileges: the frame generator against
scapy, the outer-ID normalisation, the case list and `offlab lab` input errors."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from offlab.lab import case as lab_case
from offlab.lab import frames as F
from offlab.lab import load, nsutil

scapy_all = pytest.importorskip("scapy.all")


def rfc1071(data: bytes) -> int:
    if len(data) % 2:
        data += b"\0"
    s = 0
    for i in range(0, len(data), 2):
        s += (data[i] << 8) | data[i + 1]
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def test_udp4_frame_matches_scapy():
    mine = F.udp4_frame("02:00:00:00:00:0a", "02:00:00:00:00:0b", "10.0.0.1", "10.0.0.2",
                        4000, 5000, F.payload(101), ident=7)  # fmt: skip
    ref = (
        scapy_all.Ether(dst="02:00:00:00:00:0b", src="02:00:00:00:00:0a")
        / scapy_all.IP(src="10.0.0.1", dst="10.0.0.2", id=7, flags="DF", ttl=64)
        / scapy_all.UDP(sport=4000, dport=5000)
        / F.payload(101)
    )
    assert mine == bytes(ref)


def test_tcp4_frame_matches_scapy_and_bad_differs():
    args = ("02:00:00:00:00:0a", "02:00:00:00:00:0b", "10.0.0.1", "10.0.0.2", 1, 2, b"xyz")
    mine = F.tcp4_frame(*args, seq=5, flags=0x10)
    ref = (
        scapy_all.Ether(dst=args[1], src=args[0])
        / scapy_all.IP(src=args[2], dst=args[3], id=1, flags="DF", ttl=64)
        / scapy_all.TCP(sport=1, dport=2, seq=5, flags="A", window=65535)
        / b"xyz"
    )
    assert mine == bytes(ref)
    bad = F.tcp4_frame(*args, seq=5, flags=0x10, csum="bad")
    assert bad != mine and bad[:50] == mine[:50] and bad[52:] == mine[52:]


def test_udp6_and_pseudo_field():
    f6 = F.udp6_frame("02:00:00:00:00:0a", "02:00:00:00:00:0b", "fd00::1", "fd00::2", 1, 2, b"ab")
    ref = (
        scapy_all.Ether(dst="02:00:00:00:00:0b", src="02:00:00:00:00:0a")
        / scapy_all.IPv6(src="fd00::1", dst="fd00::2", hlim=64)
        / scapy_all.UDP(sport=1, dport=2)
        / b"ab"
    )
    assert f6 == bytes(ref)
    # The "pseudo" field is the uncomplemented pseudo-header sum: adding the
    # segment's other bytes and complementing gives the full checksum.
    p = F.udp4_frame("02:00:00:00:00:0a", "02:00:00:00:00:0b", "10.0.0.1", "10.0.0.2", 1, 2,
                     b"hello", csum="pseudo")  # fmt: skip
    seg = p[34:]
    ph = bytes([10, 0, 0, 1, 10, 0, 0, 2, 0, 17, 0, len(seg)])
    assert int.from_bytes(seg[6:8], "big") == (~rfc1071(ph) & 0xFFFF)


def test_normalize_ipv4_id_keeps_a_wrong_checksum():
    frame = F.udp4_frame("02:00:00:00:00:0a", "02:00:00:00:00:0b", "10.0.0.1", "10.0.0.2", 1, 2,
                         b"x", ident=0x1234)  # fmt: skip
    norm = lab_case.normalize_ipv4_id(frame)
    assert norm[18:20] == b"\0\0" and rfc1071(norm[14:34]) == 0 and norm[34:] == frame[34:]
    broken = frame[:24] + bytes([frame[24] ^ 1]) + frame[25:]
    assert lab_case.normalize_ipv4_id(broken) == broken


def test_case_list_has_enough_cited_cases():
    reg = load()
    assert len(reg) >= 25
    for c in reg.values():
        assert c.rule and c.desc and c.topology


def _offlab(*args: str) -> subprocess.CompletedProcess[str]:
    code = "import sys; from offlab.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          timeout=60, check=False)  # fmt: skip


def _netns() -> set[str]:
    """The lab namespaces on this machine whose process is gone: what a run
    leaked. A lab run still going beside this test (another session, a
    benchmark) owns its namespaces (olab-PID-N-NAME) and does not count, and
    the tests compare what appears, so a leak from before does not either."""
    if shutil.which("ip") is None:
        return set()
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    names = {line.split()[0] for line in out.splitlines() if line.startswith("olab-")}
    return {n for n in names if not nsutil.pid_alive(int(n.split("-")[1]))}


@pytest.mark.parametrize(
    "args, message",
    [
        (["lab", "no-such-case"], "unknown lab case or topology: no-such-case"),
        (["lab", "--kernel", "banana"], "not a kernel version"),
    ],
)
def test_bad_input_is_one_line_error_and_leaves_nothing(args, message):
    before = _netns()
    r = _offlab(*args)
    assert r.returncode != 0
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("offlab: error: ") and message in lines[0]
    assert not (_netns() - before), "the failed command left lab namespaces behind"


def test_unknown_option_fails():
    r = _offlab("lab", "--frobnicate")
    assert r.returncode != 0 and "unrecognized arguments" in r.stderr


def test_list_shows_cases_and_rules():
    r = _offlab("lab", "--list")
    assert r.returncode == 0
    assert "vxlan4-rco" in r.stdout and "rule:" in r.stdout


def test_every_case_is_predicted_along_its_path():
    """Each case runs a registered path with its inputs, and the prediction
    for that path exists: the same inputs go to the model."""
    from offlab.lab.predict import PREDICTORS

    for c in load().values():
        assert c.path is not None, c.name
        assert c.path in PREDICTORS, f"{c.name}: no model composition for {c.path.__name__}"


def test_compare_features_and_frames():
    from offlab.lab import main as lab_main
    from offlab.lab.case import Case

    feat = Case("f", "features", "d", "r", run=lambda lab: {})
    # A feature the running kernel has no name for can only be off.
    assert lab_main.compare(feat, {"v0 rx-gro": "off"}, {"v0 rx-gro": "off", "v0 x": "off"}) == []
    assert lab_main.compare(feat, {}, {"v0 x": "on"}) == ["v0 x: kernel off / model on"]
    other = Case("c", "veth", "d", "r", run=lambda lab: {})
    diff = lab_main.compare(other, {"b0.in[0]": "NONE | - | 0a0b0c", "n": "1"},
                            {"b0.in[0]": "NONE | - | 0a0b0d"})  # fmt: skip
    assert diff == [
        "b0.in[0]: kernel NONE [-] / model NONE [-], bytes differ at 2 (len 3 / 3): 0c / 0d",
        "n: kernel 1 / model <absent>",
    ]
