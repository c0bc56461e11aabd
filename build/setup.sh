#!/usr/bin/env bash
# Installs what Tofu needs on Debian/Ubuntu, skipping what is already there.
#   build/setup.sh run   - to build and open the app (GTK, WebKitGTK 4.1, npm packages)
#   build/setup.sh test  - the same plus what the tests use (Chromium, Xvfb, poppler, …)
set -euo pipefail
cd "$(dirname "$0")/.."

# bubblewrap: the sandbox every command of the agent runs in (backend/sandbox).
need=(libgtk-3-dev libwebkit2gtk-4.1-dev pkg-config bubblewrap)
if [ "${1:-run}" = test ]; then
  # gcc: the Go tests run with the race detector, which needs cgo. ripgrep: the grep tool's
  # faster engine, whose agreement with the built-in one is tested. Not poppler-data: the CJK
  # tables ship inside Tofu, and --no-install-recommends keeps poppler-utils from pulling it in.
  need+=(git gcc libc6-dev chromium xvfb xauth imagemagick xdotool openbox wmctrl poppler-utils ripgrep iproute2 util-linux fonts-noto-color-emoji)
  # dbus-daemon: dbus-run-session, the window smoke test's session bus; libglib2.0-bin: gdbus,
  # with which it waits for the accessibility bus it starts as a desktop session does.
  need+=(dbus-daemon libglib2.0-bin)
  # A CJK font (4 MB), so the screenshots of the Chinese and Japanese UI show their text
  # (frontend/e2e/commands-shot.mjs) rather than empty boxes; the tests do not read it.
  need+=(fonts-droid-fallback)
  # The package test (.ci/package-test.sh): gtk-launch starts the installed menu entry, gio
  # (libglib2.0-bin) opens a PDF with it; desktop-file-utils validates the entry and builds the
  # desktop database its postinst updates.
  need+=(libgtk-3-bin desktop-file-utils)
  # The desktop tests: real apps (xterm, zenity), independent observers (x11-utils: xprop,
  # xwininfo, xev; xclip), and a session bus with AT-SPI for the accessibility view.
  need+=(xterm zenity xclip x11-utils dbus-x11 at-spi2-core)
  # A real Ollama server for the provider's contract tests, built with cgo (build/ollama.sh).
  need+=(g++ nlohmann-json3-dev libstb-dev)
fi

missing=()
for p in "${need[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  build/apt-install.sh "${missing[@]}"
fi

command -v go >/dev/null || { echo "setup: Go 1.26 is required (https://go.dev/dl); it was not found on PATH" >&2; exit 1; }
command -v npm >/dev/null || { echo "setup: Node.js 20.19+ with npm is required; it was not found on PATH" >&2; exit 1; }
node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a==20&&b>=19)?0:1)' ||
  { echo "setup: Node.js 20.19 or newer is required (found $(node --version))" >&2; exit 1; }

# npm packages, installed when DIR's lock file changed since the last install. A clean clone
# (CI's) takes them from a copy kept in ~/.cache/tofu/KIND by the lock file's hash, as
# build/ollama.sh keeps its server: hard links, well under a second where npm takes 6 s (the
# front end's) or ~20 s (the test tools'). A copy with any file changed since it was made is not
# used, nor kept. DIR/node_modules/.tofu-lock names the lock file it came from (written anew,
# never through a link into the copy). Not `npm ci`: vite lists a Windows-only optional package
# the registry here does not serve, which `npm ci` rejects.
npm_packages() {
  local dir=$1 kind=$2 what=$3 first=$4 key cache
  key=$(sha256sum "$dir/package-lock.json" | cut -c1-16)
  cache="${XDG_CACHE_HOME:-$HOME/.cache}/tofu/$kind/$key"
  [ "$(cat "$dir/node_modules/.tofu-lock" 2>/dev/null)" != "$key" ] || return 0
  if packages_from_cache "$dir" "$cache"; then
    echo "setup: $what, linked from $cache"
  else
    echo "setup: installing $what$first"
    (cd "$dir" && npm install --no-audit --no-fund --loglevel=error)
    packages_keep "$dir" "$cache"
  fi
  rm -f "$dir/node_modules/.tofu-lock"
  echo "$key" > "$dir/node_modules/.tofu-lock"
}
packages_from_cache() {
  local dir=$1 cache=$2
  [ -f "$cache/complete" ] && [ -z "$(find "$cache/node_modules" -newer "$cache/complete" -print -quit)" ] || return 1
  rm -rf "$dir/node_modules"
  cp -al "$cache/node_modules" "$dir/node_modules" 2>/dev/null || { rm -rf "$dir/node_modules"; return 1; }
}
packages_keep() {
  local dir=$1 cache=$2 tmp
  mkdir -p "$(dirname "$cache")"
  tmp=$(mktemp -d "$cache.XXXXXX")
  if cp -al "$dir/node_modules" "$tmp/node_modules" 2>/dev/null && touch "$tmp/complete"; then
    find "$(dirname "$cache")" -mindepth 1 -maxdepth 1 -not -path "$tmp" -exec rm -rf {} +
    mv "$tmp" "$cache"
  else
    rm -rf "$tmp" # another file system: nothing to link from
  fi
}
npm_packages frontend frontend-packages "the front end's npm packages" ""
# The real programs the tests drive offline (MCP servers, the MCP inspector, the coding agents).
if [ "${1:-run}" = test ]; then
  npm_packages build/tools test-tools "the programs the tests drive" \
    " (MCP servers; Claude Code, Codex and OpenCode for the agent tests): about 1.3 GB into build/tools/node_modules, once"
fi
go mod download
