#!/usr/bin/env bash
# A fuzzing campaign: every libFuzzer target (fuzz/*_fuzz.cc) for a given time
# under ASan+UBSan, several at once, each with a persistent corpus under
# build-fuzz/campaign/corpus/<target>/ seeded from fuzz/corpus/<target>/.
# Prints executions, coverage (libFuzzer's edges "cov" and features "ft") and
# crashes per target and in total; exits non-zero if anything crashed.
#
#   bench/fuzz_campaign.sh [--time SECONDS] [--jobs N] [--only T1,T2] [--no-build]
#                          [--minimize|--minimize-only]
#
# --time      seconds per target (default 300); a target that crashes is
#             restarted on its corpus for the time left (at most 3 crashes each)
# --jobs      targets running at once (default 2)
# --only      run just these targets (names as in build-fuzz/fuzz/)
# --no-build  run the targets as last built (a later round of a campaign on the
#             same code, while the tree has moved on)
# --minimize  afterwards, replace fuzz/corpus/<target>/ by the libFuzzer merge
#             (-merge=1) of the persistent corpus and the committed one: the
#             smallest set of inputs with the same features, for committing.
#             Files named crash-* (regression inputs) are kept as they are.
# --minimize-only  just that, on the corpus of an earlier run
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=300 jobs=2 only="" minimize=0 run=1 build=1
usage() { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --time) seconds=${2:?}; shift 2 ;;
    --jobs) jobs=${2:?}; shift 2 ;;
    --only) only=${2:?}; shift 2 ;;
    --no-build) build=0; shift ;;
    --minimize) minimize=1; shift ;;
    --minimize-only) minimize=1; run=0; shift ;;
    -h|--help) usage ;;
    *) echo "fuzz_campaign: error: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ $seconds =~ ^[0-9]+$ && $seconds -ge 10 ]] || { echo "fuzz_campaign: error: --time needs >= 10 seconds" >&2; exit 2; }
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "fuzz_campaign: error: --jobs needs a positive number" >&2; exit 2; }

out=build-fuzz/campaign
mkdir -p "$out/logs" "$out/results"
# The code the targets were built from, kept for a --no-build round.
built=$out/built-commit
if [ "$build" = 1 ]; then
  # The same configuration as scripts/test.sh's fuzz step.
  echo "fuzz_campaign: building build-fuzz (clang, ASan+UBSan, libFuzzer)"
  CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DOFFLAB_FUZZ=ON -DOFFLAB_SANITIZE=ON \
    -DOFFLAB_BUILD_TESTS=OFF -DOFFLAB_BUILD_BENCH=OFF -DOFFLAB_BUILD_SIM=OFF -DOFFLAB_WERROR=ON >/dev/null
  cmake --build build-fuzz >/dev/null
  echo "$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- models fuzz || echo ' (+ local changes)')" >"$built"
elif ! ls build-fuzz/fuzz/*_fuzz >/dev/null 2>&1; then
  echo "fuzz_campaign: error: --no-build but build-fuzz/fuzz/ has no targets" >&2; exit 2
fi
targets=()
for bin in build-fuzz/fuzz/*_fuzz; do
  name=$(basename "$bin")
  if [ -n "$only" ] && [[ ",$only," != *",$name,"* ]]; then continue; fi
  targets+=("$name")
done
[ "${#targets[@]}" -gt 0 ] || { echo "fuzz_campaign: error: no fuzz targets to run" >&2; exit 2; }

# Seed directories besides the committed corpus.
extra_seeds() { [ "$1" = trace_reader_fuzz ] && echo traces || true; }

# last_stat LOG KEY: a libFuzzer final statistic (-print_final_stats=1).
last_stat() { sed -n "s/^stat::$2: *//p" "$1" | tail -1; }

