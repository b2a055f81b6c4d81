"""`offlab sim`'s text report and the `--list` of scenarios and sweeps.

The result documents are built by hand in the shapes results.json takes
(OVS-DPDK host, kernel host, packet generator); expected cells are worked out
here by hand (means, counts, line-rate arithmetic), and the listings are
checked against the YAML files read here with PyYAML."""

from __future__ import annotations

import math
import re
from typing import Any

import pytest
import yaml

from offlab import sim
from offlab.cli import main

# A column is a run of text with no two spaces in a row; columns are at least
# two spaces apart.
FIELD = re.compile(r"\S+(?: \S+)*")


def fields(line: str) -> list[re.Match[str]]:
    return list(FIELD.finditer(line))


def table(text: str, first: str, rows: int) -> tuple[list[str], list[list[str]]]:
    """The header starting with `first` and the `rows` lines under it, each
    checked to have one field per header column, under that column."""
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.split()[:1] == [first])
    header = fields(lines[at])
    body = []
    for line in lines[at + 1 : at + 1 + rows]:
        got = fields(line)
        assert len(got) == len(header), f"columns run together or are missing:\n{text}"
        for h, f in zip(header, got, strict=True):
            assert f.start() < h.end() and f.end() > h.start(), f"not under '{h[0]}':\n{text}"
        body.append([f[0] for f in got])
    return [h[0] for h in header], body


def ovs_host(name: str, pmds: list[float], guests: list[float]) -> dict[str, Any]:
    return {
        "name": name,
        "kind": "ovs-dpdk",
        "pmd_cpu_pct": pmds,
        "guest_cpu_pct": guests,
        "nic": {"tx_frames": 936137, "rx_frames": 14440, "tx_drops": 0},
        "counters": {"simple_match_hit": 14469},
    }


