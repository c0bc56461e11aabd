#!/usr/bin/env bash
# The Debian package as a user meets it (docs/PACKAGING.md): installed with apt on this machine,
# its files checked, the INSTALLED window started from its menu entry (gtk-launch) under Xvfb,
# a PDF opened through the desktop's MIME association (gio open) into the running window and
# again with no window running, the papers checked in the library, screenshots taken; then
# `apt-get purge` and every path the package held is as it was before the install.
# The portable tarball beside it runs from its folder and adds and removes its menu entry.
# The window runs as a fresh user: HOME and the XDG folders are throwaway ones.
# Prints the package's size and the install and removal times.
# Usage: .ci/package-test.sh build/dist/tofu_VERSION_ARCH.deb
set -euo pipefail
deb=$(realpath "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
shots=$root/build/test-shots
papers=$root/../shared/data/papers
fail() { echo "package-test: FAIL: $*" >&2; exit 1; }
[ -f "$deb" ] || fail "no package $1 (make package)"
for f in icml2024_altmeyer_agi_claims multivae_joss; do
  [ -f "$papers/$f/paper.pdf" ] || fail "no $papers/$f/paper.pdf (the shared data beside the repository)"
done

# Installing is root's: CI runs as root; a developer needs sudo without a password.
sudo=""
if [ "$(id -u)" != 0 ]; then
  sudo -n true 2>/dev/null || fail "installing the package needs root: run as root or with sudo that asks no password"
  sudo="sudo -n"
fi

# Inside Xvfb and a session bus of its own, as .ci/window-smoke.sh.
if [ -z "${TOFU_IN_XVFB:-}" ]; then
  TOFU_IN_XVFB=1 exec "$(dirname "$0")/in-xvfb.sh" "$0" "$deb"
fi

apt=($sudo apt-get -o DPkg::Lock::Timeout=600 -y -q)
installed() { dpkg-query -W -f='${Status}' tofu 2>/dev/null | grep -q "install ok installed"; }
if installed || dpkg-query -W -f='${Status}' tofu 2>/dev/null | grep -q config-files; then
  fail "a tofu package is already on this machine: remove it first (apt-get purge tofu); this test installs and removes its own"
fi

work=$(mktemp -d)
pid=""
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null
  kill $(jobs -p) 2>/dev/null || true
  wait 2>/dev/null || true
  # Never leave the package installed, also when a check failed.
  if dpkg-query -W -f='${Status}' tofu 2>/dev/null | grep -qE "installed|config-files"; then
    "${apt[@]}" purge tofu >/dev/null 2>&1 || echo "package-test: could not purge tofu" >&2
  fi
  for _ in 1 2 3 4 5; do rm -rf "$work" 2>/dev/null && return 0; sleep 0.5; done
}
trap cleanup EXIT
mkdir -p "$shots"

# What the package holds, and which of those paths exist before it is installed.
dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|; s|/$||' | grep -v '^$' | sort -u >"$work/paths"
existing() { while read -r p; do if [ -e "$p" ] || [ -L "$p" ]; then echo "$p"; fi; done <"$work/paths"; }
existing >"$work/before"

size=$(stat -c %s "$deb")
t0=$(date +%s%N)
"${apt[@]}" --no-install-recommends install "$deb" >"$work/install.log" 2>&1 || { cat "$work/install.log" >&2; fail "apt-get install"; }
t1=$(date +%s%N)
installed || fail "tofu is not installed after apt-get install"

# The files: one command on the PATH, the window beside the real tofu, the menu entry, icons.
[ "$(readlink /usr/bin/tofu)" = /usr/lib/tofu/tofu ] || fail "/usr/bin/tofu does not link to /usr/lib/tofu/tofu"
[ -x /usr/lib/tofu/tofu-window ] || fail "no /usr/lib/tofu/tofu-window"
/usr/bin/tofu version >/dev/null || fail "tofu version"
# The lean PDF extractor: on the PATH, beside tofu (the app's extracting child), printing what
# tofu paper extract prints.
[ "$(readlink /usr/bin/tofu-pdf)" = /usr/lib/tofu/tofu-pdf ] || fail "/usr/bin/tofu-pdf does not link to /usr/lib/tofu/tofu-pdf"
/usr/bin/tofu-pdf "$papers/specter_acl2020/paper.pdf" >"$work/lean.txt" || fail "tofu-pdf"
/usr/bin/tofu paper extract "$papers/specter_acl2020/paper.pdf" >"$work/full.txt" || fail "tofu paper extract"
cmp -s "$work/lean.txt" "$work/full.txt" || fail "tofu-pdf and tofu paper extract print different text"
entry=/usr/share/applications/tofu.desktop
[ -f "$entry" ] || fail "no menu entry $entry"
if command -v desktop-file-validate >/dev/null; then
  desktop-file-validate "$entry" || fail "the menu entry is not valid"
