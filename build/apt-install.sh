#!/usr/bin/env bash
# Installs Debian packages, waiting for another package manager to finish first. On a fresh
# Ubuntu laptop the automatic updates hold dpkg's lock for a while in the first hour; apt-get
# then fails at once with "Could not get lock". `DPkg::Lock::Timeout` makes `apt-get install`
# wait for the dpkg lock, but `apt-get update` ignores it for the package lists' lock (apt 2.6),
# so both steps are retried here while their error is a held lock, for up to 15 minutes.
#   build/apt-install.sh PACKAGE...
# APT_GET and APT_WAIT_STEP (seconds between tries) exist for the test (build/setup_test.go).
set -euo pipefail
apt_get=${APT_GET:-apt-get}
step=${APT_WAIT_STEP:-5}
limit=900
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
[ -z "${APT_GET:-}" ] || sudo=""

# run ARGS...: apt-get ARGS, tried again while another process holds one of apt's locks.
run() {
  local err waited=0
  while ! err=$($sudo env DEBIAN_FRONTEND=noninteractive "$apt_get" -o DPkg::Lock::Timeout=$limit "$@" 2>&1 >/dev/null); do
    if grep -q "Could not get lock" <<<"$err" && [ "$waited" -lt "$limit" ]; then
      if [ "$waited" = 0 ]; then
        holder=$(grep -o 'held by process [0-9]* ([^)]*)' <<<"$err" | head -1 || true)
        echo "setup: another package manager is running${holder:+ (${holder#held by })}; waiting for it to finish" >&2
      fi
      sleep "$step"
      waited=$((waited + ${step%.*} + 1))
      continue
    fi
    printf '%s\n' "$err" >&2
    return 1
  done
  # Warnings (W: lines) are worth seeing even when apt-get succeeds.
  [ -z "$err" ] || printf '%s\n' "$err" >&2
}

run update -qq
run install -y -qq --no-install-recommends "$@"
