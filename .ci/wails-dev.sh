#!/usr/bin/env bash
# `wails dev` from the repository root, the Wails developer's daily loop: it starts the front
# end's dev server (vite, live reload), builds the top-level package with the dev tag (the window
# program, main_window.go), opens the window under Xvfb and serves the page to browsers on the
# dev server address. The check: the page is served there, with the front end's root element.
# Needs what make build needs, and Xvfb. A fresh user (empty data, config and cache dirs).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${TOFU_IN_XVFB:-}" ]; then
  TOFU_IN_XVFB=1 exec "$(dirname "$0")/in-xvfb.sh" "$0" "$@"
fi
work=$(mktemp -d)
log=$work/wails-dev.log
cleanup() {
  [ -n "${pid:-}" ] && kill -- -"$pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "wails-dev: FAIL: $*" >&2; tail -40 "$log" >&2; exit 1; }
# Go's caches stay the user's (the build is the slow part); Tofu's own directories are fresh.
export XDG_DATA_HOME=$work/data XDG_CONFIG_HOME=$work/config
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# -m, -nosyncgomod: leave go.mod alone; -skipbindings: the front end calls Go through its own
# bridge (frontend/src/lib/bridge.ts), not generated bindings; -s: vite serves the source.
setsid go tool wails dev -m -nosyncgomod -skipbindings -s -nocolour -devserver "127.0.0.1:$port" </dev/null >"$log" 2>&1 &
pid=$!
start=$(date +%s)
# The first dev build compiles every package again with the dev tag: minutes on a loaded machine.
deadline=$((start + ${WAILS_DEV_TIMEOUT:-900}))
while :; do
  if curl -fsS "http://127.0.0.1:$port/" 2>/dev/null | grep -q 'id="app"'; then break; fi
  kill -0 "$pid" 2>/dev/null || fail "wails dev exited before serving the page"
  [ "$(date +%s)" -lt "$deadline" ] || fail "wails dev served no page on 127.0.0.1:$port in ${WAILS_DEV_TIMEOUT:-900} s"
  sleep 1
done
# The page is the front end's source through vite (live reload), not the built bundle.
curl -fsS "http://127.0.0.1:$port/" | grep -q '/src/main.ts' || fail "the page served is not vite's (no /src/main.ts)"
grep -q "Vite Server URL" "$log" || fail "wails dev did not start the front end's dev server"
echo "wails-dev: ok (page served after $(( $(date +%s) - start )) s)"