fi
for n in 16 22 24 32 48 64 128 256 512; do
  f=/usr/share/icons/hicolor/${n}x${n}/apps/tofu.png
  [ "$(identify -format %wx%h "$f")" = "${n}x${n}" ] || fail "icon $f is not ${n}x${n}"
done
# postinst rebuilt the desktop database: "Open with Tofu" is known for PDFs.
if command -v update-desktop-database >/dev/null; then
  grep -q '^application/pdf=.*tofu.desktop' /usr/share/applications/mimeinfo.cache || fail "mimeinfo.cache does not list tofu.desktop for PDFs"
fi
# Every library the window needs is on the machine (the package's dependencies brought them).
if ldd /usr/lib/tofu/tofu-window | grep -q "not found"; then
  ldd /usr/lib/tofu/tofu-window | grep "not found" >&2
  fail "the installed window misses libraries"
fi

# A fresh user. The system's data folders (where the entry is) stay, as in a desktop session;
# the user's default PDF application is Tofu, as after "Open with > Tofu > Set as default".
export HOME=$work/home XDG_DATA_HOME=$work/home/.local/share XDG_CONFIG_HOME=$work/home/.config \
  XDG_CACHE_HOME=$work/home/.cache XDG_STATE_HOME=$work/home/.local/state XDG_DATA_DIRS=/usr/local/share:/usr/share
mkdir -p "$XDG_DATA_HOME" "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME" "$XDG_STATE_HOME"
printf '[Default Applications]\napplication/pdf=tofu.desktop\n' >"$XDG_CONFIG_HOME/mimeapps.list"
gio mime application/pdf >"$work/mime.txt" 2>&1 || true
grep -q "Default application for “application/pdf”: tofu.desktop" "$work/mime.txt" ||
  grep -q 'Default application for "application/pdf": tofu.desktop' "$work/mime.txt" ||
  { cat "$work/mime.txt" >&2; fail "the PDF association does not resolve to tofu.desktop"; }
grep -A20 "Registered applications" "$work/mime.txt" | grep -q tofu.desktop ||
  { cat "$work/mime.txt" >&2; fail "tofu.desktop is not registered for PDFs (its MimeType)"; }
export OLLAMA_HOST=http://127.0.0.1:9 # no model server: the window shows its no-model state
export TOFU_STARTUP_TIMES=1

. "$root/.ci/window-manager.sh"
start_window_manager "$work/openbox.log" || fail "no window manager"

