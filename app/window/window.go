// Package window is Tofu's desktop window through Wails (GTK and WebKit on Linux). Only the
// window program (the top-level package built by Wails, main_window.go) links it; the instance it shows is wired by app/cli.
package window

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/tofu-research/tofu/app"
	"github.com/tofu-research/tofu/assets"
)

// Window sends events to the window and opens its native dialogs (cli.Window). Until the
// window has started it drops them: there is nobody to show them to, and runtime.EventsEmit
// with a non-Wails context aborts the process.
type Window struct {
	frontend fs.FS
	assets   *timedAssets // the frontend, timed for the start-up timeline (StartupEnv), else nil

	mu  sync.RWMutex
	ctx context.Context
	run time.Time // when Show handed over to Wails (the start-up timeline's mark)
}

// New returns the window that shows frontend (the built front end, frontend/dist).
func New(frontend fs.FS) *Window {
	return &Window{frontend: frontend}
}

func (w *Window) start(ctx context.Context) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ctx = ctx
	runtime.EventsOnce(ctx, startupTopic, w.reportStartup)
}

// Emit sends one event to the front end (app.Emitter).
func (w *Window) Emit(topic string, data any) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.ctx != nil {
		runtime.EventsEmit(w.ctx, topic, data)
	}
}

// ChooseDirectory is the window's native folder dialog (app.Dialogs).
func (w *Window) ChooseDirectory(title, defaultDir string) (string, error) {
	w.mu.RLock()
	ctx := w.ctx
	w.mu.RUnlock()
	if ctx == nil {
		return "", errors.New("the window is not ready yet")
	}
	return runtime.OpenDirectoryDialog(ctx, runtime.OpenDialogOptions{
		Title: title, DefaultDirectory: defaultDir, CanCreateDirectories: true,
	})
}

// ChooseSaveFile is the window's native save dialog (app.Dialogs).
func (w *Window) ChooseSaveFile(title, defaultName string) (string, error) {
	w.mu.RLock()
	ctx := w.ctx
	w.mu.RUnlock()
	if ctx == nil {
		return "", errors.New("the window is not ready yet")
	}
	home, _ := os.UserHomeDir()
	return runtime.SaveFileDialog(ctx, runtime.SaveDialogOptions{
		Title: title, DefaultFilename: defaultName, DefaultDirectory: home,
		Filters: []runtime.FileFilter{{DisplayName: "Markdown (*.md)", Pattern: "*.md"}},
	})
}

// Show opens the window on a's services and returns when it closes; shutdown runs as it
// closes (cli.Window).
func (w *Window) Show(a *app.App, shutdown func()) error {
	quietJSC()
	quietFileChooser()
	w.run = time.Now()
	page := w.frontend
	if os.Getenv(StartupEnv) != "" {
		w.assets = &timedAssets{FS: w.frontend}
		page = w.assets
	}
	return wails.Run(&options.App{
		Title:            "Tofu",
		Width:            1200,
		Height:           820,
		MinWidth:         720,
		MinHeight:        480,
		BackgroundColour: &options.RGBA{R: 250, G: 250, B: 249, A: 255},
		// The paper routes (the PDF for pdf.js, exports) are the same handler as `tofu serve`'s.
		AssetServer: &assetserver.Options{Assets: page, Handler: a.PaperHandler()},
		DragAndDrop: &options.DragAndDrop{DisableWebViewDrop: false},
		OnStartup:   w.start,
		OnShutdown:  func(context.Context) { shutdown() },
		Bind:        services(a),
		Linux: &linux.Options{
			Icon:        assets.Icon(),
			ProgramName: "tofu",
			// Never: a chat page has nothing to composite on the GPU (no video, WebGL or 3D
			// transforms). On demand still enters accelerated compositing for a CSS transform or
			// an animation, which costs a GL context and its buffers in the web process (memory
			// for nothing) and is the usual cause of a blank WebKitGTK window on broken drivers.
			WebviewGpuPolicy: linux.WebviewGpuPolicyNever,
		},
	})
}

// services are the services bound to the window: the App's, as `tofu serve` routes them, so the
// two cannot differ (a service missing here failed only in the window, "LocalModelService.Status
// is not bound", while `tofu serve` worked). TestWindowBindsEveryService checks them against
// the calls of frontend/src/lib/bridge.ts.
func services(a *app.App) []any {
	named := a.Services()
	out := make([]any, 0, len(named))
	for _, name := range slices.Sorted(maps.Keys(named)) {
		out = append(out, named[name])
	}
	return out
}
