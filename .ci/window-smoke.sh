#!/usr/bin/env bash
# Smoke test of the real window under Xvfb: `tofu` (the command line) started without a command
# becomes the window program beside it (tofu-window, the same process), a window titled "Tofu"
# appears and paints (the screenshot is not blank), a second instance is refused with a clear
# message, tofu chat beside it is forwarded to it, and closing the window (as a window manager
# does) exits cleanly and removes its command socket.
# Prints start-up and memory figures. Usage: .ci/window-smoke.sh build/bin/tofu [shot.png]
set -euo pipefail
bin=$(realpath "$1")
ci=$(cd "$(dirname "$0")" && pwd)
[ -x "$(dirname "$bin")/tofu-window" ] || { echo "window-smoke: FAIL: no tofu-window beside $bin (make build)" >&2; exit 1; }
shot=${2:-build/test-shots/window.png}
mkdir -p "$(dirname "$shot")"

# Inside a session bus of its own, as a desktop session has one: without it GTK's accessibility
# bridge autolaunches a session bus (dbus-launch) and the AT-SPI bus, which outlive the test.
if [ -z "${TOFU_IN_XVFB:-}" ]; then
  TOFU_IN_XVFB=1 exec "$(dirname "$0")/in-xvfb.sh" "$0" "$bin" "$shot"
fi

work=$(mktemp -d)
# Cleanup never fails the test: a WebKit helper that outlives the window for a moment can still
# be writing its cache when the first rm runs ("Directory not empty").
cleanup() {
  kill $(jobs -p) 2>/dev/null || true
  wait 2>/dev/null || true
  for _ in 1 2 3 4 5; do rm -rf "$work" 2>/dev/null && return 0; sleep 0.5; done
  echo "window-smoke: could not remove $work" >&2
}
trap cleanup EXIT
fail() { echo "window-smoke: FAIL: $*" >&2; exit 1; }

# A scripted model, so the window shows a model instead of the "cannot reach Ollama" banner.
# Built before HOME moves, so Go finds its module and build caches.
cd "$(dirname "$0")/.."
go build -o "$work/llmtestd" ./backend/llm/scripted/cmd/llmtestd
# A fresh user: empty data, config and cache directories.
export XDG_DATA_HOME=$work/data XDG_CONFIG_HOME=$work/config XDG_CACHE_HOME=$work/cache HOME=$work
"$work/llmtestd" -addr 127.0.0.1:0 >"$work/llmtestd.out" 2>&1 &
for _ in $(seq 50); do grep -q '^http' "$work/llmtestd.out" && break; sleep 0.1; done
export OLLAMA_HOST=$(head -1 "$work/llmtestd.out")

. "$ci/window-manager.sh"
start_window_manager "$work/openbox.log" || fail "no window manager"
# The accessibility bus, started as a desktop session starts it at login (at-spi2-core's
# /etc/xdg/autostart/at-spi-dbus-bus.desktop): without it GTK's accessibility bridge has the
# session bus activate it as the window starts, and waits for it (0.3 s or more here) — a cost
# the user's desktop has already paid, which the start-up figures below must not count.
if [ -x /usr/libexec/at-spi-bus-launcher ]; then
  /usr/libexec/at-spi-bus-launcher --launch-immediately >/dev/null 2>&1 &
  for _ in $(seq 100); do
    gdbus call --session --dest org.freedesktop.DBus --object-path / --method org.freedesktop.DBus.NameHasOwner org.a11y.Bus 2>/dev/null | grep -q true && break
    sleep 0.05
  done
fi
sleep 0.5

start=$(date +%s%N)
TOFU_STARTUP_TIMES=1 "$bin" >"$work/tofu.out" 2>&1 &
pid=$!

wid=""
for _ in $(seq 300); do
  kill -0 $pid 2>/dev/null || { cat "$work/tofu.out" >&2; fail "tofu exited at start"; }
  wid=$(xdotool search --onlyvisible --name '^Tofu$' 2>/dev/null | head -1 || true)
  [ -n "$wid" ] && break
  sleep 0.05
done
[ -n "$wid" ] || fail "no window titled Tofu appeared"
mapped=$(date +%s%N)

# First paint, measured from inside: the front end marks its first frame with the data the
# shell waits for and the window prints the timeline (app/window/startup.go) on the process's
# clock. The screenshots below only check that the window is not blank.
for _ in $(seq 600); do
  grep -q '^startup: ' "$work/tofu.out" && break
  kill -0 $pid 2>/dev/null || { cat "$work/tofu.out" >&2; fail "tofu exited before its first paint"; }
  sleep 0.05