# Waits for the window titled Tofu; sets wid and pid (the process showing it).
wait_window() {
  wid=""
  for _ in $(seq 600); do
    wid=$(xdotool search --onlyvisible --name '^Tofu$' 2>/dev/null | head -1 || true)
    [ -n "$wid" ] && break
    sleep 0.05
  done
  [ -n "$wid" ] || fail "no window titled Tofu appeared ($1)"
  pid=$(xdotool getwindowpid "$wid")
  [ "$(readlink "/proc/$pid/exe")" = /usr/lib/tofu/tofu-window ] || fail "the window is not the installed program: $(readlink "/proc/$pid/exe")"
}
# Waits until the library (asked with the installed tofu, forwarded to the window) holds n papers
# the window has opened in its reader (the reader marks a paper "opened" when it shows it), the
# file name being one of them.
wait_opened() {
  for _ in $(seq 600); do
    /usr/bin/tofu paper list --json >"$work/library.json" 2>/dev/null || true
    if [ "$(grep -o '"opened":' "$work/library.json" | wc -l)" -ge "$1" ] && grep -qF "\"name\":\"$2\"" "$work/library.json"; then
      return 0
    fi
    sleep 0.1
  done
  cat "$work/library.json" >&2
  fail "the reader did not show $2 (the library should hold $1 opened paper(s))"
}
# Waits for the page's first paint with its data: the window prints its start-up timeline
# (TOFU_STARTUP_TIMES, app/window/startup.go) to the output the launcher gave it.
wait_painted() {
  for _ in $(seq 1200); do
    grep -q '^startup: ' "$1" && return 0
    sleep 0.05
  done
  cat "$1" >&2
  fail "the window never painted its page ($1)"
}
# A screenshot of the whole screen; with a paper open, once pdf.js has drawn its first page
# (its area holds the many colours of a drawn page, not a "Drawing page 1…" line; a slow machine gets 30 s, then the shot is
# kept as it is: the checks above are the library's, this is the picture of it).
shoot() {
  for _ in $(seq 60); do
    import -window root "$shots/$1"
    [ "${2:-}" = reader ] || break
    [ "$(convert "$shots/$1" -crop 400x450+340+280 -format %k info:)" -gt 200 ] && break
    sleep 0.5
  done
  [ "$(convert "$shots/$1" -format %k info:)" -gt 64 ] || fail "the screenshot $1 is blank"
}
close_window() {
  window_manager_alive || fail "no window manager to close the window"
  wmctrl -c Tofu || fail "the window manager could not close the window"
  for _ in $(seq 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  kill -0 "$pid" 2>/dev/null && fail "the window did not exit when closed"
  pid=""
}

# 1. From the menu: the desktop entry, as a launcher starts it.
gtk-launch tofu >"$work/launch.out" 2>&1 || { cat "$work/launch.out" >&2; fail "gtk-launch tofu"; }
wait_window "gtk-launch tofu"
wait_painted "$work/launch.out"
shoot package-launched.png

# 2. A PDF opened from the file manager while Tofu runs: handed to the running window, which
# adds it to the library and shows it in the reader. The name has a space, as real ones do.
cp "$papers/icml2024_altmeyer_agi_claims/paper.pdf" "$work/AGI claims.pdf"
cp "$papers/multivae_joss/paper.pdf" "$work/multivae.pdf"
gio open "$work/AGI claims.pdf" >"$work/open1.out" 2>&1 || { cat "$work/open1.out" >&2; fail "gio open (window running)"; }
wait_opened 1 "AGI claims.pdf"
shoot package-open-running.png reader
close_window

# 3. A PDF opened with no Tofu running: the window starts with it.
gio open "$work/multivae.pdf" >"$work/open2.out" 2>&1 || { cat "$work/open2.out" >&2; fail "gio open (no window)"; }
wait_window "gio open with no window"
wait_painted "$work/open2.out"
wait_opened 2 multivae.pdf
shoot package-open-start.png reader
close_window

# 4. Removal: every path of the package is as it was before; the user's data stays.
t2=$(date +%s%N)
"${apt[@]}" purge tofu >"$work/purge.log" 2>&1 || { cat "$work/purge.log" >&2; fail "apt-get purge"; }
t3=$(date +%s%N)
dpkg-query -W -f='${Status}' tofu 2>/dev/null | grep -qE "installed|config-files" && fail "tofu is still known to dpkg after purge"
existing >"$work/after"
if ! diff "$work/before" "$work/after" >"$work/left"; then
  cat "$work/left" >&2
  fail "the purge left files of the package behind (> lines)"
fi
ls /var/lib/dpkg/info/tofu.* >/dev/null 2>&1 && fail "dpkg's records of tofu remain"
if command -v update-desktop-database >/dev/null && grep -q tofu.desktop /usr/share/applications/mimeinfo.cache; then
  fail "mimeinfo.cache still lists tofu.desktop"
fi
[ -d "$XDG_DATA_HOME/tofu" ] || fail "the user's data went with the package"

# 5. The portable tarball beside the package: it runs from its folder, and install-desktop.sh
# adds its entry (pointing at that folder) to the user's own menu and takes it away again.
tgz=$(ls "$(dirname "$deb")"/tofu-*-linux-*.tar.gz 2>/dev/null | head -1)
[ -n "$tgz" ] || fail "no portable tarball beside $deb (make package writes both)"
mkdir -p "$work/portable" && tar -xzf "$tgz" -C "$work/portable"
top=$(ls -d "$work"/portable/tofu-*)
"$top/tofu" version >/dev/null || fail "the tarball's tofu does not run"
[ -x "$top/tofu-pdf" ] || fail "the tarball has no tofu-pdf beside tofu"
"$top/install-desktop.sh" || fail "install-desktop.sh"
grep -qxF "Exec=\"$top/tofu\" open %F" "$XDG_DATA_HOME/applications/tofu.desktop" || fail "the tarball's entry does not run its own tofu"
if command -v desktop-file-validate >/dev/null; then
  desktop-file-validate "$XDG_DATA_HOME/applications/tofu.desktop" || fail "the tarball's entry is not valid"
fi
[ -f "$XDG_DATA_HOME/icons/hicolor/48x48/apps/tofu.png" ] || fail "the tarball's icons were not installed"
"$top/install-desktop.sh" --remove || fail "install-desktop.sh --remove"
[ ! -e "$XDG_DATA_HOME/applications/tofu.desktop" ] && [ -z "$(find "$XDG_DATA_HOME/icons" -name tofu.png)" ] ||
  fail "install-desktop.sh --remove left the entry or icons"

echo "package-test: ok"
echo "  package:   $(basename "$deb"), $((size / 1024 / 1024)) MB ($(dpkg-deb -f "$deb" Installed-Size) KB installed)"
echo "  install:   $(((t1 - t0) / 1000000)) ms (apt-get install, dependencies already present)"
echo "  purge:     $(((t3 - t2) / 1000000)) ms"
echo "  tarball:   $(basename "$tgz"), $(($(stat -c %s "$tgz") / 1024 / 1024)) MB"
echo "  screenshots: $shots/package-launched.png package-open-running.png package-open-start.png"
