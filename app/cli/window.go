package cli

import (
	"context"
	"errors"
	"io/fs"
	"os"
	goruntime "runtime"
	"sync"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/tofu-research/tofu/app"
	"github.com/tofu-research/tofu/assets"
)

// wailsEmitter sends events to the window, and opens its native dialogs. Until the window has started it drops them: there
// is nobody to show them to, and runtime.EventsEmit with a non-Wails context aborts the process.
type wailsEmitter struct {
	mu  sync.RWMutex
	ctx context.Context
}

func (w *wailsEmitter) start(ctx context.Context) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ctx = ctx
}

func (w *wailsEmitter) Emit(topic string, data any) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.ctx != nil {
		runtime.EventsEmit(w.ctx, topic, data)
	}
}

// ChooseDirectory is the window's native folder dialog (app.Dialogs).
func (w *wailsEmitter) ChooseDirectory(title, defaultDir string) (string, error) {
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
func (w *wailsEmitter) ChooseSaveFile(title, defaultName string) (string, error) {
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

// runWindow opens the desktop window.
func runWindow(frontend fs.FS) error {
	if err := checkDisplay(goruntime.GOOS, os.Getenv); err != nil {
		return err
	}
	if goruntime.GOOS == "linux" {
		if err := setWindowEnv(); err != nil { // before GTK starts (window_env.go)
			return err
		}
	}
	st, dir, err := openStore()
	if err != nil {
		return err
	}
	defer st.Close()
	emit := &wailsEmitter{}
	fan := &app.Fanout{}
	fan.Add(emit)
	a, err := newApp(st, fan, nil)
	if err != nil {
		return err
	}
	defer a.Close()
	defer startScheduler(a)() // jobs run while Tofu is open
	a.SetDialogs(emit)
	stopCommands := takeCommands(dir, a, st, fan)
	defer stopCommands()
	return wails.Run(&options.App{
		Title:            "Tofu",
		Width:            1200,
		Height:           820,
		MinWidth:         720,
		MinHeight:        480,
		BackgroundColour: &options.RGBA{R: 250, G: 250, B: 249, A: 255},
		// The paper routes (the PDF for pdf.js, exports) are the same handler as `tofu serve`'s.
		AssetServer: &assetserver.Options{Assets: frontend, Handler: a.PaperHandler()},
		DragAndDrop: &options.DragAndDrop{DisableWebViewDrop: false},
		OnStartup:   emit.start,
		OnShutdown:  func(context.Context) { a.Close(); stopCommands() },
		Bind:        windowServices(a),
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

// windowServices are the services bound to the window: every one the front end calls
// (frontend/src/lib/bridge.ts). In the window a call goes to the bound Go method, so a service
// missing here fails only in the window ("MemoryService.List is not bound") while `tofu serve`
// works; TestWindowBindsEveryService checks the list against bridge.ts.
func windowServices(a *app.App) []any {
	return []any{a.Sessions, a.Chat, a.Models, a.Settings, a.Papers, a.MCP, a.Memory, a.Skills, a.MyDay, a.Schedule, a.BrowserView}
}
