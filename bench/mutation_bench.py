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
   lemma and the kernel model) on the mutated core. A failing or crashing run,
   or one over the time limit, kills it.

Prints the score (killed / compiled non-equivalent), who killed what, and the
survivors with their file, line and change; writes everything to
OUT/mutants.json. Not a test: it runs for hours on a 2-core machine.

Usage: .venv/bin/python bench/mutation_bench.py [--mutants 200] [--seed 1]
           [--only models/src/ovs] [--out build-mutation] [--verify-only]
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
from dataclasses import asdict, dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
VENV = Path(sys.executable).parent


@dataclass
class Mutant:
    file: str  # relative to the tree, e.g. models/src/ovs/rewrite.cc
    index: int  # universalmutator's mutant number
    line: int
    before: str
    after: str
    outcome: str = ""  # equivalent | stillborn | tests | verify | survived
    seconds: float = 0.0


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


def prepare_tree(out: Path) -> Path:
    """A copy of the committed tree in OUT/src, configured in OUT/src/build."""
    src = out / "src"
    if src.exists():
        shutil.rmtree(src)
    src.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", "HEAD"], cwd=REPO, capture_output=True, check=True)
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
        d.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [mutate, str(src / f), "cpp", "--noCheck", "--mutantDir", str(d)],
            cwd=d, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
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

    def __init__(self, src: Path, verify_only: bool) -> None:
        self.src = src
        self.build = src / "build"
        self.verify_only = verify_only
        self.env = {
            **os.environ,
            "PYTHONPATH": f"{self.build / 'python'}:{src / 'python'}:{src / 'verify'}",
        }
        self.originals: dict[str, bytes] = {}
        t = time.perf_counter()
        if run(["ninja", "-C", "build", "offlab_tests", "_core"], src, 7200) != 0:
            sys.exit("mutation_bench: the unmutated tree does not build")
        self._stage_python()
        t_tests = time.perf_counter()
        if self.tests(3600) != 0:
            sys.exit("mutation_bench: the C++ tests fail on the unmutated tree")
        t_verify = time.perf_counter()
        if self.verify(3600) != 0:
            sys.exit("mutation_bench: offlab verify fails on the unmutated tree")
        done = time.perf_counter()
        self.tests_limit = max(60.0, 5 * (t_verify - t_tests))
        self.verify_limit = max(120.0, 5 * (done - t_verify))
        print(
            f"baseline: build {t_tests - t:.0f} s, tests {t_verify - t_tests:.1f} s, "
            f"verify {done - t_verify:.1f} s",
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
            if run(["ninja", "-C", "build", "offlab_tests", "_core"], self.src, 1200) != 0:
                return "stillborn"
            if not self.verify_only and self.tests(self.tests_limit) != 0:
                return "tests"
            return "verify" if self.verify(self.verify_limit) != 0 else "survived"
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
    ap.add_argument(
        "--verify-only", action="store_true", help="judge by offlab verify alone, no C++ tests"
    )
    args = ap.parse_args()
    out = (REPO / args.out).resolve()
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    src = prepare_tree(out)
    files = sorted(
        str(p.relative_to(src)) for p in (src / args.only).rglob("*.cc") if p.is_file()
    )
    if not files:
        sys.exit(f"mutation_bench: no .cc files under {args.only}")
    pool = generate(src, files, out / "mutants")
    random.Random(args.seed).shuffle(pool)
    print(f"{len(pool)} mutants of {len(files)} files; running until {args.mutants} compile",
          flush=True)  # fmt: skip
    runner = Runner(src, args.verify_only)
    done: list[Mutant] = []
    compiled = 0
    for m in pool:
        if compiled >= args.mutants:
            break
        t = time.perf_counter()
        m.outcome = runner.judge(m, mutant_text(out / "mutants", m))
        m.seconds = round(time.perf_counter() - t, 1)
        done.append(m)
        if m.outcome != "stillborn":
            compiled += 1
            print(f"[{compiled}/{args.mutants}] {m.file}:{m.line} {m.outcome} ({m.seconds} s)",
                  flush=True)  # fmt: skip
    report(done, out)
    return 0


def report(done: list[Mutant], out: Path) -> None:
    count = {k: sum(m.outcome == k for m in done) for k in
             ("stillborn", "equivalent", "tests", "verify", "survived")}  # fmt: skip
    scored = count["tests"] + count["verify"] + count["survived"]
    killed = count["tests"] + count["verify"]
    print()
    print(f"mutants drawn: {len(done)}; stillborn (do not compile): {count['stillborn']}")
    print(f"equivalent (same object code): {count['equivalent']}")
    print(f"killed by the C++ tests: {count['tests']}; by offlab verify: {count['verify']}")
    if scored:
        print(f"score: {killed}/{scored} = {100 * killed / scored:.1f} % of non-equivalent mutants")
    survivors = [m for m in done if m.outcome == "survived"]
    if survivors:
        print("survivors:")
        for m in survivors:
            print(f"  {m.file}:{m.line}: {m.before!r} -> {m.after!r}")
    (out / "mutants.json").write_text(
        json.dumps({"counts": count, "mutants": [asdict(m) for m in done]}, indent=1)
    )


if __name__ == "__main__":
    sys.exit(main())
