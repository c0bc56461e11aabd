#!/usr/bin/env bash
# Streams 1,000 tokens at 100 tokens/s from the scripted model through `tofu serve` into headless
# Chromium and reports the page's main-thread cost per token. Usage: .ci/bench-ui.sh build/bin/tofu
set -euo pipefail
bin=$(realpath "$1")
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
go build -o "$work/llmtestd" ./backend/llm/scripted/cmd/llmtestd
"$work/llmtestd" -addr 127.0.0.1:0 >"$work/model.out" 2>&1 &
for _ in $(seq 50); do grep -q '^http' "$work/model.out" && break; sleep 0.1; done
OLLAMA_HOST=$(head -1 "$work/model.out") XDG_DATA_HOME=$work/data "$bin" serve >"$work/serve.out" 2>&1 &
for _ in $(seq 50); do grep -q 'http' "$work/serve.out" && break; sleep 0.1; done
url=$(grep -o 'http://[^ ]*' "$work/serve.out" | head -1)
cd frontend && TOFU_URL=$url node e2e/stream-bench.mjs
