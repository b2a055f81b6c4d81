"""Hostile files, not merely broken ones (docs/security.md): each is run through the real
`offlab` command in a child process, which must refuse it with one `offlab: error:` line and
a non-zero exit, within a time bound (no hang), with its peak memory bounded (the child's
ru_maxrss from wait4), nothing written outside the output folder, and no process left."""

from __future__ import annotations

import os
import signal
import struct
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PEAK_MB = 512
TIMEOUT_S = 60


@dataclass
class Outcome:
    code: int
    stderr: str
    peak_mb: float


# Linux carries a process's peak RSS across execve (the pre-exec memory's high-water mark
# goes into signal->maxrss, fs/exec.c exec_mmap), and subprocess forks with vfork, so a
# child of this (large) pytest process would report at least pytest's own peak. A small
# Python process in between starts offlab and reports its grandchild's ru_maxrss, which
# only carries the small parent's.
PEAK_WRAPPER = """
import os, signal, subprocess, sys
child = subprocess.Popen(sys.argv[2:])
_, status, usage = os.wait4(child.pid, 0)
with open(sys.argv[1], "w") as f:
    f.write(str(usage.ru_maxrss))
if os.WIFSIGNALED(status):
    signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
    os.kill(os.getpid(), os.WTERMSIG(status))
sys.exit(os.WEXITSTATUS(status))
"""


WRAPPED = (sys.executable, "-c", PEAK_WRAPPER)


def offlab(cwd: Path, *argv: str, env: dict[str, str] | None = None) -> Outcome:
    """Runs `python -m offlab.cli argv` in cwd; measures its peak RSS."""
    stamp = time.monotonic_ns()
    err = cwd.parent / f"stderr-{stamp}"
    peak = cwd.parent / f"peak-{stamp}"
    with open(err, "wb") as ferr:
        proc = subprocess.Popen(
            [*WRAPPED, str(peak), sys.executable, "-m", "offlab.cli", *argv],
            cwd=cwd,
            stdout=subprocess.DEVNULL,
            stderr=ferr,
            stdin=subprocess.DEVNULL,
            env={**os.environ, **(env or {})},
            start_new_session=True,
        )
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            pid, status, _ = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                os.killpg(proc.pid, signal.SIGKILL)
                os.wait4(proc.pid, 0)
                pytest.fail(f"offlab {' '.join(argv)}: still running after {TIMEOUT_S} s (hang)")
            time.sleep(0.02)
    proc.returncode = os.waitstatus_to_exitcode(status)
    text = err.read_bytes().decode(errors="replace")
    err.unlink()
    peak_kb = int(peak.read_text())
    peak.unlink()
    return Outcome(proc.returncode, text, peak_kb / 1024)


def refused(o: Outcome, *needles: str) -> None:
    lines = [ln for ln in o.stderr.splitlines() if ln.strip()]
    assert o.code != 0, o.stderr
    assert len(lines) == 1 and lines[0].startswith("offlab: error:"), o.stderr
    assert "internal error" not in o.stderr
    for n in needles:
        assert n in lines[0], (n, lines[0])
    assert o.peak_mb < PEAK_MB, f"peak memory {o.peak_mb:.0f} MB"


def tree(root: Path) -> set[Path]:
    return set(root.rglob("*"))


@pytest.fixture
def box(tmp_path: Path) -> Path:
    """A working directory inside an outer folder that must stay untouched."""
    work = tmp_path / "work"
    work.mkdir()
    return work


# ------------------------------------------------------------------ output confinement


def test_sweep_name_with_dotdot_writes_nothing_outside(box: Path) -> None:
    (box / "evil.yaml").write_text(
        "name: ../../../escaped\nbase: default\nset: {duration_s: 0.02, warmup_s: 0.01}\n"
        "vary: {nic: [connectx6dx]}\n"
    )
    before = tree(box.parent)
    refused(offlab(box, "sweep", "evil.yaml", "-q"), "'name'", "escaped")
    assert tree(box.parent) == before


@pytest.mark.parametrize("name", ["/tmp/abs", "a b;touch pwned", "x\u00ff\u0301", ".hidden"])
def test_sweep_names_outside_the_safe_set(box: Path, name: str) -> None:
    (box / "s.yaml").write_text(f"name: {name!r}\nvary: {{nic: [connectx6dx]}}\n")
    before = tree(box.parent)
    refused(offlab(box, "sweep", "s.yaml", "-q"), "'name'")
    assert tree(box.parent) == before
    assert not (box / "pwned").exists()


