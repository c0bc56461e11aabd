#!/usr/bin/env bash
# Prints the folder of a real Dendrite (the Matrix homeserver in Go) for the bridge's Matrix
# tests (make test-matrix): dendrite, generate-config, generate-keys and create-account, built
# on first use from the Go module proxy with cgo (SQLite) into the user's cache, keyed by
# version, so later runs pay nothing (about 15 min on a loaded 2-core machine). The first time
# needs the network to download the module.
set -euo pipefail
version=v0.13.8
dir="${XDG_CACHE_HOME:-$HOME/.cache}/tofu/dendrite/$version"
if [ ! -x "$dir/dendrite" ]; then
  echo "dendrite.sh: building dendrite $version into $dir (first run only)" >&2
  mkdir -p "$dir.tmp"
  start=$SECONDS
  GOBIN="$dir.tmp" CGO_ENABLED=1 GOFLAGS= go install \
    "github.com/matrix-org/dendrite/cmd/dendrite@$version" \
    "github.com/matrix-org/dendrite/cmd/create-account@$version" \
    "github.com/matrix-org/dendrite/cmd/generate-keys@$version" \
    "github.com/matrix-org/dendrite/cmd/generate-config@$version" >&2
  rm -rf "$dir" && mv "$dir.tmp" "$dir"
  echo "dendrite.sh: built in $((SECONDS - start)) s" >&2
fi
echo "$dir"
