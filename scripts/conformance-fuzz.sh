#!/usr/bin/env bash
# Conformance fuzzing of offlab verify's abstraction (docs/verification.md):
# exports the relation `offlab verify` extracts, then runs the atheris fuzzer
# against it for SECONDS with the installed core module (.venv). With
# OFFLAB_CONFORMANCE_SANITIZE=1 it runs the sanitizer build of the core module
# instead (build-fuzz/python/offlab, or $OFFLAB_FUZZ_BUILD/python/offlab:
# ASan+UBSan and -fsanitize=fuzzer-no-link, built by
# `OFFLAB_CONFORMANCE_SANITIZE=1 scripts/test.sh`) under atheris'
# asan_with_fuzzer.so, so libFuzzer sees the core's comparisons too
# (-use_value_profile=1).
#   usage: [OFFLAB_CONFORMANCE_SANITIZE=1] scripts/conformance-fuzz.sh [SECONDS] [--inject BUG]...
# Exit status: 0 no finding, 1 "abstraction unsound" (witness written to
# build/conformance/witnesses), 2 setup or verify failed.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
shift || true
work=build/conformance
rm -rf "$work/stage" "$work/corpus"
mkdir -p "$work/witnesses" "$work/corpus"
py=$PWD/.venv/bin/python

core=""
if [ "${OFFLAB_CONFORMANCE_SANITIZE:-0}" = 1 ]; then
  fuzz_build=${OFFLAB_FUZZ_BUILD:-build-fuzz}
  core=$(ls "$fuzz_build"/python/offlab/_core.*.so 2>/dev/null | head -1 || true)
  if [ -z "$core" ]; then
    echo "conformance-fuzz: OFFLAB_CONFORMANCE_SANITIZE=1 but no sanitizer core in" \
         "$fuzz_build/python/offlab (build it: OFFLAB_CONFORMANCE_SANITIZE=1 scripts/test.sh)" >&2
    exit 2
  fi
fi

# The relation, extracted with the installed (optimised) core: the sanitizer
# build would take minutes for it.
if ! .venv/bin/offlab verify --no-kernel --no-lemmas --jobs 2 "$@" --out "$work/verify-out" \
     --export-relation "$work/relation.json" > "$work/verify.log" 2>&1; then
  cat "$work/verify.log" >&2
  echo "conformance-fuzz: offlab verify did not prove the relation it exported" >&2
  exit 2
fi

env=()
if [ -n "$core" ]; then
  # The installed packages (those that exported the relation), with the
  # sanitizer core in place of the optimised one.
  site=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  mkdir -p "$work/stage"
  cp -r "$site/offlab" "$work/stage/offlab"
  rm -f "$work/stage/offlab"/_core.*.so
  cp "$core" "$work/stage/offlab/"
  cp -r "$site/offlab_verify" "$work/stage/offlab_verify"
  # atheris README, "Using Sanitizers": preload its ASan runtime with libFuzzer
  # (and the UBSan C++ stubs it lacks, fuzz/conformance_ubsan_shim.c); the
  # interpreter's own leaks are not the core's.
  clang -shared -fPIC -O1 -o "$work/stage/ubsan_shim.so" fuzz/conformance_ubsan_shim.c
  env=(LD_PRELOAD="$site/asan_with_fuzzer.so $PWD/$work/stage/ubsan_shim.so"
       PYTHONPATH="$PWD/$work/stage"
       ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1
       UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1)
  echo "conformance-fuzz: sanitizer core $core"
else
  echo "conformance-fuzz: the installed core (OFFLAB_CONFORMANCE_SANITIZE=1: the sanitizer one)"
fi
env "${env[@]}" "$py" fuzz/conformance_fuzz.py --relation "$work/relation.json" \
  --witness-out "$work/witnesses" -max_total_time="$seconds" -use_value_profile=1 \
  -max_len=512 -len_control=0 -timeout=30 "$work/corpus"
