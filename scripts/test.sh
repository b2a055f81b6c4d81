#!/usr/bin/env bash
# Runs every test: C++ (GoogleTest via ctest), Python (pytest), lint (ruff,
# clang-format), and the libFuzzer targets for a bounded time under ASan+UBSan.
# Expects ./scripts/setup.sh to have run.
set -euo pipefail
cd "$(dirname "$0")/.."

FUZZ_SECONDS=${OFFLAB_FUZZ_SECONDS:-60}
failed=()
step() { printf '\n== %s\n' "$*"; }
run() { local name=$1; shift; if "$@"; then echo "ok: $name"; else echo "FAILED: $name"; failed+=("$name"); fi; }

[ -x .venv/bin/python ] && [ -d build ] || { echo "test: run ./scripts/setup.sh first" >&2; exit 2; }

step "C++ build and unit tests"
run "c++ build" cmake --build build
run "ctest" ctest --test-dir build --output-on-failure --timeout 300 -j2

step "Python tests"
run "pytest" .venv/bin/python -m pytest -q

step "Lint"
run "ruff" .venv/bin/ruff check python tests/python verify bench
# Security lint (docs/security.md): medium severity and up; each remaining finding is
# justified inline with `# nosec`.
run "bandit" .venv/bin/bandit -q -ll -r python verify bench -x python/offlab/_core
mapfile -t cxx < <(git ls-files -- 'models/*.h' 'models/*.cc' 'sim/*.h' 'sim/*.cc' 'tests/cpp/*.cc' 'bench/*.cc' 'fuzz/*.cc' 'fuzz/*.c' 'python/bindings/*.cc' 'hw-replay/*.cc' 'hw-replay/*.h')
run "clang-format" clang-format --dry-run --Werror "${cxx[@]}"

step "Fuzzing every libFuzzer target in fuzz/ (${FUZZ_SECONDS}s each, ASan+UBSan)"
# OFFLAB_CONFORMANCE_SANITIZE=1 also builds the core module (offlab._core with
# ASan+UBSan and fuzzer-no-link) for the conformance fuzzer below: about 15-20
# more minutes on 2 cores, so not by default (docs/verification.md).
sanitize_core=${OFFLAB_CONFORMANCE_SANITIZE:-0}
python_flags=(-DOFFLAB_BUILD_PYTHON=OFF)
if [ "$sanitize_core" = 1 ]; then
  python_flags=(-DOFFLAB_BUILD_PYTHON=ON -DPython_EXECUTABLE="$PWD/.venv/bin/python"
                -Dpybind11_DIR="$(.venv/bin/python -m pybind11 --cmakedir)")
fi
if CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DOFFLAB_FUZZ=ON -DOFFLAB_SANITIZE=ON \
     -DOFFLAB_BUILD_TESTS=OFF -DOFFLAB_BUILD_BENCH=OFF -DOFFLAB_BUILD_SIM=OFF -DOFFLAB_WERROR=ON \
     "${python_flags[@]}" >/dev/null \
   && cmake --build build-fuzz >/dev/null; then
  for target in build-fuzz/fuzz/*_fuzz; do
    name=$(basename "$target")
    corpus=$(mktemp -d)
    [ -d "fuzz/corpus/$name" ] && cp -r "fuzz/corpus/$name/." "$corpus/"
    # The trace reader starts from the sample traces.
    [ "$name" = trace_reader_fuzz ] && cp traces/*.pcapng "$corpus/"
    # An input running 30 s is a hang, reported like a crash.
    if "$target" -max_total_time="$FUZZ_SECONDS" -timeout=30 "$corpus" > "build-fuzz/$name.log" 2>&1; then
      echo "ok: $name ($(grep -c '^#' "build-fuzz/$name.log") status lines, no crash)"
    else
      tail -40 "build-fuzz/$name.log"
      echo "FAILED: $name"
      failed+=("$name")
    fi
    rm -rf "$corpus"
  done
else
  echo "FAILED: fuzz build"; failed+=("fuzz build")
fi

# At least 60 s: the fuzzer needs about that to reach the deeper operation
# sequences. The installed core by default; the sanitizer one when built above.
conf_seconds=$(( FUZZ_SECONDS > 60 ? FUZZ_SECONDS : 60 ))
step "Conformance fuzzing of offlab verify's abstraction (${conf_seconds}s, atheris)"
if OFFLAB_CONFORMANCE_SANITIZE=$sanitize_core ./scripts/conformance-fuzz.sh "$conf_seconds" \
     > build/conformance-fuzz.log 2>&1; then
  echo "ok: conformance fuzz ($(grep -o 'Done [0-9]* runs' build/conformance-fuzz.log), no finding)"
else
  tail -20 build/conformance-fuzz.log
  echo "FAILED: conformance fuzz"; failed+=("conformance fuzz")
fi

echo
if [ "${#failed[@]}" -gt 0 ]; then
  echo "test: FAILED: ${failed[*]}"
  exit 1
fi
echo "test: all passed"
