"""The differential harness against the installed ovs-vswitchd (Debian's
openvswitch-switch): OVS's own testsuite cases and generated ones must show no
unexplained difference; bad input gives one line and leaves nothing behind.

Skips with one line where ovs-vswitchd is not installed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from ovsdiff_gen import cases

from offlab.ovsdiff import (
    OvsInstall,
    OvsSandbox,
    OvsSandboxError,
    builtin_cases,
    compare,
    diff_cases,
    table,
)
from offlab.ovsdiff import model as offlab_side
from offlab.ovsdiff.real import RealOvs

try:
    INSTALL = OvsInstall.find()
except OvsSandboxError as e:
    INSTALL = None
    pytestmark = pytest.mark.skip(reason=f"no Open vSwitch here: {e}")

GENERATED = int(os.environ.get("OFFLAB_OVS_DIFF_EXAMPLES", "500"))


def _ours() -> set[int]:
    """Pids of ovs daemons running under a sandbox directory of ours."""
    out = set()
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if "offlab-ovs-" in cmd and ("ovs-vswitchd" in cmd or "ovsdb-server" in cmd):
            out.add(int(d.name))
    return out


@pytest.fixture(scope="module")
def ovs():
    assert INSTALL is not None
    with OvsSandbox(INSTALL) as sb:
        yield RealOvs(sb)


def test_testsuite_cases_have_no_unexplained_difference(ovs):
    verdicts = diff_cases(builtin_cases(), ovs)
    assert len(verdicts) >= 60
    bad = [v for v in verdicts if v.unexplained]
    assert not bad, table(bad)
    # Expected differences are run, not skipped: each one shows its difference.
    assert any(v.status == "expected difference" for v in verdicts)
    # The tunnel cases ran with their underlay, and frames left by it.
    tunnels = [v for v in verdicts if v.case.tunnels]
    assert len(tunnels) >= 32
    assert sum(v.status == "agree" for v in tunnels) >= 30


@settings(
    max_examples=GENERATED,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(case=cases())
def test_generated_cases_agree(ovs, case):
    v = compare(case, ovs.run(case), offlab_side.run(case), ovs.version)
    assert not v.differences, table([v])


def test_harness_sees_a_difference():
    """A frame OVS sends and offlab is told to drop must come out as DIFFERENT
    (the comparison itself can fail)."""
    from offlab.ovsdiff.spec import case_from_dict

    frame = "0a0000000002" "0a0000000001" "0800" + "45000014000000004000" + "0000" + "0a000001" * 2
    raw = {"ports": {"p1": {}, "p2": {}}, "flows": ["in_port=p1,actions=p2"],
           "frames": [{"port": "p1", "hex": frame}]}  # fmt: skip
    case = case_from_dict(raw, "t")
    mine = offlab_side.run(case)
    mine.frames[0].sent["p2"] = []
    with OvsSandbox(INSTALL) as sb:
        theirs = RealOvs(sb).run(case)
    v = compare(case, theirs, mine, INSTALL.version_tuple())
    assert v.status == "DIFFERENT"
    assert v.differences[0].what == "dropped"


def _cli(*args: str, tmp: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "offlab.cli", "ovs-diff", *args],
        capture_output=True, text=True, timeout=120, cwd=tmp, check=False,
    )  # fmt: skip


def _write(tmp: Path, body: str) -> str:
    p = tmp / "case.yaml"
    p.write_text(textwrap.dedent(body))
    return str(p)


GOOD_TCP = (
    "0a8f394fe0738abf7e2f0584080045000068000000000006433cc0a87b02c0a87b01"
    "d47814510000000000000000501000006b720000" + bytes(range(64)).hex()
)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (f"""
         ports: {{p1: {{}}, p2: {{}}}}
         flows: ["in_port=p1,actions=output:p2,bogus_action:1"]
         frames: [{{port: p1, hex: "{GOOD_TCP}"}}]
         """, "offlab refuses flow"),
        (f"""
         ports: {{p1: {{}}, p2: {{}}}}
         flows: ["in_port=p1,actions=set_field:5->tcp_dst,p2"]
         frames: [{{port: p1, hex: "{GOOD_TCP}"}}]
         """, "OVS rejects flow"),
        (f"""
         ports: {{br0: {{}}, p2: {{}}}}
         flows: ["actions=p2"]
         frames: [{{port: br0, hex: "{GOOD_TCP}"}}]
         """, "clashes with the harness's bridge"),
        (f"""
         ports: {{p1: {{ofport: 2}}, p2: {{ofport: 2}}}}
         flows: ["actions=p2"]
         frames: [{{port: p1, hex: "{GOOD_TCP}"}}]
         """, "ofport 2 already in use"),
        (f"""
         ports: {{p1: {{}}}}
         tunnels: {{t1: {{type: vxlan, options: {{remote_ip: 1.1.2.92}}}}}}
         flows: ["actions=t1"]
         frames: [{{port: p1, hex: "{GOOD_TCP}"}}]
         """, "tunnel ports need an 'underlay'"),
        (f"""
         ports: {{p1: {{}}}}
         underlay: {{addresses: [1.1.2.88/24], routes: [1.1.2.92/24],
                    neighbors: {{1.1.2.92: "f8:bc:12:44:34:b6"}}}}
         tunnels: {{t1: {{type: vxlan, options: {{remote_ip: 1.1.2.92, tos: inherit}}}}}}
         flows: ["actions=t1"]
         frames: [{{port: p1, hex: "{GOOD_TCP}"}}]
         """, "option 'tos' is not modelled"),
        (f"""
         ports: {{p1: {{}}}}
         underlay: {{addresses: [1.1.2.88/24], routes: [1.1.2.92/24]}}
         tunnels: {{t1: {{type: geneve, options: {{remote_ip: 1.1.2.92}}}}}}
         flows: ["actions=t1"]
         frames: [{{port: p1, hex: "{GOOD_TCP}"}}]
         """, "no neighbor entry for 1.1.2.92"),
        (f"""
         ports: {{p1: {{}}}}
         underlay: {{addresses: [1.1.2.88/24], routes: [1.1.2.92/24],
                    neighbors: {{1.1.2.92: "f8:bc:12:44:34:b6"}}}}
         tunnels: {{t1: {{type: gre, options: {{remote_ip: 1.1.2.92}}}}}}
         flows: ["actions=t1,NORMAL"]
         frames: [{{port: p1, hex: "{GOOD_TCP}"}}]
         """, "NORMAL, FLOOD and ALL are not modelled with an underlay"),
        (f"""
         ports: {{p1: {{}}}}
         underlay: {{addresses: [1.1.2.88/24], routes: [1.1.2.92/24],
                    neighbors: {{1.1.2.92: "f8:bc:12:44:34:b6"}}}}
         tunnels: {{t1: {{type: vxlan, options: {{remote_ip: 1.1.2.92}}}}}}
         flows: ["in_port=t1,actions=p1"]
         frames: [{{port: p0, hex: "{GOOD_TCP}"}}]
         """, "must be addressed to the underlay bridge"),
        (f"""
         ports: {{p1: {{}}}}
         underlay: {{port: br-ul, addresses: [1.1.2.88/24]}}
         flows: ["actions=p1"]
         frames: [{{port: p1, hex: "{GOOD_TCP}"}}]
         """, "clashes with the harness's bridge"),
    ],
)  # fmt: skip
def test_bad_input_is_one_line_and_leaves_nothing(tmp_path, body, message):
    before = _ours()
    r = _cli(_write(tmp_path, body), tmp=tmp_path)
    assert r.returncode == 2, r.stdout + r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("offlab: error: "), r.stderr
    assert message in lines[0]
    assert _ours() <= before
    assert not list(Path("/tmp").glob("offlab-ovs-*")) or _ours()


def test_missing_ovs_is_one_line(tmp_path):
    path = _write(tmp_path, f"""
        ports: {{p1: {{}}, p2: {{}}}}
        flows: ["actions=p2"]
        frames: [{{port: p1, hex: "{GOOD_TCP}"}}]
        """)  # fmt: skip
    empty = tmp_path / "no-ovs"
    empty.mkdir()
    r = _cli(path, "--ovs-bin", str(empty), tmp=tmp_path)
    assert r.returncode == 2
    assert r.stderr.strip() == f"offlab: error: ovsdb-tool not found in {empty}"


def test_cli_reports_and_cleans_up(tmp_path):
    path = _write(tmp_path, f"""
        name: forward by bare port name
        ports: {{p1: {{}}, p2: {{}}}}
        flows: ["in_port=p1,actions=mod_tp_dst:2222,p2"]
        frames: [{{port: p1, hex: "{GOOD_TCP}"}}]
        """)  # fmt: skip
    before = _ours()
    r = _cli(path, "--json", tmp=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    import json

    out = json.loads(r.stdout)
    assert out["cases"][0]["status"] == "agree"
    assert out["unexplained"] == 0
    assert _ours() <= before


def test_underlay_state_does_not_outlive_its_case(ovs):
    """Routes and neighbour entries are global in ovs-vswitchd: a case without
    them must not find the last case's (the push would otherwise succeed)."""
    from offlab.ovsdiff.spec import case_from_dict

    tunnel = {"t1": {"type": "vxlan", "ofport": 2, "options": {"remote_ip": "1.1.2.92"}}}
    ul = {"addresses": ["1.1.2.88/24"], "routes": ["1.1.2.92/24"],
          "neighbors": {"1.1.2.92": "f8:bc:12:44:34:b6"}}  # fmt: skip
    first = case_from_dict({"ports": {"p1": {}}, "underlay": ul, "tunnels": tunnel,
                            "flows": ["actions=t1"], "frames": [{"port": "p1", "hex": GOOD_TCP}]},
                           "first")  # fmt: skip
    sent = ovs.run(first).frames[0].sent
    assert len(sent["p0"]) == 1, sent
    assert ovs.sb.appctl("tnl/neigh/show").count("1.1.2.92") == 1
    plain = case_from_dict({"ports": {"p1": {}, "p2": {}}, "flows": ["actions=p2"],
                            "frames": [{"port": "p1", "hex": GOOD_TCP}]}, "plain")  # fmt: skip
    ovs.run(plain)
    assert "1.1.2.92" not in ovs.sb.appctl("tnl/neigh/show")
    assert "1.1.2.0/24" not in ovs.sb.appctl("ovs/route/show")


def test_sandbox_is_removed_on_failure():
    with pytest.raises(RuntimeError), OvsSandbox(INSTALL) as sb:
        d = sb.dir
        pids = [p.pid for p in sb._procs]
        raise RuntimeError("boom")
    assert not os.path.exists(d)
    for pid in pids:
        assert not Path(f"/proc/{pid}").exists()
