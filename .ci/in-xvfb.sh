#!/usr/bin/env bash
# Runs a command on an X display of its own (Xvfb, 1280x900x24, no TCP) inside a session bus of
# its own (dbus-run-session), as the window's checks need: .ci/in-xvfb.sh CMD [ARG…].
# Xvfb chooses a free display and says which (-displayfd), so checks started side by side (make
# test runs two at a time) never share one; xvfb-run -a guesses the number from lock files, and
# two started together can guess the same.
set -euo pipefail
said=$(mktemp)
Xvfb -displayfd 3 -screen 0 1280x900x24 -nolisten tcp 3>"$said" 2>/dev/null &
xvfb=$!
session=
cleanup() {
  [ -z "$session" ] || pkill -s "$session" 2>/dev/null || true
  kill "$xvfb" 2>/dev/null || true
  wait "$xvfb" 2>/dev/null || true
  rm -f "$said"
}
trap cleanup EXIT
# The number is written, with a newline, once the server accepts connections.
for _ in $(seq 300); do
  grep -q '^[0-9][0-9]*$' "$said" && break
  kill -0 "$xvfb" 2>/dev/null || { echo "in-xvfb: Xvfb exited before choosing a display" >&2; exit 1; }
  sleep 0.05
done
grep -q '^[0-9][0-9]*$' "$said" || { echo "in-xvfb: Xvfb chose no display in 15 s" >&2; exit 1; }
# In a session of its own, so that what it leaves behind can be found: the accessibility bus's
# registry, activated on the session bus, is still connected to the display for a moment after
# the bus goes, and says "X connection broken" if the display goes first. (-w: setsid forks
# when it leads a process group, and then answers for the command's status.)
DISPLAY=:$(head -1 "$said") setsid -w dbus-run-session -- "$@" <&0 &
session=$!
status=0
wait "$session" || status=$?
for _ in $(seq 40); do
  pgrep -s "$session" >/dev/null || break
  sleep 0.05
done
exit "$status"
