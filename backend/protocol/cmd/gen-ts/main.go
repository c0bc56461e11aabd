// Command gen-ts writes frontend/src/lib/protocol.gen.ts from the Go protocol (see
// backend/protocol). Run it from the repository's root; `make frontend` does.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/tofu-research/tofu/backend/protocol"
)

func main() {
	out, err := protocol.Generate(".")
	if err == nil {
		err = os.WriteFile(filepath.FromSlash(protocol.OutputPath), out, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen-ts:", err)
		os.Exit(1)
	}
}
