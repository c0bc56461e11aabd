// Command tofu is a desktop research assistant and white-box agent harness. With no arguments
// it opens the window; `tofu help` lists the headless commands.
package main

import (
	"embed"
	"io/fs"
	"os"

	"github.com/tofu-research/tofu/app/cli"
)

//go:embed all:frontend/dist
var dist embed.FS

func main() {
	frontend, err := fs.Sub(dist, "frontend/dist")
	if err != nil {
		panic(err) // the embed path is a constant
	}
	os.Exit(cli.Execute(frontend))
}