done
timeline=$(grep -m1 '^startup: ' "$work/tofu.out" | sed 's/^startup: //')
[ -n "$timeline" ] || fail "the window printed no start-up timeline (TOFU_STARTUP_TIMES)"
mark() { sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p" <<<"$timeline" | cut -d. -f1; }

# The window shows the front end (many colours) rather than a blank background.
colors=0
for _ in $(seq 200); do
  import -window "$wid" "$shot" 2>/dev/null || true
  colors=$(convert "$shot" -format %k info: 2>/dev/null || echo 0)
  [ "$colors" -gt 64 ] && break
  sleep 0.05
done
painted=$(date +%s%N)
[ "$colors" -gt 64 ] || fail "the window stayed blank ($colors colours)"
title=$(xdotool getwindowname "$wid")
[ "$title" = "Tofu" ] || fail "window title is '$title'"

sleep 2 # let it settle (model list loaded) before measuring memory and taking the final picture
import -window root "$shot"
rss_kb=0
pss_kb=0
# Tofu and its children (the WebKit web and network processes): not every WebKit process on
# the machine, which would count other windows running beside this test.
per_process=""
for p in $pid $(pgrep -P $pid || true); do
  r=$(awk '/^VmRSS/{print $2}' /proc/$p/status 2>/dev/null || echo 0)
  s=$(awk '/^Pss:/{print $2}' /proc/$p/smaps_rollup 2>/dev/null || echo 0)
  rss_kb=$((rss_kb + r))
  pss_kb=$((pss_kb + s))
  per_process="$per_process $(cat /proc/$p/comm 2>/dev/null || echo gone) $((s / 1024)),"
done
# The Go process draws nothing with OpenGL (app/cli/window_env.go): Mesa's driver, and the LLVM
# it links (~20 MB a process), must not be loaded there.
if grep -qE '/dri/|libLLVM' /proc/$pid/maps; then
  fail "the Tofu process loaded a GL driver: $(grep -oE '[^ ]*(/dri/|libLLVM)[^ ]*' /proc/$pid/maps | sort -u | tr '\n' ' ')"
fi

# A second instance must say Tofu is already running, not crash on the database lock.
if "$bin" >"$work/second.out" 2>&1; then fail "a second instance started"; fi
grep -q "already running" "$work/second.out" || { cat "$work/second.out" >&2; fail "second instance message"; }

# Beside the window, tofu chat is forwarded to it over the command socket (0600), not refused.
sock=$XDG_DATA_HOME/tofu/tofu.sock
[ "$(stat -c %a "$sock")" = 600 ] || fail "the command socket is not 0600"
"$bin" chat "hello from the terminal" >"$work/chat.out" 2>"$work/chat.err" || { cat "$work/chat.err" >&2; fail "tofu chat beside the window"; }
grep -q "(conversation " "$work/chat.err" || { cat "$work/chat.err" >&2; fail "tofu chat beside the window"; }

# Close the window the way a user does (the window manager asks it to close).
window_manager_alive || fail "no window manager to close the window"
wmctrl -c Tofu || fail "the window manager could not close the window"
for _ in $(seq 200); do kill -0 $pid 2>/dev/null || break; sleep 0.05; done
kill -0 $pid 2>/dev/null && fail "tofu did not exit after its window was closed"
wait $pid || fail "tofu exited with status $? after close"
[ ! -e "$sock" ] || fail "the command socket outlived the window"
# What the window prints at every launch is noise a user reads as trouble (app/window/signal_linux.go).
if grep -E "Overriding existing handler for signal|Gtk-CRITICAL" "$work/tofu.out" >&2; then fail "the window printed noise"; fi

echo "window-smoke: ok"
echo "  window mapped:        $(( (mapped - start) / 1000000 )) ms after start (polled)"
echo "  first paint:          $(mark ready) ms after the process started (page load began at $(mark page) ms, index.html in at $(mark html) ms, its script asked for at $(mark bundle) ms and run at $(mark script) ms, the shell mounted at $(mark mounted) ms, its first frame at $(mark shell) ms, conversations at $(mark data) ms, model status at $(mark models) ms; Wails started at $(mark run) ms)"
echo "  not blank on screen:  $(( (painted - start) / 1000000 )) ms after start (polled screenshots, coarse)"
echo "  idle memory (RSS):    $(( rss_kb / 1024 )) MB (Go process + WebKit processes; PSS $(( pss_kb / 1024 )) MB, shared pages counted once)"
echo "  idle PSS per process:${per_process%,} MB"
echo "  binary size:          tofu $(( $(stat -c %s "$bin") / 1024 / 1024 )) MB, tofu-window $(( $(stat -c %s "$(dirname "$bin")/tofu-window") / 1024 / 1024 )) MB"
echo "  screenshot:           $shot"
