// Command tofu-window is Tofu's desktop window, built with cgo and Wails (`make build`): `tofu`
// run without a command replaces itself with this program, found beside it. Tofu's instance
// (database, services, scheduler, command socket) is wired by app/cli as for every command;
// this program adds only the window (app/window). Arguments are ignored: launchers and
// `wails dev` may pass their own, and the commands are `tofu`'s.
package main

import (
	"os"

	"github.com/tofu-research/tofu/app/cli"
	"github.com/tofu-research/tofu/app/window"
	"github.com/tofu-research/tofu/frontend"
)

func main() {
	os.Exit(cli.RunWindow(window.New(frontend.Dist())))
}
