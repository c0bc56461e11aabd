// Command tofu is a desktop research assistant and white-box agent harness. With no arguments
// it opens the window (the tofu-window program beside it, cmd/tofu-window); `tofu help` lists
// the headless commands. It is built without cgo: GTK and WebKit, which the window needs, would
// cost every command tens of milliseconds of dynamic loading before main runs.
package main

import (
	"os"

	"github.com/tofu-research/tofu/app/cli"
	"github.com/tofu-research/tofu/frontend"
)

func main() {
	os.Exit(cli.Execute(frontend.Dist()))
}
