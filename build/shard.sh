#!/usr/bin/env bash
# Runs one package's tests in N processes side by side: build/shard.sh N PKG [go test flags…]
# [-- test binary flags…]. The tests of app/cli and its browser tests each set the process's
# environment (a fresh HOME, settings folder and model server), so one process runs them one
# after another, most of it waiting (a Chromium, a server, a sandbox starting). The test binary
# is built once; its top-level tests (by -run, given after --, or all) are dealt round-robin,
# in the order `-test.list` gives them, to N copies run from the package's folder, as go test
# does. Each copy's output is printed whole when it ends, so lines never interleave; the script
# fails when any copy fails. SHARDS overrides N.
set -euo pipefail
n=${SHARDS:-$1}
pkg=$2
shift 2
build=() run=()
while [ $# -gt 0 ]; do
  if [ "$1" = -- ]; then shift; run=("$@"); break; fi
  build+=("$1"); shift
done
pattern=.
for ((i = 0; i < ${#run[@]}; i++)); do
  case "${run[$i]}" in
    -test.run=*) pattern=${run[$i]#-test.run=}; unset 'run[i]' ;;
  esac
done
run=("${run[@]}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go test -c -o "$work/pkg.test" "${build[@]}" "$pkg"
dir=$(go list -f '{{.Dir}}' "$pkg")
mapfile -t tests < <(cd "$dir" && "$work/pkg.test" -test.list "$pattern" | grep '^Test')
if [ ${#tests[@]} -eq 0 ]; then
  echo "shard.sh: no test of $pkg matches $pattern" >&2
  exit 1
fi
[ "$n" -ge 1 ] || n=1
[ "$n" -le ${#tests[@]} ] || n=${#tests[@]}
echo "shard.sh: ${#tests[@]} tests of $pkg in $n processes"
pids=()
for ((s = 0; s < n; s++)); do
  names=()
  for ((i = s; i < ${#tests[@]}; i += n)); do names+=("${tests[$i]}"); done
  re="^($(IFS='|'; echo "${names[*]}"))\$"
  (cd "$dir" && exec "$work/pkg.test" -test.run "$re" "${run[@]}") > "$work/out.$s" 2>&1 &
  pids+=($!)
done
status=0
for ((s = 0; s < n; s++)); do
  if wait "${pids[$s]}"; then result=ok; else result=FAIL; status=1; fi
  cat "$work/out.$s"
  echo "shard.sh: $pkg shard $((s + 1)) of $n: $result"
done
exit $status
