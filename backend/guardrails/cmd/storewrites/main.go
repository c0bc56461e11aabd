// Command storewrites is the storewrites check as a vet tool:
// go vet -vettool=$(command -v storewrites) ./...
package main

import (
	"golang.org/x/tools/go/analysis/unitchecker"

	"github.com/tofu-research/tofu/backend/guardrails/storewrites"
)

func main() { unitchecker.Main(storewrites.Analyzer) }