def test_symlink_planted_in_a_resumed_sweep_folder(box: Path) -> None:
    outside = box.parent / "outside"
    outside.mkdir()
    out = box / "out"
    out.mkdir()
    (out / "points").symlink_to(outside)
    (box / "s.yaml").write_text(
        "name: planted\nbase: default\nset: {duration_s: 0.02, warmup_s: 0.01}\n"
        "vary: {nic: [connectx6dx]}\n"
    )
    refused(offlab(box, "sweep", "s.yaml", "--out", "out", "-q"), "outside the output folder")
    assert list(outside.iterdir()) == []


def test_verify_profile_name_cannot_name_a_path(box: Path) -> None:
    prof = (REPO / "models" / "profiles" / "e810.yaml").read_text()
    lines = ["name: ../../owned" if ln.startswith("name:") else ln for ln in prof.splitlines()]
    (box / "p.yaml").write_text("\n".join(lines) + "\n")
    before = tree(box.parent)
    refused(offlab(box, "verify", "--profile", "p.yaml", "--no-kernel"), "name")
    assert tree(box.parent) == before


@pytest.mark.parametrize("escape", ["\\N", "\\_"])
@pytest.mark.parametrize("cmd", [["profiles"], ["verify", "--no-kernel", "--profile"]])
@pytest.mark.parametrize("field", ["name", "description"])
def test_profile_text_yaml_cpp_escapes_as_invalid_utf8(
    box: Path, cmd: list[str], field: str, escape: str
) -> None:
    # YAML 1.2 (section 5.7) defines \N as U+0085 and \_ as U+00A0; yaml-cpp 0.7 writes them
    # as the single bytes 0x85 and 0xa0, which are not UTF-8 and cannot become Python text.
    prof = (REPO / "models" / "profiles" / "e810.yaml").read_text()
    lines = [
        f'{field}: "e810{escape}x"' if ln.startswith(f"{field}:") else ln
        for ln in prof.splitlines()
    ]
    # Named as the profile is, so only the text can be wrong.
    (box / "e810.yaml").write_text("\n".join(lines) + "\n")
    refused(offlab(box, *cmd, "e810.yaml"), "not valid UTF-8")


def test_profile_key_that_is_not_utf8_is_named_with_an_escape(box: Path) -> None:
    # An unknown key's text is quoted in the error; its 0x85 byte arrives as an escape.
    prof = (REPO / "models" / "profiles" / "e810.yaml").read_text()
    (box / "e810.yaml").write_text(prof + '"odd\\Nkey": 1\n')
    refused(offlab(box, "profiles", "e810.yaml"), "unknown key", "odd\\x85key")


def test_sweep_base_outside_its_folder(box: Path) -> None:
    (box / "s.yaml").write_text("name: s\nbase: ../../etc/x.yaml\nvary: {nic: [connectx6dx]}\n")
    refused(offlab(box, "sweep", "s.yaml", "-q"), "'base'")


# ------------------------------------------------------------------ size-field bombs


def _shb(block_len: int) -> bytes:
    body = struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1)
    return struct.pack("<II", 0x0A0D0D0A, block_len) + body


def test_pcapng_block_claiming_4_gib(box: Path) -> None:
    data = _shb(28) + struct.pack("<I", 28)
    data += struct.pack("<II", 6, 0xFFFFFFF0) + b"\0" * 1000
    (box / "bomb.pcapng").write_bytes(data)
    for argv in (
        ["dissect", "--pcap", "bomb.pcapng"],
        ["sim", "--replay", "bomb.pcapng"],
        ["replay", "tx", "bomb.pcapng"],
    ):
        refused(offlab(box, *argv))
    assert sorted(p.name for p in box.iterdir()) == ["bomb.pcapng"]


def test_pcap_record_claiming_4_gib(box: Path) -> None:
    hdr = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 1)
    rec = struct.pack("<IIII", 0, 0, 0xFFFFFFF0, 0xFFFFFFF0) + b"\0" * 500
    (box / "bomb.pcap").write_bytes(hdr + rec)
    refused(offlab(box, "dissect", "--pcap", "bomb.pcap"))


def test_oversize_file_names_the_limit_and_the_limit_can_be_raised(box: Path) -> None:
    trace = REPO / "traces" / "tcp-partial.pcapng"
    (box / "t.pcapng").write_bytes(trace.read_bytes())
    small = {"OFFLAB_MAX_INPUT_BYTES": "100"}
    refused(offlab(box, "dissect", "--pcap", "t.pcapng", env=small), "OFFLAB_MAX_INPUT_BYTES")
    assert offlab(box, "dissect", "--pcap", "t.pcapng").code == 0
    refused(offlab(box, "dissect", "--pcap", "t.pcapng", env={"OFFLAB_MAX_INPUT_BYTES": "x"}))