def result(hosts: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {
        "scenario": "hand-made",
        "description": "built in the test",
        "nic": "connectx6dx",
        "tunnel": "vxlan",
        "underlay": "ipv4",
        "outer_udp_csum": True,
        "goodput_gbps": 9.5,
        "sim_seconds": 0.5,
        "wall_seconds": 2.0,
        "hosts": hosts,
        "events": [],
        **extra,
    }


# guests, PMDs -> guests, min, mean, max, saturated (>= 99 %), PMD cell
CASES = {
    1: ([73.4], [37.2], ["1", "73", "73", "73", "0"], "37"),
    # mean (100 + 99 + 98.9 + 3 * 50 + 25 + 0.6) / 8 = 473.5 / 8 = 59.19;
    # 99.0 is saturated, 98.9 is not.
    8: ([100, 99.0, 98.9, 50, 50, 50, 25, 0.6], [12, 88], ["8", "1", "59", "100", "2"], "12/88"),
    # 40 saturated guests and 24 at half: mean (4000 + 1200) / 64 = 81.25;
    # six PMDs summarised: (99 + 98 + 12 + 45 + 77 + 3) / 6 = 55.7.
    64: (
        [100.0] * 40 + [50.0] * 24,
        [99, 98, 12, 45, 77, 3],
        ["64", "50", "81", "100", "40"],
        "6 cores 3-99, mean 56",
    ),
}


@pytest.mark.parametrize("n", sorted(CASES))
def test_host_table_stays_in_columns(n: int) -> None:
    guests, pmds, want, pmd_cell = CASES[n]
    assert len(guests) == n
    text = sim.format_table(result([ovs_host("host0", pmds, guests), ovs_host("host1", [5], [])]))
    header, (row0, row1) = table(text, "host", 2)
    assert header[:3] == ["host", "kind", "PMD CPU %"]
    assert row0[:3] == ["host0", "ovs-dpdk", pmd_cell]
    assert row0[3:8] == want
    assert row0[8:] == ["936137", "14440"]
    assert row1[3:8] == ["0", "-", "-", "-", "0"]  # a host without guests
    # One row per host, as wide for n guests as for one (the same PMDs).
    one = sim.format_table(result([ovs_host("host0", pmds, [73.4]), ovs_host("host1", [5], [])]))
    assert [len(x) for x in text.splitlines()[3:6]] == [len(x) for x in one.splitlines()[3:6]]
    assert max(len(line) for line in text.splitlines()) <= 120
    assert "host0 coverage: simple_match_hit 14469" in text


def kernel_result() -> dict[str, Any]:
    queues = [99.4, 98.0, 97.0, 96.0, 95.0, 94.0, 93.0, 92.0]
    sender = {
        "name": "host0",
        "kind": "kernel",
        "softirq_cpu_pct": [20.0, 30.0],
        "vhost_cpu_pct": [45.0],
        "guest_cpu_pct": [60.0, 61.0],
        "kernel": {"softirq_busy_pct": 25.0, "gro_merges_per_s": 0.0, "sw_csum_bytes_per_s": 0.0},
        "nic": {"tx_frames": 100, "rx_frames": 7},
        "counters": {},
    }
    # No "nic", "counters", "vhost_cpu_pct" nor "pmd_cpu_pct" at all.
    receiver = {
        "name": "host1",
        "kind": "kernel",
        "softirq_cpu_pct": queues,
        "guest_cpu_pct": [99.5],
        "kernel": {
            "softirq_busy_pct": sum(queues) / len(queues),
            "gro_merges_per_s": 1234567.0,
            "frames_per_skb": 1.0,
            "not_validated_per_s": 812000.0,
            "not_validated_per_s:csum_none": 812000.0,
            "sw_csum_bytes_per_s": 1.2e9,
            "not_validated": 17,
        },
    }
    return result([sender, receiver], tunnel="none", host_kind="kernel")


def test_kernel_host() -> None:
    text = sim.format_table(kernel_result())
    assert "no tunnel" in text
    header, (row0, row1) = table(text, "host", 2)
    assert "PMD CPU %" not in header
    at = header.index("softirq CPU %")
    assert header[at + 1] == "vhost CPU %"
    assert row0[1] == "kernel" and row0[at : at + 2] == ["20/30", "45"]
    # Eight receive queues: (99.4 + 98 + ... + 92) / 8 = 764.4 / 8 = 95.55.
    assert row1[at : at + 2] == ["8 cores 92-99, mean 96", "-"]
    assert row1[-2:] == ["-", "-"]  # no NIC counters in the document
    head, body = table(text, "kernel", 7)
    assert head == ["kernel", "host0", "host1"]
    rows = {r[0]: r[1:] for r in body}
    assert rows["softirq busy %"] == ["25", "96"]
    assert rows["GRO merges/s"] == ["0", "1.23M"]
    assert rows["not validated/s"] == ["-", "812k"]
    assert rows["not validated/s (csum_none)"] == ["-", "812k"]
    assert rows["sw checksum bytes/s"] == ["0", "1.2G"]
    assert rows["not validated"] == ["-", "17"]
    assert rows["frames per skb"] == ["-", "1"]
    labels = [r[0] for r in body]  # the split by reason follows its total
    assert labels.index("not validated/s (csum_none)") == labels.index("not validated/s") + 1
    assert "host0 coverage: -" in text and "host1 coverage: -" in text


def test_generator_run() -> None:
    # 64-byte frames at 10 Gbit/s: 64 + 20 bytes (preamble, SFD, gap) on the
    # wire, 10e9 / (84 * 8) = 14 880 952 frames/s.
    line_rate = 10e9 / (84 * 8)
    got = 14e6
    dut = ovs_host("host0", [100.0], [])
    dut["sink"] = {"pps": got, "gbps": got * 84 * 8 / 1e9, "lost": 880952}
    r = result([dut], generator={"pps": line_rate, "gbps": 10.0})
    text = sim.format_table(r)
    head, body = table(text, "traffic", 2)
    assert head == ["traffic", "pps", "Gbit/s", "lost"]
    assert body == [["generator", "14.9M", "10.00", "-"], ["host0 sink", "14M", "9.41", "880952"]]


@pytest.mark.parametrize("doc", [{}, {"hosts": [{}]}, {"hosts": [{"kernel": {}, "nic": {}}]}])
def test_sparse_documents_do_not_fail(doc: dict[str, Any]) -> None:
    text = sim.format_table(doc)
    assert text.startswith("scenario ?")


def load(kind: str) -> dict[str, dict[str, Any]]:
    docs = {}
    for p in sorted((sim.data_dir() / kind).glob("*.yaml")):
        doc = yaml.safe_load(p.read_text())
        docs[p.stem] = doc
    assert docs, f"no built-in {kind}"
    return docs


def listing(
    capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch, *argv: str, columns: int
) -> str:
    monkeypatch.setenv("COLUMNS", str(columns))
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def flat(text: str) -> str:
    return " ".join(text.split())


def test_scenario_list_one_line_each(
    capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = load("scenarios")
    lines = listing(capsys, monkeypatch, "sim", "--list", columns=1000).splitlines()
    assert len(lines) == len(docs)
    starts = set()
    for line, (name, doc) in zip(lines, sorted(docs.items()), strict=True):
        m = re.fullmatch(rf"{re.escape(name)}( {{2,}})(.*)", line)
        assert m and m[2] == doc["description"], line
        starts.add(m.start(2))
    assert len(starts) == 1  # the descriptions are aligned


def test_scenario_list_wraps_to_the_terminal(
    capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = load("scenarios")
    out = listing(capsys, monkeypatch, "sim", "--list", columns=72)
    assert max(len(line) for line in out.splitlines()) <= 72
    for name, doc in docs.items():
        assert f"{name} {flat(doc['description'])}" in flat(out)
    # Continuation lines start under the descriptions.
    width = max(len(n) for n in docs) + 2
    for line in out.splitlines():
        if line.startswith(" "):
            assert len(line) - len(line.lstrip()) == width, line


def test_sweep_list(capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    docs = load("sweeps")
    out = listing(capsys, monkeypatch, "sweep", "--list", columns=1000)
    for name, doc in docs.items():
        block = out.split(f"{name}  ", 1)[1]
        assert block.lstrip().startswith(doc["description"])
        points = math.prod(len(v) for v in doc["vary"].values())
        for key in doc["vary"]:
            assert f"varies {key}: " in block.split(f"{points} points in all")[0]
