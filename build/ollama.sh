#!/usr/bin/env bash
# Prints the path of a real `ollama` binary for the contract tests (make test-ollama), building
# it on first use from the Go module proxy with cgo (about 1.5 min on a quiet 2-core machine)
# into the user's cache, keyed by version, so later runs pay nothing. Needs gcc, g++,
# nlohmann-json3-dev and libstb-dev (build/setup.sh test installs them) and, the first time, the
# network to download the module.
set -euo pipefail
version=v0.6.8 # realollama.Version
dir="${XDG_CACHE_HOME:-$HOME/.cache}/tofu/ollama/$version"
if [ ! -x "$dir/ollama" ]; then
  echo "ollama.sh: building ollama $version into $dir (first run only)" >&2
  mkdir -p "$dir.tmp"
  start=$SECONDS
  GOBIN="$dir.tmp" CGO_ENABLED=1 GOFLAGS= go install "github.com/ollama/ollama@$version" >&2
  rm -rf "$dir" && mv "$dir.tmp" "$dir"
  echo "ollama.sh: built in $((SECONDS - start)) s" >&2
fi
echo "$dir/ollama"