# ------------------------------------------------------------------ YAML bombs

LAUGHS = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]\n" for i in range(9)
)
DEEP = "a: " + "[" * 50_000 + "]" * 50_000 + "\n"
WIDE = "vary:\n" + "".join(f"  x{i}: [{', '.join(map(str, range(10)))}]\n" for i in range(7))


@pytest.mark.parametrize(
    ("cmd", "name"),
    [
        (["sim"], "s.yaml"),
        (["sweep"], "w.yaml"),
        (["profiles"], "p.yaml"),
        (["verify", "--no-kernel", "--profile"], "p.yaml"),
        (["ovs-diff"], "c.yaml"),
    ],
)
@pytest.mark.parametrize(("bomb", "needle"), [(LAUGHS, "aliases"), (DEEP, "nested")])
def test_yaml_bombs(box: Path, cmd: list[str], name: str, bomb: str, needle: str) -> None:
    (box / name).write_text(bomb)
    refused(offlab(box, *cmd, name), needle)
    assert sorted(p.name for p in box.iterdir()) == [name]


def test_sweep_point_count_ceiling(box: Path) -> None:
    (box / "w.yaml").write_text(WIDE)  # 10**7 points
    refused(offlab(box, "sweep", "w.yaml", "-q"), "OFFLAB_MAX_SWEEP_POINTS")


def test_scenario_duration_at_line_rate_ceiling(box: Path) -> None:
    (box / "s.yaml").write_text(
        "nic: connectx6dx\ntopology: loopback\nhost: {kind: kernel}\n"
        "generator: {frame_size: 64}\nduration_s: 3600\nwarmup_s: 1\n"
    )
    refused(offlab(box, "sim", "s.yaml", "-q"), "duration_s", "OFFLAB_MAX_SIM_FRAMES")
    assert sorted(p.name for p in box.iterdir()) == ["s.yaml"]


# ------------------------------------------------------------------ non-regular files


@pytest.mark.parametrize(
    "argv",
    [
        ["dissect", "--pcap", "{}"],
        ["sim", "--replay", "{}"],
        ["replay", "tx", "{}"],
        ["sim", "{}"],
        ["sweep", "{}"],
        ["profiles", "{}"],
        ["verify", "--no-kernel", "--profile", "{}"],
        ["ovs-diff", "{}"],
    ],
)
@pytest.mark.parametrize("kind", ["fifo", "chardev"])
def test_fifos_and_devices_are_refused_without_blocking(
    box: Path, argv: list[str], kind: str
) -> None:
    yaml_cmd = argv[0] in ("sim", "sweep", "profiles", "verify", "ovs-diff")
    yaml_cmd = yaml_cmd and "--replay" not in argv
    ext = ".yaml" if yaml_cmd else ".pcapng"
    path = box / f"in{ext}"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    refused(offlab(box, *[a.replace("{}", path.name) for a in argv]), "not a regular file")


# ------------------------------------------------------------------ names with metacharacters


def test_file_names_with_shell_metacharacters_are_only_names(box: Path) -> None:
    name = "x;touch pwned;$(touch pwned2).pcapng"
    (box / name).write_bytes(b"garbage")
    refused(offlab(box, "dissect", "--pcap", name))
    refused(offlab(box, "replay", "tx", name))
    assert not (box / "pwned").exists() and not (box / "pwned2").exists()


def test_no_process_left_behind(box: Path) -> None:
    (box / "s.yaml").write_text("nic: connectx6dx\nduration_s: nonsense\n")
    refused(offlab(box, "sim", "s.yaml", "-q"))
    left = subprocess.run(["pgrep", "-f", str(box)], capture_output=True, text=True).stdout
    assert left.strip() == ""


def test_dissect_of_random_bytes_is_one_line(box: Path) -> None:
    """Issue: `dissect --pcap` on random bytes ended in a traceback from dpkt's pcapng
    fallback ('invalid pcapng header: not a SHB')."""
    import random

    rng = random.Random(20)
    for i in range(3):
        name = f"random{i}.pcap"
        (box / name).write_bytes(bytes(rng.randrange(256) for _ in range(4096)))
        refused(offlab(box, "dissect", "--pcap", name), name, "not a valid pcap or pcapng")


# ------------------------------------------------------------------ the root-run lab's names


