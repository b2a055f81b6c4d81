"""The public package: curated API, bit layout, errors and the CLI's bad-input behaviour."""

from __future__ import annotations

import base64
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

import offlab
from offlab import Csum, CsumStatus, Level

OFFLAB = [sys.executable, "-m", "offlab.cli"]


def test_all_is_curated_and_private_core_not_exported() -> None:
    assert "_core" not in offlab.__all__
    for name in offlab.__all__:
        assert hasattr(offlab, name), name


def test_offloads_bits_match_ovs_layout() -> None:
    # lib/dp-packet.h: L4_CKSUM_BAD=1<<3, IP_CKSUM_BAD=1<<4, IP_CKSUM_GOOD=1<<7,
    # L4_CKSUM_GOOD=1<<8, L4_PROTO_TCP=1<<9, L4_PROTO_UDP=1<<10, TUNNEL_GENEVE=1<<11,
    # TUNNEL_VXLAN=1<<12; inner = outer << 16.
    o = offlab.Offloads()
    o.set_status(Level.OUTER, Csum.IP, CsumStatus.GOOD)
    assert o.word == 1 << 7
    o.set_status(Level.OUTER, Csum.L4, CsumStatus.BAD)
    assert o.word == (1 << 7) | (1 << 3)
    o.set_status(Level.OUTER, Csum.L4, CsumStatus.PARTIAL)
    assert o.word == (1 << 7) | (1 << 3) | (1 << 8)
    o.set_status(Level.INNER, Csum.IP, CsumStatus.BAD)
    assert o.word & (1 << 20)
    o.tunnel = offlab.TunnelType.GRE
    assert o.word & (1 << 11) and o.word & (1 << 12)
    assert offlab.Offloads(1 << 9 | 1 << 10).l4_proto() == offlab.L4Proto.SCTP


def test_packet_bytes_round_trip() -> None:
    data = bytes(range(60))
    p = offlab.Packet(data)
    assert p.bytes() == data and len(p) == 60
    assert p.l3_ofs is None


def test_errors_are_offlab_errors() -> None:
    br = offlab.Pipeline()
    with pytest.raises(offlab.OfflabError, match="profile nope: no built-in profile"):
        br.add_port("p1", profile="nope")
    br.add_port("p1")
    with pytest.raises(offlab.OfflabError, match="unknown option"):
        br.add_port("p2", options={"ol_bogus": "true"})
    with pytest.raises(offlab.OfflabError, match="unknown action"):
        br.add_flow("in_port=p1,actions=explode")
    with pytest.raises(ValueError):
        br.add_flow("in_port=p9,actions=drop")
    with pytest.raises(offlab.OfflabError, match="unknown fault"):
        offlab.enable_fault("no-such-bug")


