# Sourced by the window checks: start_window_manager LOG starts openbox on $DISPLAY and returns
# once it manages the screen (it answers wmctrl -m and publishes its client list), so that what
# the check later asks of it (closing the window as a user does) does not race its start on a
# busy machine. window_manager_alive says, with its log, when it has gone since.
start_window_manager() {
  wm_log=$1
  openbox >"$wm_log" 2>&1 &
  wm_pid=$!
  for _ in $(seq 300); do
    kill -0 "$wm_pid" 2>/dev/null || { cat "$wm_log" >&2; echo "window manager: openbox exited at start" >&2; return 1; }
    wmctrl -m >/dev/null 2>&1 && wmctrl -l >/dev/null 2>&1 && return 0
    sleep 0.05
  done
  cat "$wm_log" >&2
  echo "window manager: openbox did not manage the screen within 15 s" >&2
  return 1
}

window_manager_alive() {
  kill -0 "$wm_pid" 2>/dev/null && return 0
  cat "$wm_log" >&2
  echo "window manager: openbox exited during the check" >&2
  return 1
}
