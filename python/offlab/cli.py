"""The ``offlab`` command line."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from . import _core
from .safeio import load_profile_file
from .trace import TraceError


def _cmd_demo(args: argparse.Namespace) -> int:
    from . import demo

    return demo.main(args)


def _cmd_profiles(args: argparse.Namespace) -> int:
    if args.name is None:
        print(f"{'name':<16} {'driver':<10} {'Gbit/s':>6}  tx capabilities")
        for name in _core.builtin_profile_names():
            p = _core.builtin_profile(name)
            caps = _core.caps.to_string(p.tx_caps)
            print(f"{name:<16} {p.driver:<10} {p.link_gbps:>6g}  {caps}")
        return 0
    p = (
        load_profile_file(args.name)
        if args.name.endswith((".yaml", ".yml"))
        else _core.builtin_profile(args.name)
    )
    print(f"{p.name}: {p.description} (driver {p.driver}, {p.link_gbps:g} Gbit/s)")
    print(f"  tx: {_core.caps.to_string(p.tx_caps)}")
    for kind in ("plain", "vxlan", "geneve", "gre"):
        rx = getattr(p, f"rx_{kind}")
        checks = [n for n in ("outer_ip", "outer_l4", "inner_ip", "inner_l4") if getattr(rx, n)]
        print(f"  rx {kind:<7} validates: {', '.join(checks) or 'nothing'}")
    for key, src in sorted(p.sources.items()):
        print(f"  source {key}: {src}")
    for note in p.notes:
        print(f"  note: {note}")
    return 0


def _cmd_dissect(args: argparse.Namespace) -> int:
    if args.pcap:
        from . import trace

        frames = trace.read_frames(args.pcap)
    elif args.hex:
        try:
            frames = [bytes.fromhex("".join(args.hex))]
        except ValueError as e:
            raise _core.OfflabError(f"not a hex frame: {e}") from e
    else:
        raise _core.OfflabError("give a hex frame or --pcap FILE")
    for i, frame in enumerate(frames):
        if len(frames) > 1:
            print(f"frame {i + 1}: {len(frame)} bytes")
        print(_core.dissect(frame))
    return 0


def _cmd_faults(args: argparse.Namespace) -> int:
    for name in _core.fault_names():
        print(f"{name:<36} {_core.fault_project(name):<4} {_core.fault_commit(name)}")
    return 0


def _cmd_verify(args: argparse.Namespace) -> int:
    from offlab_verify.cli import run

    return run(args)


def _cmd_sim(args: argparse.Namespace) -> int:
    from . import sim

    if args.list:
        print(sim.format_listing(sim.scenario_descriptions(), sim.listing_width()))
        return 0
    if args.replay:
        if args.scenario is not None:
            raise _core.OfflabError("give a scenario or --replay TRACE, not both")
        if args.pcap or args.duration is not None or args.mode is not None:
            raise _core.OfflabError("--pcap, --duration and --mode are for scenarios, not --replay")
        stem = os.path.splitext(os.path.basename(args.replay))[0]
        out = args.out or os.path.join("offlab-out", "replay", stem)
        r = sim.replay(
            args.replay, out, nic=args.nic, rx_nic=args.rx_nic, inject=args.inject, gro=args.gro
        )
        print(r["table"], end="")
        print(f"results: {os.path.join(out, 'replay.json')}")
        print(f"pcap: {os.path.join(out, 'replay.pcapng')}")
        return 0
    if args.nic or args.rx_nic or args.inject or args.gro:
        raise _core.OfflabError("--nic, --rx-nic, --inject and --gro go with --replay TRACE")
    args.scenario = args.scenario or "default"
    bar = None if args.quiet else sim.progress_bar(args.scenario)
    out = args.out or os.path.join("offlab-out", "sim", os.path.basename(args.scenario))
    r = sim.run(
        args.scenario, out, pcap=args.pcap, duration=args.duration, mode=args.mode, progress=bar
    )
    print(sim.format_table(r))
    print(f"results: {os.path.join(out, 'results.json')}")
    for p in r["pcaps"]:
        print(f"pcap: {p}")
    return 0


def _value(v: object) -> str:
    return ("on" if v else "off") if isinstance(v, bool) else str(v)


def _sweep_descriptions() -> list[tuple[str, list[str]]]:
    """Each built-in sweep: its description, then what it varies and how many points."""
    from . import sweep

    out = []
    for name in sweep.builtin_sweeps():
        try:
            s = sweep.load(name)
        except _core.OfflabError as e:
            out.append((name, [f"(cannot load: {e})"]))
            continue
        varies = [f"varies {k}: {', '.join(map(_value, vs))}" for k, vs in s.vary.items()]
        points = f"{len(s.points)} point{'s' if len(s.points) != 1 else ''} in all"
        out.append((name, [s.description or "(no description)", *varies, points]))
    return out


def _cmd_sweep(args: argparse.Namespace) -> int:
    from . import sim, sweep

    if args.list:
        print(sim.format_listing(_sweep_descriptions(), sim.listing_width()))
        return 0
    if args.sweep is None:
        raise _core.OfflabError("give a sweep file or built-in sweep name (--list shows them)")
    spec = sweep.load(args.sweep)
    out = args.out or os.path.join("offlab-out", "sweep", spec.name)

    def bar(done: int, total: int) -> None:
        if not args.quiet:
            sim.progress_bar(f"sweep {spec.name} {done}/{total}")(done / total)

    def log(msg: str) -> None:
        print(msg, file=sys.stderr)

    table = sweep.run(
        args.sweep,
        out,
        jobs=args.jobs,
        scheduler=args.scheduler,
        connect_timeout=args.connect_timeout,
        progress=bar,
        log=log,
    )
    print(sweep.summary(table, list(spec.vary)))
    failed = int((table["status"] != "ok").sum())
    print(f"results: {os.path.join(out, 'results.csv')} (and .parquet)")
    print(f"plots: {os.path.join(out, 'goodput.png')}, {os.path.join(out, 'cpu.png')} (and .svg)")
    if failed:
        print(f"{failed} of {len(table)} points failed; run again to retry them", file=sys.stderr)
    return 1 if failed else 0


def _cmd_replay(args: argparse.Namespace) -> int:
    from . import hw_replay

    if args.mode == "kernel-tap":
        return _cmd_replay_kernel_tap(args)
    if args.inject or args.no_reverse:
        raise _core.OfflabError("--inject and --no-reverse go with replay kernel-tap")
    return hw_replay.run(
        args.mode,
        args.trace,
        args.eal,
        port=args.port,
        profile=args.profile,
        tx_profile=args.tx_profile,
        loop=args.loop,
        timeout_ms=args.timeout,
        verbose=args.verbose,
    )


def _cmd_replay_kernel_tap(args: argparse.Namespace) -> int:
    from . import kernel_tap
    from .lab.nsutil import LabError, LabInterrupted

    given = [
        f
        for f, v in (
            ("--port", args.port),
            ("--tx-profile", args.tx_profile),
            ("--loop", args.loop),
            ("--timeout", args.timeout),
        )
        if v is not None
    ]
    if args.eal or given:
        what = ", ".join(given + (["EAL arguments"] if args.eal else []))
        raise _core.OfflabError(f"replay kernel-tap uses no DPDK port: {what} not allowed")
    try:
        return kernel_tap.run_cli([args.trace], args.profile, args.inject, not args.no_reverse)
    except LabError as e:
        raise _core.OfflabError(f"kernel-tap replay: {e}") from e
    except LabInterrupted as e:
        print(f"offlab: error: interrupted ({e}); namespaces removed", file=sys.stderr)
        return 143


def _cmd_lab(args: argparse.Namespace) -> int:
    from .lab import main as lab

    try:
        return lab.run(args)
    except lab.LabUsageError as e:
        raise _core.OfflabError(str(e)) from e
    except lab.LabInterrupted as e:
        print(f"offlab: error: interrupted ({e}); lab namespaces removed", file=sys.stderr)
        return 143


def _cmd_ovs_diff(args: argparse.Namespace) -> int:
    from .ovsdiff import run as ovsdiff

    try:
        return ovsdiff.main(args)
    except ovsdiff.OvsDiffError as e:
        raise _core.OfflabError(str(e)) from e


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="offlab", description="Checksum-offload semantics of an OVS-like datapath."
    )
    sub = p.add_subparsers(dest="command", required=True)
    d = sub.add_parser("demo", help="run the built-in default job")
    d.add_argument("-v", "--verbose", action="store_true", help="print every frame in hex")
    d.add_argument("--out", help="report folder (default offlab-out/demo)")
    d.set_defaults(func=_cmd_demo)
    pr = sub.add_parser("profiles", help="list NIC profiles, or show one (name or .yaml file)")
    pr.add_argument("name", nargs="?")
    pr.set_defaults(func=_cmd_profiles)
    ds = sub.add_parser("dissect", help="decode a frame and check every checksum")
    ds.add_argument("hex", nargs="*", help="the frame in hex")
    ds.add_argument("--pcap", help="a pcap or pcapng file")
    ds.set_defaults(func=_cmd_dissect)
    v = sub.add_parser("verify", help="prove the checksum-offload properties for every NIC profile")
    try:
        from offlab_verify.cli import add_arguments

        add_arguments(v)
    except ImportError:
        pass
    v.set_defaults(func=_cmd_verify)
    sm = sub.add_parser("sim", help="simulate a scenario (built-in name or .yaml file)")
    sm.add_argument("scenario", nargs="?", help="built-in name or .yaml file (default: default)")
    sm.add_argument("--out", help="output folder (default offlab-out/sim/SCENARIO)")
    sm.add_argument("--pcap", action="store_true", help="write the NICs' frames as pcapng")
    sm.add_argument("--duration", type=float, help="simulated seconds (overrides the file)")
    sm.add_argument("--mode", choices=["train", "per-frame"], help="event granularity")
    sm.add_argument("--list", action="store_true", help="list the built-in scenarios")
    sm.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    sm.add_argument(
        "--replay",
        metavar="TRACE",
        help="replay a trace (pcapng, e.g. a verifier counterexample) through a simulated NIC "
        "and cable to a receiving NIC, instead of running a scenario",
    )
    sm.add_argument("--nic", help="replay: sending NIC profile (default: the trace's)")
    sm.add_argument("--rx-nic", help="replay: receiving NIC profile (default: --nic)")
    sm.add_argument(
        "--inject", action="append", default=[], help="replay: turn on a seeded bug (repeatable)"
    )
    sm.add_argument("--gro", action="store_true", help="replay: the receiver coalesces")
    sm.set_defaults(func=_cmd_sim)
    sw = sub.add_parser(
        "sweep",
        help="run the cartesian product of scenario parameters (local pool or Dask)",
        description="Runs every point of a sweep file through the simulator; finished points "
        "are kept in OUT/points and reused by the next run (docs/sweeps.md).",
    )
    sw.add_argument("sweep", nargs="?", help="a sweep file or built-in sweep name")
    sw.add_argument("--out", help="output folder (default offlab-out/sweep/NAME)")
    sw.add_argument("--jobs", type=int, help="local processes at once (default: one per core)")
    sw.add_argument("--scheduler", help="run on a Dask cluster: tcp://HOST:PORT")
    sw.add_argument(
        "--connect-timeout", type=float, default=10.0, help="seconds to reach the scheduler"
    )
    sw.add_argument("--list", action="store_true", help="list the built-in sweeps")
    sw.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    sw.set_defaults(func=_cmd_sweep)
    rp = sub.add_parser(
        "replay",
        help="replay a trace onto a DPDK port (tx), check what a port receives (check), or "
        "replay it through the kernel TAP device with virtio-net headers (kernel-tap)",
        description="Runs hw-replay. DPDK EAL arguments follow '--', e.g. "
        "offlab replay tx traces/tcp-partial.pcapng -- --no-huge -m 512 --no-pci "
        "--no-shconf --vdev net_pcap0,tx_pcap=out.pcap (docs/hw-replay.md). "
        "kernel-tap (root, /dev/net/tun) writes the trace with virtio-net headers to a "
        "kernel TAP device bridged to a veth, compares what the veth peer receives and "
        "what reads of the TAP return with offlab's predictions, and removes everything.",
    )
    rp.add_argument("mode", choices=["tx", "check", "kernel-tap"])
    rp.add_argument("trace", help="an offlab trace (docs/trace-format.md)")
    rp.add_argument("--port", help="DPDK port number or device name (default 0)")
    rp.add_argument(
        "--profile",
        help="check: NIC profile of the receiving port (default pcap); "
        "kernel-tap: the tap port's profile (default tap)",
    )
    rp.add_argument(
        "--tx-profile", help="check: NIC profile of the sending port (default: as --profile)"
    )
    rp.add_argument("--loop", type=int, help="tx: send the trace this many times")
    rp.add_argument("--timeout", type=int, help="check: stop after this many ms without a frame")
    rp.add_argument("-v", "--verbose", action="store_true", help="print the EAL log")
    rp.add_argument(
        "--inject",
        action="append",
        default=[],
        help="kernel-tap: a seeded bug in the headers offlab writes (repeatable; offlab faults)",
    )
    rp.add_argument(
        "--no-reverse", action="store_true", help="kernel-tap: skip sending the frames back"
    )
    rp.set_defaults(func=_cmd_replay, eal=[])
    lb = sub.add_parser(
        "lab",
        help="check the kernel model against the running kernel in network namespaces (root)",
        description="Builds veth/bridge/VXLAN/TAP topologies in throw-away network namespaces, "
        "sends exact frames, observes captures and counters, and compares each with the kernel "
        "model's prediction (docs/kernel-lab.md). Exits 1 on any disagreement.",
    )
    from .lab.main import add_arguments as _lab_arguments

    _lab_arguments(lb)
    lb.set_defaults(func=_cmd_lab)
    od = sub.add_parser(
        "ovs-diff",
        help="compare offlab with a real ovs-vswitchd on the same bridge and frames",
        description="Runs each case (bridge, flows, frames) through a private ovs-vswitchd "
        "with the dummy datapath and through offlab's Pipeline, and compares every frame "
        "sent, drops and coverage counters (docs/ovs-diff.md). Exits 1 on any unexplained "
        "difference.",
    )
    from .ovsdiff.run import add_arguments as _ovs_diff_arguments

    _ovs_diff_arguments(od)
    od.set_defaults(func=_cmd_ovs_diff)
    f = sub.add_parser("faults", help="list the seeded historical bugs (OVS, DPDK)")
    f.set_defaults(func=_cmd_faults)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    eal: list[str] = []
    if argv[:1] == ["replay"] and "--" in argv:
        # Everything after '--' belongs to DPDK's EAL.
        at = argv.index("--")
        argv, eal = argv[:at], argv[at + 1 :]
    args = build_parser().parse_args(argv)
    if eal:
        args.eal = eal
    try:
        return int(args.func(args))
    except BrokenPipeError:
        # `offlab ... | head`: the reader left; say nothing more (and keep
        # Python from complaining when it flushes stdout at exit).
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (_core.OfflabError, OSError, TraceError) as e:
        print(f"offlab: error: {_one_line(e)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except Exception as e:
        # A bug of offlab's, not the user's input: one line that says so, never a traceback
        # (OFFLAB_DEBUG=1 shows it). The robustness tests fail on this line.
        if os.environ.get("OFFLAB_DEBUG"):
            raise
        print(
            f"offlab: error: internal error ({type(e).__name__}: {_one_line(e)}); "
            "please report it (OFFLAB_DEBUG=1 shows the traceback)",
            file=sys.stderr,
        )
        return 70


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split()) or type(e).__name__


if __name__ == "__main__":
    sys.exit(main())