def test_faults_list_names_the_fixing_project_and_commit() -> None:
    # Eight historical OVS bugs, one DPDK driver bug (Bugzilla 1406) and two
    # value-dependent bugs seeded by offlab (one for the conformance fuzzer, one
    # for the verifier's directed witnesses), which have no fixing commit.
    names = offlab.fault_names()
    assert len(names) == len(set(names)) == 11
    seeded = ["tcp-zero-csum-taken-as-absent", "udp-update-zero-keeps-stale-csum"]
    assert [n for n in names if offlab.fault_project(n) != "OVS"] == [
        "intel-outer-udp-unseeded",
        *seeded,
    ]
    assert offlab.fault_project("intel-outer-udp-unseeded") == "DPDK"
    assert offlab.fault_commit("intel-outer-udp-unseeded") == "f876dbef0809"
    for n in seeded:
        assert (offlab.fault_project(n), offlab.fault_commit(n)) == ("seeded", "-")
    r = subprocess.run([*OFFLAB, "faults"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert [line.split()[0] for line in lines] == names
    assert lines[-3].split() == ["intel-outer-udp-unseeded", "DPDK", "f876dbef0809"]
    assert [line.split() for line in lines[-2:]] == [[n, "seeded", "-"] for n in seeded]
    assert all(line.split()[1] == "OVS" for line in lines[:-3])


def test_scapy_round_trip() -> None:
    scapy = pytest.importorskip("scapy.all")
    pkt = scapy.Ether() / scapy.IP(dst="10.0.0.1") / scapy.TCP(dport=80)
    p = offlab.from_scapy(pkt)
    assert offlab.to_scapy(p)[scapy.TCP].dport == 80


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["dissect", "zz"], "not a hex frame"),
        (["dissect", "--pcap", "/nonexistent.pcap"], "no such file"),
        (["profiles", "nope"], "no built-in profile"),
        (["profiles", "/nonexistent/x.yaml"], "no such file"),
        (["dissect"], "give a hex frame"),
    ],
)
def test_cli_bad_input_one_line_error(args: list[str], needle: str) -> None:
    r = subprocess.run([*OFFLAB, *args], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert needle in r.stderr
    assert r.stderr.strip().count("\n") == 0
    assert r.stdout == ""


def test_cli_truncated_pcap(tmp_path: pytest.TempPathFactory) -> None:
    path = tmp_path / "t.pcap"  # type: ignore[operator]
    # A valid pcap global header followed by half a record header.
    path.write_bytes(
        bytes.fromhex("d4c3b2a1020004000000000000000000ffff000001000000") + b"\x00" * 6
    )
    r = subprocess.run(
        [*OFFLAB, "dissect", "--pcap", str(path)], capture_output=True, text=True, timeout=60
    )
    assert r.returncode in (0, 2)
    assert "Traceback" not in r.stderr


def test_demo_writes_the_report(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    t = time.monotonic()
    r = subprocess.run(
        [*OFFLAB, "demo", "--out", str(out)], capture_output=True, text=True, timeout=600
    )
    elapsed = time.monotonic() - t
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert elapsed < 300  # the README's main command, on a 2-core machine
    assert "25/25 output frames byte-identical" in r.stdout
    assert f"report: {out / 'report.html'}" in r.stdout

    page = (out / "report.html").read_text()
    tables = re.findall(r"<table>(.*?)</table>", page, re.S)
    assert len(tables) >= 6
    assert all(t.count("<tr>") >= 2 for t in tables)  # a header and at least one row
    images = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    assert len(images) == 3 and all(len(base64.b64decode(i)) > 5000 for i in images)
    # Every step of the summary passed; every property proved on every profile.
    summary = tables[0]
    assert summary.count("<td>ok</td>") == 6, summary  # recipes, proofs, bug, sim x2, sweep
    proofs = next(t for t in tables if "<caption>property x NIC profile</caption>" in t)
    profiles = offlab.builtin_profile_names()
    assert proofs.count("<tr>") == len(profiles) + 1  # a row per profile
    assert proofs.count("<td>PROVED</td>") == len(profiles) * (proofs.count("<th>") - 1)
    assert "FAILED" not in proofs

    md = (out / "report.md").read_text()
    figures = re.findall(r"!\[[^]]*\]\((figures/[^)]+)\)", md)
    assert len(figures) == 3
    assert all((out / f).stat().st_size > 5000 for f in figures)
    assert "udp" in md and "bad" in md  # the seeded bug's wrong outer checksum, decoded
    assert list((out / "counterexamples").glob("P2-e810-*.pcapng"))
    # Replayed in the simulator: wrong on the wire with the bug, right with the fix.
    assert re.search(
        r"simulated with the bug: \d+ frame\(s\) on the wire, [1-9]\d* with a wrong", md
    )
    assert re.search(r"simulated with the fix: \d+ frame\(s\) on the wire, 0 with a wrong", md)
    assert (out / "replay" / "bug" / "replay.pcapng").stat().st_size > 0


def test_offloads_attribute_is_the_packets_own() -> None:
    p = offlab.Packet(bytes(60))
    p.offloads.set_status(Level.OUTER, Csum.L4, CsumStatus.PARTIAL)
    assert p.offloads.status(Level.OUTER, Csum.L4) == CsumStatus.PARTIAL


def test_type_stubs_cover_the_compiled_module() -> None:
    import ast
    from pathlib import Path

    import offlab._core as core

    stub = Path(offlab.__file__).parent / "_core" / "__init__.pyi"
    if not stub.exists():  # an editable checkout: the stubs live in the source tree
        stub = Path(__file__).parents[2] / "python" / "offlab" / "_core" / "__init__.pyi"
    tree = ast.parse(stub.read_text())
    names = next(
        ast.literal_eval(n.value)
        for n in tree.body
        if isinstance(n, ast.AnnAssign) and getattr(n.target, "id", "") == "__all__"
    )
    public = {n for n in dir(core) if not n.startswith("_")}
    assert set(names) == public, "regenerate with: pybind11-stubgen offlab._core"
