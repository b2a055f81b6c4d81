"""`offlab ovs-diff`: runs case files through a real ovs-vswitchd and offlab's
Pipeline and compares them (docs/ovs-diff.md)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable

from . import model
from .compare import Verdict, compare, table, to_json
from .real import RealOvs
from .sandbox import OvsInstall, OvsSandbox, OvsSandboxError
from .spec import Case, SpecError, builtin_cases, load


class OvsDiffError(RuntimeError):
    """Bad input or a missing/failed OVS: the message is one line."""


def diff_cases(cases: Iterable[Case], ovs: RealOvs) -> list[Verdict]:
    """Runs each case on both sides (offlab first: a flow it refuses stops the
    run before the daemon is touched)."""
    out = []
    for case in cases:
        mine = model.run(case)
        theirs = ovs.run(case)
        out.append(compare(case, theirs, mine, ovs.version))
    return out


def run_files(paths: list[str], bin_dir: str | None) -> tuple[list[Verdict], str]:
    """Loads the case files (all built-in cases without any), starts one
    sandbox, runs every case; returns the verdicts and the OVS version."""
    try:
        cases = [c for p in paths for c in load(p)] if paths else builtin_cases()
        install = OvsInstall.find(bin_dir)
        with OvsSandbox(install) as sb:
            return diff_cases(cases, RealOvs(sb)), install.version
    except (SpecError, OvsSandboxError) as e:
        raise OvsDiffError(str(e)) from e
    except OSError as e:
        raise OvsDiffError(f"{e.filename or 'ovs-diff'}: {e.strerror or e}") from e


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="*", metavar="FILE", help="case files (default: built-in cases)")
    p.add_argument(
        "--ovs-bin", metavar="DIR", help="an OVS install or build tree (default: installed OVS)"
    )
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("-v", "--verbose", action="store_true", help="detail expected differences too")


def main(args: argparse.Namespace) -> int:
    """Exit 0 when every difference is explained, 1 otherwise; OvsDiffError on
    bad input."""
    verdicts, version = run_files(args.files, args.ovs_bin)
    if args.json:
        json.dump(to_json(verdicts, version), sys.stdout, indent=2)
        print()
    else:
        print(f"ovs-vswitchd {version} vs offlab")
        print(table(verdicts, args.verbose))
    return 1 if any(v.unexplained for v in verdicts) else 0
