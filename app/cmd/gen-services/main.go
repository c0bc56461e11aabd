// Command gen-services writes frontend/src/lib/services.gen.ts from the services the window
// binds (app/servicests). Run from the repository root; `make frontend` runs it.
package main

import (
	"fmt"
	"os"

	"github.com/tofu-research/tofu/app/servicests"
)

func main() {
	if err := os.WriteFile(servicests.Path, []byte(servicests.Generate()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gen-services:", err)
		os.Exit(1)
	}
}
