//go:build !desktop && !dev

// Command tofu is a desktop research assistant and white-box agent harness. With no arguments
// it opens the window (the tofu-window program beside it); `tofu help` lists the headless
// commands. It is built without cgo: GTK and WebKit, which the window needs, would cost every
// command tens of milliseconds of dynamic loading before main runs.
//
// The same package is the window program when Wails builds it (`wails build` and `wails dev`
// add the desktop or dev build tag, and wails.json the webkit2_41 one): main_window.go.
package main

import (
	"os"

	"github.com/tofu-research/tofu/app/cli"
	"github.com/tofu-research/tofu/frontend"
)

func main() {
	os.Exit(cli.Execute(frontend.Dist()))
}
