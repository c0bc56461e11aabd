//go:build desktop || dev

// Built by Wails (`make build` runs `wails build` here, `wails dev` is the front end's live
// reload against the Go services), this package is tofu-window, Tofu's desktop window (cgo,
// GTK and WebKit): `tofu` run without a command replaces itself with it, found beside it.
// Tofu's instance (database, services, scheduler, command socket) is wired by app/cli as for
// every command; this adds only the window (app/window). Arguments are ignored: launchers and
// `wails dev` pass their own, and the commands are `tofu`'s.
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
