//go:build !linux || !cgo

package window

// quietJSC has nothing to quiet where the window is not WebKitGTK (the window needs cgo
// there; a CGO_ENABLED=0 vet of the package still type-checks).
func quietJSC() {}

// quietFileChooser has no GTK file chooser to quiet either.
func quietFileChooser() {}
