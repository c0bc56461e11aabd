#!/usr/bin/env bash
# Runs a command on an X display of its own (Xvfb, 1280x900x24, no TCP) inside a session bus of
# its own (dbus-run-session), as the window's checks need: .ci/in-xvfb.sh CMD [ARG…].
# The display is one no other X server on the machine holds, whatever network namespace it runs
# in: Xvfb claims :N with its lock file (/tmp/.XN-lock, made atomically, holding its pid) and
# exits when another holds it. (-displayfd takes no lock: it picks the first number whose socket
# is free in its own network namespace, and build/offline.sh gives every check one of its own,
# so checks side by side all got :0 and shared /tmp/.X11-unix/X0.) Numbers from 20 up, clear of
# the desktop's own and of the Go tests' servers (backend/desktop/desktoptest, -displayfd).
set -euo pipefail
log=$(mktemp)
xvfb=
session=
cleanup() {
  [ -z "$session" ] || pkill -s "$session" 2>/dev/null || true
  [ -z "$xvfb" ] || kill "$xvfb" 2>/dev/null || true
  [ -z "$xvfb" ] || wait "$xvfb" 2>/dev/null || true
  rm -f "$log"
}
trap cleanup EXIT
# The pid in display n's lock file, if any.
holder() { tr -d ' \n' <"/tmp/.X$1-lock"; } 2>/dev/null
display=
for n in $(seq 20 99); do
  Xvfb ":$n" -screen 0 1280x900x24 -nolisten tcp >"$log" 2>&1 &
  xvfb=$!
  # Ours once its lock names it; another's if it exits first (the lock was held).
  for _ in $(seq 300); do
    [ "$(holder "$n")" = "$xvfb" ] && break
    kill -0 "$xvfb" 2>/dev/null || break
    sleep 0.05
  done
  if [ "$(holder "$n")" = "$xvfb" ]; then
    # Claimed: wait until it takes clients.
    for _ in $(seq 300); do
      kill -0 "$xvfb" 2>/dev/null || break
      DISPLAY=:$n xdotool getdisplaygeometry >/dev/null 2>&1 && { display=$n; break 2; }
      sleep 0.05
    done
    echo "in-xvfb: Xvfb :$n $(kill -0 "$xvfb" 2>/dev/null && echo "took no client in 15 s" || echo exited); it said:" >&2
    cat "$log" >&2
    exit 1
  fi
  kill "$xvfb" 2>/dev/null || true
  wait "$xvfb" 2>/dev/null || true
  xvfb=
done
[ -n "$display" ] || { echo "in-xvfb: no free display from :20 to :99" >&2; exit 1; }
# In a session of its own, so that what it leaves behind can be found: the accessibility bus's
# registry, activated on the session bus, is still connected to the display for a moment after
# the bus goes, and says "X connection broken" if the display goes first. (-w: setsid forks
# when it leads a process group, and then answers for the command's status.)
DISPLAY=:$display setsid -w dbus-run-session -- "$@" <&0 &
session=$!
status=0
wait "$session" || status=$?
for _ in $(seq 40); do
  pgrep -s "$session" >/dev/null || break
  sleep 0.05
done
exit "$status"