run_target() {
  local name=$1 bin=build-fuzz/fuzz/$1 corpus=$out/corpus/$1 crashes=$out/crashes/$1
  mkdir -p "$corpus" "$crashes"
  local seeds=()
  [ -d "fuzz/corpus/$name" ] && seeds+=("fuzz/corpus/$name")
  local extra; extra=$(extra_seeds "$name")
  [ -n "$extra" ] && seeds+=("$extra")
  local end=$((SECONDS + seconds)) run=0 execs=0 crashed=0 cov=0 ft=0 log left n line
  while left=$((end - SECONDS)); [ "$left" -ge 5 ] && [ "$crashed" -lt 3 ]; do
    log=$out/logs/$name.$run.log
    # -timeout: an input running 30 s (a hang) is reported like a crash.
    if "$bin" -max_total_time="$left" -timeout=30 -print_final_stats=1 \
         -artifact_prefix="$crashes/" "$corpus" "${seeds[@]}" >"$log" 2>&1; then
      :
    else
      crashed=$((crashed + 1))
      echo "fuzz_campaign: $name crashed: $(grep -m1 -E 'ERROR: (AddressSanitizer|UndefinedBehaviorSanitizer|libFuzzer)|runtime error' "$log" || echo see "$log")" >&2
      grep -E '(Test unit|artifact_prefix).*written to' "$log" >&2 || true
    fi
    n=$(last_stat "$log" number_of_executed_units)
    [ -z "$n" ] && n=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#' || true)
    execs=$((execs + ${n:-0}))
    # Edges and features of the last status line ("#N ... cov: E ft: F ...").
    line=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1 || true)
    if [ -n "$line" ]; then cov=${line#cov: }; cov=${cov%% *}; ft=${line##* }; fi
    run=$((run + 1))
    [ "$crashed" -eq 0 ] && break
  done
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$execs" "${cov:-0}" "${ft:-0}" \
    "$(find "$corpus" -type f | wc -l)" "$crashed" >"$out/results/$name.tsv"
}

total_crashes=0
if [ "$run" = 1 ]; then
  start=$(date +%s)
  commit=$(cat "$built" 2>/dev/null || echo "unknown (built before $built was kept)")
  echo "fuzz_campaign: ${#targets[@]} targets x ${seconds}s, $jobs at once: ${targets[*]}"
  for name in "${targets[@]}"; do
    rm -f "$out/results/$name.tsv"
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
    run_target "$name" &
  done
  wait
  wall=$(( $(date +%s) - start ))

  total_execs=0 total_crashes=0
  printf '\n%-22s %14s %10s %8s %9s %8s %8s\n' target executions exec/s edges features corpus crashes
  for name in "${targets[@]}"; do
    IFS=$'\t' read -r _ execs cov ft corp crashed <"$out/results/$name.tsv"
    printf '%-22s %14d %10d %8d %9d %8d %8d\n' "$name" "$execs" $((execs / seconds)) "$cov" "$ft" "$corp" "$crashed"
    total_execs=$((total_execs + execs)); total_crashes=$((total_crashes + crashed))
  done
  printf '%-22s %14d %10s %8s %9s %8s %8d\n' total "$total_execs" "" "" "" "" "$total_crashes"
  echo "wall time ${wall}s; $(date -u +%Y-%m-%dT%H:%MZ); commit $commit"
  echo "logs: $out/logs; crashing inputs: $out/crashes/<target>/"
fi

if [ "$minimize" = 1 ]; then
  for name in "${targets[@]}"; do
    merged=$(mktemp -d) committed=$(mktemp -d)
    mkdir -p "fuzz/corpus/$name" "$out/corpus/$name"
    # The regression inputs stay under their names, outside the merge.
    find "fuzz/corpus/$name" -type f ! -name 'crash-*' -exec cp {} "$committed/" \;
    "build-fuzz/fuzz/$name" -merge=1 "$merged" "$out/corpus/$name" "$committed" \
      >"$out/logs/$name.merge.log" 2>&1
    find "fuzz/corpus/$name" -type f ! -name 'crash-*' -delete
    cp "$merged"/* "fuzz/corpus/$name/" 2>/dev/null || true
    rm -rf "$merged" "$committed"
    echo "fuzz_campaign: fuzz/corpus/$name: $(find "fuzz/corpus/$name" -type f | wc -l) files"
  done
fi
[ "$total_crashes" -eq 0 ]
