//go:build !linux

package window

// quietJSC has nothing to quiet where the window is not WebKitGTK.
func quietJSC() {}