@pytest.mark.parametrize(
    "name",
    ["", ".", "..", "a/b", "a:b", "a b", "-rf", "sixteen-chars-xx", "x\n", "tap\u00e9", "$(id)"],
)
def test_lab_refuses_interface_names_the_kernel_would_not_take(name: str) -> None:
    # dev_valid_name (net/core/dev.c): 1..15 bytes, not "." or "..", no '/', ':' or space.
    from offlab.lab import nsutil

    with pytest.raises(nsutil.LabError):
        nsutil.valid_ifname(name)


@pytest.mark.parametrize("name", ["p0", "vxlan4-a", "br0", "fifteen-chars-x"])
def test_lab_takes_ordinary_interface_names(name: str) -> None:
    from offlab.lab import nsutil

    assert nsutil.valid_ifname(name) == name


@pytest.mark.parametrize(
    "name", ["default", "olab-", "olab-1-2-a/b", "olab-1-2-..", "x-olab-1-2-a"]
)
def test_lab_touches_only_namespaces_of_its_own_form(name: str) -> None:
    from offlab.lab import nsutil

    with pytest.raises(nsutil.LabError):
        nsutil.Netns(name)
    assert nsutil.owned_netns("olab-12-3-a") == "olab-12-3-a"


def test_lab_ip_link_names_are_checked_before_ip_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    from offlab.lab import nsutil

    ran: list[list[str]] = []
    monkeypatch.setattr(nsutil, "run", lambda argv, check=True: ran.append(argv))
    ns = nsutil.Netns("olab-1-0-a")
    with pytest.raises(nsutil.LabError):
        ns.ip("link", "add", "name", "a;reboot", "type", "veth", "peer", "name", "b")
    assert ran == []


# ------------------------------------------------------------------ the ovs-diff daemons


def _daemons(pid: int) -> dict[str, int]:
    """The children of `pid` that are OVS daemons, by name."""
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    found = {}
    for child in map(int, out.split()):
        try:
            name = Path(f"/proc/{child}/comm").read_text().strip()
        except OSError:
            continue  # a short-lived helper (ovsdb-tool, ovs-vsctl) already gone
        if name in ("ovsdb-server", "ovs-vswitchd"):
            found[name] = child
    return found


@pytest.mark.skipif(
    not Path("/usr/sbin/ovs-vswitchd").exists(), reason="no ovs-vswitchd (openvswitch-switch)"
)
def test_ovs_diff_sigterm_leaves_no_daemon(box: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "offlab.cli", "ovs-diff"],
        cwd=box,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + TIMEOUT_S
        daemons: dict[str, int] = {}
        while len(daemons) < 2 and time.monotonic() < deadline and proc.poll() is None:
            daemons = _daemons(proc.pid)
            time.sleep(0.05)
        assert len(daemons) == 2, "the harness never started ovsdb-server and ovs-vswitchd"
        cmdline = Path(f"/proc/{daemons['ovsdb-server']}/cmdline").read_bytes().split(b"\0")
        remote = next(a for a in cmdline if a.startswith(b"--remote=punix:"))
        rundir = Path(os.fsdecode(remote[len(b"--remote=punix:") :])).parent
        assert rundir.is_dir()
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=TIMEOUT_S)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode != 0
    assert "Traceback" not in err
    for name, pid in daemons.items():
        assert not Path(f"/proc/{pid}").exists(), f"{name} ({pid}) survived SIGTERM"
    assert not rundir.exists(), f"{rundir} left behind"


# ------------------------------------------------------------------ counts


def test_record_count_limit(box: Path) -> None:
    trace = REPO / "traces" / "tcp-partial.pcapng"  # 2 packet records
    (box / "t.pcapng").write_bytes(trace.read_bytes())
    few = {"OFFLAB_MAX_FRAMES": "1"}
    refused(offlab(box, "dissect", "--pcap", "t.pcapng", env=few), "OFFLAB_MAX_FRAMES")
    refused(offlab(box, "sim", "--replay", "t.pcapng", env=few), "OFFLAB_MAX_FRAMES")


def test_yaml_node_count_limit(box: Path) -> None:
    scenario = REPO / "sim" / "scenarios" / "default.yaml"  # about 20 nodes
    (box / "s.yaml").write_bytes(scenario.read_bytes())
    few = {"OFFLAB_MAX_YAML_NODES": "5"}
    refused(offlab(box, "sim", "s.yaml", "-q", env=few), "OFFLAB_MAX_YAML_NODES")
    assert sorted(p.name for p in box.iterdir()) == ["s.yaml"]
