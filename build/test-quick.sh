#!/usr/bin/env bash
# The edit-compile-test loop (`make test-quick`): the unit tests of the packages you changed,
# not the whole suite. Changed means: files changed against HEAD (staged, unstaged or
# untracked); with none, the files of the last commit. A changed .go file tests its package
# (and, for a _test.go file, only that package); a changed front-end file runs the vitest files
# that import it (vitest related). Offline, like `make test`; no race detector (make test-go
# runs that). QUICK_BASE=<rev> compares with that revision instead (a branch's whole change).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${QUICK_BASE:-}" ]; then
  files=$(git diff --name-only "$QUICK_BASE" --)
else
  files=$( { git diff --name-only HEAD --; git ls-files --others --exclude-standard; } | sort -u)
  [ -n "$files" ] || files=$(git diff --name-only HEAD~1 HEAD --)
fi
pkgs=() front=()
for f in $files; do
  [ -e "$f" ] || continue
  case "$f" in
    *.go) pkgs+=("./$(dirname "$f")/") ;;
    frontend/src/*) front+=("${f#frontend/}") ;;
  esac
done
if [ ${#pkgs[@]} -eq 0 ] && [ ${#front[@]} -eq 0 ]; then
  echo "test-quick: no changed Go or front-end file"
  exit 0
fi
status=0
if [ ${#pkgs[@]} -gt 0 ]; then
  mapfile -t pkgs < <(printf '%s\n' "${pkgs[@]}" | sort -u)
  echo "test-quick: go test ${pkgs[*]}"
  # The window's packages need cgo and the webkit tag; the rest build without cgo, as in make test-go.
  win=() rest=()
  for p in "${pkgs[@]}"; do
    case "$p" in ./app/window/) win+=("$p") ;; *) rest+=("$p") ;; esac
  done
  if [ ${#rest[@]} -gt 0 ]; then build/offline.sh env CGO_ENABLED=0 go test -count=1 "${rest[@]}" || status=1; fi
  if [ ${#win[@]} -gt 0 ]; then build/offline.sh go test -count=1 -tags webkit2_41 "${win[@]}" || status=1; fi
fi
if [ ${#front[@]} -gt 0 ]; then
  echo "test-quick: vitest related ${front[*]}"
  (cd frontend && npx vitest related --run "${front[@]}") || status=1
fi
exit $status
