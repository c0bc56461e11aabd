// Package frontend is the built front end (frontend/dist, `npm run build`), embedded in both
// binaries: the window (main_window.go) shows it and `tofu serve` serves it.
package frontend

import (
	"embed"
	"io/fs"
)

//go:embed all:dist
var dist embed.FS

// Dist returns the built front end, index.html at its root.
func Dist() fs.FS {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		panic(err) // the embed path is a constant
	}
	return sub
}
