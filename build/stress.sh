#!/usr/bin/env bash
# Runs every Go test and the front-end unit tests several times while the CPU is kept busy, to
# find tests that wait on time or on output that can appear early. Offline, like `make test`.
#   STRESS_COUNT  runs of each Go test at each GOMAXPROCS (default 2)
#   STRESS_CPU    GOMAXPROCS values, go test's -cpu (default 1,2,4)
#   STRESS_FRONT  runs of the front-end unit tests (default 3)
#   STRESS_BURN   busy processes beside the tests (default: one per core)
#   STRESS_RACE   1: the Go tests under the race detector, as `make test-go` runs most of them
#   STRESS_OUT    folder to keep the logs in (go.log, front1.log…); default a temporary one, removed
# Prints "stress: N passed, N failed" (runs of a test) and exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."
count=${STRESS_COUNT:-2}
cpu=${STRESS_CPU:-1,2,4}
front=${STRESS_FRONT:-3}
burn=${STRESS_BURN:-$(nproc)}
if [ -n "${STRESS_OUT:-}" ]; then
  out=$STRESS_OUT
  mkdir -p "$out" || exit 1
  trap 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null' EXIT
else
  out=$(mktemp -d)
  trap 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; rm -rf "$out"' EXIT
fi

# The load: stress-ng when installed, else shell loops (one busy process each).
if command -v stress-ng >/dev/null; then
  stress-ng --cpu "$burn" --quiet &
else
  for _ in $(seq "$burn"); do (while :; do :; done) & done
fi

# Go: by default no -race (the load and the scheduling shake out waits; -race makes the run
# several times longer). The attack suite checks decisions, not waits: it is left out.
race=()
[ "${STRESS_RACE:-}" = 1 ] && race=(-race)
pkgs=$(go list ./backend/... ./assets/... ./app/...)
build/offline.sh go test "${race[@]}" -count="$count" -cpu "$cpu" -v -timeout 60m \
  -skip '^TestAttackSuite$' $pkgs >"$out/go.log" 2>&1
gorc=$?
gopass=$(grep -c -- '^\s*--- PASS' "$out/go.log")
gofail=$(grep -c -- '^\s*--- FAIL' "$out/go.log")
grep -E -- '^\s*--- FAIL|^FAIL|panic:|timed out' "$out/go.log" | sort | uniq -c | sort -rn | head -40
[ "$gorc" = 0 ] || [ "$gofail" -gt 0 ] || { tail -40 "$out/go.log"; gofail=$((gofail + 1)); }
echo "stress go: ${race[*]} -count=$count -cpu $cpu: $gopass passed, $gofail failed"

# Front end: the whole unit suite, run after run.
fpass=0 ffail=0
for i in $(seq "$front"); do
  if (cd frontend && ../build/offline.sh npx vitest run >"$out/front$i.log" 2>&1); then
    fpass=$((fpass + 1))
  else
    ffail=$((ffail + 1))
    grep -aE 'FAIL|Error|timed out' "$out/front$i.log" | head -20
  fi
done
echo "stress front end: $fpass passed, $ffail failed (whole suite runs)"

echo "stress: $((gopass + fpass)) passed, $((gofail + ffail)) failed"
[ $((gofail + ffail)) = 0 ]
