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

# npm packages, only when the lock file changed since the last install. Not `npm ci`: vite lists
# a Windows-only optional package the registry here does not serve, which `npm ci` rejects.
if [ ! -f frontend/node_modules/.package-lock.json ] || [ frontend/package-lock.json -nt frontend/node_modules/.package-lock.json ]; then
  (cd frontend && npm install --no-audit --no-fund --loglevel=error)
fi
# The real programs the tests drive offline (MCP servers, the MCP inspector, the coding agents),
# in build/tools. A clean clone (CI's) takes them from a copy kept in ~/.cache/tofu by the lock
# file's hash, as build/ollama.sh keeps its server: hard links, well under a second where npm
# takes ~20 s. A copy with any file changed since it was made is not used, nor kept.
tools_cache() {
  local key
  key=$(sha256sum build/tools/package-lock.json | cut -c1-16)
  echo "${XDG_CACHE_HOME:-$HOME/.cache}/tofu/test-tools/$key"
}
tools_from_cache() {
  local cache=$1
  [ -f "$cache/complete" ] && [ -z "$(find "$cache/node_modules" -newer "$cache/complete" -print -quit)" ] || return 1
  rm -rf build/tools/node_modules
  cp -al "$cache/node_modules" build/tools/node_modules 2>/dev/null || { rm -rf build/tools/node_modules; return 1; }
}
tools_keep() {
  local cache=$1 tmp
  mkdir -p "$(dirname "$cache")"
  tmp=$(mktemp -d "$cache.XXXXXX")
  if cp -al build/tools/node_modules "$tmp/node_modules" 2>/dev/null && touch "$tmp/complete"; then
    find "$(dirname "$cache")" -mindepth 1 -maxdepth 1 -not -path "$tmp" -exec rm -rf {} +
    mv "$tmp" "$cache"
  else
    rm -rf "$tmp" # another file system: nothing to link from
  fi
}
# build/tools/node_modules/.tofu-lock names the lock file it was installed from (written anew,
# never through a link into the copy).
if [ "${1:-run}" = test ]; then
  cache=$(tools_cache)
  if [ "$(cat build/tools/node_modules/.tofu-lock 2>/dev/null)" != "$(basename "$cache")" ]; then
    if tools_from_cache "$cache"; then
      echo "setup: the programs the tests drive, linked from $cache"
    else
      echo "setup: installing the programs the tests drive (MCP servers; Claude Code, Codex and OpenCode for the agent tests): about 1.3 GB into build/tools/node_modules, once"
      (cd build/tools && npm install --no-audit --no-fund --loglevel=error)
      tools_keep "$cache"
    fi
    rm -f build/tools/node_modules/.tofu-lock
    basename "$cache" > build/tools/node_modules/.tofu-lock
  fi
fi
go mod download
