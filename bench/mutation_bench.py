"""Mutation score of `offlab verify` and the C++ tests over the core (models/src).

Mutants come from universalmutator (`mutate FILE cpp`), drawn at random with a
fixed seed from every file of models/src. Each runs in a private copy of the
committed tree (`git archive HEAD`), built as the package is (-O2) without debug info:

1. Trivial compiler equivalence: the mutated file's object code is compared
   with the original's; identical object code is an equivalent mutant
   (Papadakis et al., ICSE 2015) and leaves the denominator.
2. A mutant that does not compile is stillborn and is not counted; the draw
   goes on until `--mutants` compiled ones have run.
3. The C++ tests run first (offlab_tests, stopping at the first failure); a
   mutant they miss runs `offlab verify` (every property, profile, setting,
   lemma and the kernel model) on the mutated core, and one that survives
   that runs the Python tests that hold the core against an outside oracle
   (ORACLE_TESTS: the running kernel in the lab, ovs-vswitchd, scapy, the
   verifier's exported relation) through the mutated core module. A failing
   or crashing run, or one over the time limit, kills it. `--no-python`
   leaves the last stage out (runs 1 and 2 had none).

Prints the score (killed / compiled non-equivalent), who killed what, and the
survivors with their file, line and change; writes everything to
OUT/mutants.json. Not a test: it runs for hours on a 2-core machine.

A run is pinned to one commit (`--rev`, default HEAD) and records every judged
mutant in OUT/mutants.json as it goes; `--resume` continues such a run (same
commit, seed and folder) where it stopped, so the hours can be spread over
several sittings without mixing results from different code. OUT/mutants.json
alone is enough to resume: a missing tree is made again from the commit.

Usage: .venv/bin/python bench/mutation_bench.py [--mutants 200] [--seed 1]
           [--only models/src/ovs] [--out build-mutation] [--verify-only]
           [--rev COMMIT] [--resume] [--report] [--no-python]

Survivors reviewed by hand are listed with their reason in
bench/mutation_survivors.json; the report prints it beside each.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import random
import shutil
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from mutation_report import OUTCOMES, Mutant, report  # noqa: E402

# The Python suites that compare the core with something outside it; the rest
# test the CLI, the simulator (not built in the mutant tree) or the notebooks.
# About 2.5 minutes on 2 cores, so they run only on what the first stages miss.
ORACLE_TESTS = (
    "tests/python/test_lab.py",  # the running kernel, case by case (needs root)
    "tests/python/test_lab_offline.py",
    "tests/python/test_conformance.py",  # the verifier's relation against the core
    "tests/python/test_conformance_gaps.py",
    "tests/python/test_oracle_properties.py",  # scapy's checksums after each operation
    "tests/python/test_ovs_diff.py",  # ovs-vswitchd's dummy datapath
    "tests/python/test_frame_lengths.py",
)
VENV = Path(sys.executable).parent


def run(cmd: list[str], cwd: Path, timeout: float, env: dict[str, str] | None = None) -> int:
    """Exit status of `cmd`; a timeout counts as status 124."""
    try:
        return subprocess.run(
            cmd,
            cwd=cwd,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=timeout,
            check=False,
        ).returncode
    except subprocess.TimeoutExpired:
        return 124


def prepare_tree(out: Path, rev: str) -> Path:
    """A copy of commit `rev`'s tree in OUT/src, configured in OUT/src/build."""
    src = out / "src"
    if src.exists():
        shutil.rmtree(src)
    src.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", rev], cwd=REPO, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(src)], input=archive.stdout, check=True)
    pybind = subprocess.run(
        [sys.executable, "-m", "pybind11", "--cmakedir"], capture_output=True, text=True, check=True
    ).stdout.strip()
    subprocess.run(
        [
            "cmake", "-S", ".", "-B", "build", "-G", "Ninja",
            # No debug info: line numbers would make equal code differ.
            "-DCMAKE_BUILD_TYPE=Release", "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG",
            "-DOFFLAB_BUILD_PYTHON=ON", "-DOFFLAB_BUILD_SIM=OFF", "-DOFFLAB_BUILD_BENCH=OFF",
            "-DOFFLAB_BUILD_HW_REPLAY=OFF", f"-DPython_EXECUTABLE={sys.executable}",
            f"-Dpybind11_DIR={pybind}",
        ],
        cwd=src, check=True, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    return src


def object_path(src: Path, file: str) -> str:
    """The ninja target of `file`'s object in the core library."""
    rel = Path(file).relative_to("models")
    return f"models/CMakeFiles/offlab_core.dir/{rel}.o"


def generate(src: Path, files: list[str], work: Path) -> list[Mutant]:
    """Every universalmutator mutant of `files` (unchecked: compiling is step 2)."""
    mutate = shutil.which("mutate", path=str(VENV)) or shutil.which("mutate")
    if mutate is None:
        sys.exit("mutation_bench: universalmutator is not installed (pip install universalmutator)")
    out: list[Mutant] = []
    for f in files:
        d = work / f.replace("/", "_")
        if not (d / ".complete").exists():  # a resumed run keeps its mutants
            shutil.rmtree(d, ignore_errors=True)
            d.mkdir(parents=True)
            subprocess.run(
                [mutate, str(src / f), "cpp", "--noCheck", "--mutantDir", str(d)],
                cwd=d, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )  # fmt: skip
            (d / ".complete").touch()
        orig = (src / f).read_text().splitlines()
        stem = Path(f).stem
        for m in sorted(d.glob(f"{stem}.mutant.*.cc"), key=lambda p: int(p.suffixes[-2][1:])):
            new = m.read_text().splitlines()
            ops = difflib.SequenceMatcher(a=orig, b=new).get_opcodes()
            change = next((op for op in ops if op[0] != "equal"), None)
            if change is None:
                continue
            _, i1, i2, j1, j2 = change
            out.append(
                Mutant(
                    f,
                    int(m.suffixes[-2][1:]),
                    i1 + 1,
                    "\n".join(orig[i1:i2]).strip(),
                    "\n".join(new[j1:j2]).strip(),
                )
            )
    return out


def mutant_text(work: Path, m: Mutant) -> str:
    d = work / m.file.replace("/", "_")
    return (d / f"{Path(m.file).stem}.mutant.{m.index}.cc").read_text()


class Runner:
    """Builds and judges mutants in one prepared tree."""

    def __init__(self, src: Path, verify_only: bool, python: bool) -> None:
        self.src = src
        self.build = src / "build"
        self.verify_only = verify_only
        self.python = python
        self.last_failure = ""
        self.env = {
            **os.environ,
            "PYTHONPATH": f"{self.build / 'python'}:{src / 'python'}:{src / 'verify'}",
        }
        self.originals: dict[str, bytes] = {}
        t = time.perf_counter()
        if run(["ninja", "-C", "build", "offlab_tests", "_core"], src, 7200) != 0:
            sys.exit("mutation_bench: the unmutated tree does not build")
        self._stage_python()
        self._check_module()
        t_tests = time.perf_counter()
        if self.tests(3600) != 0:
            sys.exit("mutation_bench: the C++ tests fail on the unmutated tree")
        t_verify = time.perf_counter()
        if self.verify(3600) != 0:
            sys.exit("mutation_bench: offlab verify fails on the unmutated tree")
        t_python = time.perf_counter()
        if self.python and self.pytest(7200) != 0:
            sys.exit("mutation_bench: the oracle Python tests fail on the unmutated tree")
        done = time.perf_counter()
        self.tests_limit = max(60.0, 5 * (t_verify - t_tests))
        self.verify_limit = max(120.0, 5 * (t_python - t_verify))
        self.python_limit = max(600.0, 3 * (done - t_python))
        print(
            f"baseline: build {t_tests - t:.0f} s, tests {t_verify - t_tests:.1f} s, "
            f"verify {t_python - t_verify:.1f} s, python {done - t_python:.1f} s",
            flush=True,
        )

    def _stage_python(self) -> None:
        # The built module sits in build/python/offlab; the package's Python
        # files come from the tree.
        staged = self.build / "python" / "offlab"
        for p in (self.src / "python" / "offlab").iterdir():
            link = staged / p.name
            if not link.exists():
                link.symlink_to(p)

    def _check_module(self) -> None:
        # A stale or missing module would let the Python stages test the
        # installed, unmutated core (or fail every mutant on import).
        where = subprocess.run(
            [sys.executable, "-c", "import offlab._core as c; print(c.__file__)"],
            cwd=self.build, env=self.env, capture_output=True, text=True, check=False,
        )  # fmt: skip
        if where.returncode != 0 or not where.stdout.strip().startswith(str(self.build)):
            sys.exit(f"mutation_bench: offlab._core does not load from {self.build}: "
                     f"{(where.stdout + where.stderr).strip().splitlines()[-1:]}")  # fmt: skip

    def original_object(self, file: str) -> bytes:
        if file not in self.originals:
            self.originals[file] = (self.build / object_path(self.src, file)).read_bytes()
        return self.originals[file]

    def tests(self, limit: float) -> int:
        exe = str(self.build / "tests" / "offlab_tests")
        return run([exe, "--gtest_fail_fast", "--gtest_brief=1"], self.build, limit)

    def verify(self, limit: float) -> int:
        out = self.build / "verify-out"
        shutil.rmtree(out, ignore_errors=True)
        cmd = [sys.executable, "-m", "offlab.cli", "verify", "--out", str(out)]
        return run(cmd, self.build, limit, self.env)

    def pytest(self, limit: float) -> int:
        cmd = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
               *ORACLE_TESTS]  # fmt: skip
        try:
            res = subprocess.run(cmd, cwd=self.src, env=self.env, capture_output=True,
                                 text=True, timeout=limit, check=False)  # fmt: skip
        except subprocess.TimeoutExpired:
            self.last_failure = "timeout"
            return 124
        failed = [ln for ln in res.stdout.splitlines() if ln.startswith(("FAILED", "ERROR"))]
        self.last_failure = failed[0] if failed else f"exit status {res.returncode}"
        return res.returncode

    def python_kills(self) -> bool:
        """The oracle tests fail on the mutant, and again on a second run: the
        lab shares the machine's kernel with whatever else runs, so a single
        failure could be a neighbour's, not the mutant's."""
        if self.pytest(self.python_limit) == 0:
            return False
        first = self.last_failure
        if self.pytest(self.python_limit) == 0:
            print(f"      python stage failed once, passed on the rerun: {first}", flush=True)
            return False
        return True

    def judge(self, m: Mutant, text: str) -> str:
        path = self.src / m.file
        original = path.read_text()
        before = self.original_object(m.file)
        try:
            path.write_text(text)
            obj = object_path(self.src, m.file)
            if run(["ninja", "-C", "build", obj], self.src, 600) != 0:
                return "stillborn"
            if (self.build / obj).read_bytes() == before:
                return "equivalent"
            # The tests first: most mutants die there, and linking the
            # Python module is only needed for those that survive them.
            if not self.verify_only:
                if run(["ninja", "-C", "build", "offlab_tests"], self.src, 1200) != 0:
                    return "stillborn"
                if self.tests(self.tests_limit) != 0:
                    return "tests"
            if run(["ninja", "-C", "build", "_core"], self.src, 1200) != 0:
                return "stillborn"
            if self.verify(self.verify_limit) != 0:
                return "verify"
            if self.python and self.python_kills():
                return "python"
            return "survived"
        finally:
            path.write_text(original)
            # Back to the original object before the next mutant of this file.
            run(["ninja", "-C", "build", object_path(self.src, m.file)], self.src, 600)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mutants", type=int, default=200, help="compiled mutants to run")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", default="models/src", help="folder of the files to mutate")
    ap.add_argument("--out", default="build-mutation", help="work folder (removed first)")
    ap.add_argument("--rev", default="HEAD", help="commit whose tree is mutated")
    ap.add_argument("--resume", action="store_true", help="continue the run recorded in OUT")
    ap.add_argument("--report", action="store_true", help="print the report of the run in OUT")
    ap.add_argument(
        "--verify-only", action="store_true", help="judge by offlab verify alone, no C++ tests"
    )
    ap.add_argument(
        "--no-python", action="store_true", help="leave out the oracle Python tests' stage"
    )
    args = ap.parse_args()
    out = (REPO / args.out).resolve()
    if args.report:
        try:
            rec = json.loads((out / "mutants.json").read_text())
        except (OSError, ValueError):
            sys.exit(f"mutation_bench: no run recorded in {out}")
        print(f"run of {rec['rev'][:12]}, seed {rec['seed']}, {rec['only']}")
        report([Mutant(**m) for m in rec["mutants"]])
        return 0
    rev = subprocess.run(
        ["git", "rev-parse", "--verify", f"{args.rev}^{{commit}}"],
        cwd=REPO, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if rev.returncode != 0:
        sys.exit(f"mutation_bench: {args.rev!r} is not a commit")
    key = {"rev": rev.stdout.strip(), "seed": args.seed, "only": args.only,
           "verify_only": args.verify_only, "python": not args.no_python}  # fmt: skip
    done = resume(out, key) if args.resume else []
    if not done:
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir(parents=True)
        src = prepare_tree(out, key["rev"])
    elif not (out / "src" / "build" / "build.ninja").exists():
        # Only the record came along (another machine, a cleaned folder): the
        # tree is made again from the commit; the judged mutants are kept.
        src = prepare_tree(out, key["rev"])
    else:
        src = restore_tree(out, key["rev"])
    files = sorted(str(p.relative_to(src)) for p in (src / args.only).rglob("*.cc") if p.is_file())
    if not files:
        sys.exit(f"mutation_bench: no .cc files under {args.only}")
    pool = generate(src, files, out / "mutants")
    random.Random(args.seed).shuffle(pool)
    judged = {(m.file, m.index) for m in done}
    compiled = sum(m.outcome != "stillborn" for m in done)
    print(f"{len(pool)} mutants of {len(files)} files at {key['rev'][:12]}; "
          f"{compiled} judged before; running until {args.mutants} compile",
          flush=True)  # fmt: skip
    runner = Runner(src, args.verify_only, not args.no_python)
    for m in pool:
        if compiled >= args.mutants:
            break
        if (m.file, m.index) in judged:
            continue
        t = time.perf_counter()
        runner.last_failure = ""
        m.outcome = runner.judge(m, mutant_text(out / "mutants", m))
        if m.outcome == "python":
            m.killed_by = runner.last_failure
        m.seconds = round(time.perf_counter() - t, 1)
        done.append(m)
        save(out, key, done)
        if m.outcome != "stillborn":
            compiled += 1
            print(f"[{compiled}/{args.mutants}] {m.file}:{m.line} {m.outcome} ({m.seconds} s)",
                  flush=True)  # fmt: skip
    report(done)
    return 0


def save(out: Path, key: dict[str, object], done: list[Mutant]) -> None:
    """OUT/mutants.json after every mutant, replaced atomically."""
    count = {k: sum(m.outcome == k for m in done) for k in OUTCOMES}
    tmp = out / "mutants.json.tmp"
    tmp.write_text(
        json.dumps({**key, "counts": count, "mutants": [asdict(m) for m in done]}, indent=1)
    )
    tmp.replace(out / "mutants.json")


def resume(out: Path, key: dict[str, object]) -> list[Mutant]:
    """The mutants judged by an earlier run of the same commit, seed and scope."""
    try:
        rec = json.loads((out / "mutants.json").read_text())
    except (OSError, ValueError):
        sys.exit(f"mutation_bench: no run to resume in {out}")
    # Runs recorded before the Python stage existed had none.
    rec.setdefault("python", False)
    if any(rec.get(k) != v for k, v in key.items()):
        sys.exit(f"mutation_bench: the run in {out} was of another commit, seed or scope")
    return [Mutant(**m) for m in rec["mutants"]]


def restore_tree(out: Path, rev: str) -> Path:
    """OUT/src as committed: a run stopped mid-mutant may have left a file mutated.

    A restored file is rewritten now, so its mtime makes ninja rebuild it.
    """
    src = out / "src"
    listing = subprocess.run(
        ["git", "ls-tree", "-r", "--name-only", rev, "models/src"],
        cwd=REPO, capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    for f in listing:
        want = subprocess.run(["git", "show", f"{rev}:{f}"], cwd=REPO, capture_output=True,
                              check=True).stdout  # fmt: skip
        if (src / f).read_bytes() != want:
            (src / f).write_bytes(want)
            print(f"restored {f}", flush=True)
    return src


if __name__ == "__main__":
    sys.exit(main())
