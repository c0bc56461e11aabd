package cli

import (
	"fmt"
	"os"
	"path/filepath"
)

// The window draws nothing with the GPU (app/window: WebviewGpuPolicyNever, so the page is never
// composited), yet GTK and WebKitGTK each initialize OpenGL at start-up to ask what the GPU could
// do, and on Mesa that loads the DRI driver and, through it, LLVM (libLLVM, some 20 MB of memory
// per process that maps it: its relocations and symbol tables are touched at load). windowEnv
// names the variables that stop those probes in the Go process; WebKit's web process still opens
// an EGL display of its own (it aborts without one). Measured in docs/PERFORMANCE.md ("The
// window's memory").

// noRenderNode stands for "no GPU render node on this machine" (a VM, a container, Xvfb). WebKit
// takes the variable as a path: with the DMA-BUF renderer off it is handed to the web process and
// opened only for GPU buffers, which that renderer alone asks for, so it is never opened.
const noRenderNode = "none"

// envSetting is one variable the window sets for itself.
type envSetting struct{ Key, Value string }

// windowEnv returns the variables to set before GTK starts, given the environment (lookup) and
// the machine's DRM render nodes. A variable the user has set is left as it is; a user who turns
// WebKit's DMA-BUF renderer back on (WEBKIT_DISABLE_DMABUF_RENDERER=0) gets GTK's GL too, which
// that renderer draws with.
func windowEnv(lookup func(string) (string, bool), renderNodes []string) []envSetting {
	var out []envSetting
	set := func(key, value string) {
		if _, ok := lookup(key); !ok {
			out = append(out, envSetting{key, value})
		}
	}
	// The DMA-BUF renderer carries composited frames, which a page that is never composited does
	// not make; choosing how to carry them is what opened EGL in the Go process.
	set("WEBKIT_DISABLE_DMABUF_RENDERER", "1")
	// WebKit reads any value but "0" as "disabled" (strcmp), the empty string included.
	if v, ok := lookup("WEBKIT_DISABLE_DMABUF_RENDERER"); ok && v == "0" {
		return out
	}
	// GTK 3 opens GLX with the display, to pick visuals for GL drawing the window does not do.
	set("GDK_GL", "disable")
	// Without it WebKit still starts EGL in the Go process, only to ask Mesa which render node the
	// web process should use (DRMMainDevice.cpp); the first node is what Mesa answers on a machine
	// with one GPU.
	node := noRenderNode
	if len(renderNodes) > 0 {
		node = renderNodes[0]
	}
	set("WEBKIT_WEB_RENDER_DEVICE_FILE", node)
	return out
}

// setWindowEnv applies windowEnv to this process before GTK and WebKit start; the WebKit
// processes inherit it. With cgo, os.Setenv also sets the C environment GTK reads.
func setWindowEnv() error {
	nodes, err := filepath.Glob("/dev/dri/renderD*") // sorted: renderD128 first
	if err != nil {
		return fmt.Errorf("listing render nodes: %w", err)
	}
	for _, s := range windowEnv(os.LookupEnv, nodes) {
		if err := os.Setenv(s.Key, s.Value); err != nil {
			return fmt.Errorf("setting %s for the window: %w", s.Key, err)
		}
	}
	return nil
}
