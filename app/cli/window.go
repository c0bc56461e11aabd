package cli

import (
	"os"
	goruntime "runtime"

	"github.com/tofu-research/tofu/app"
	"github.com/tofu-research/tofu/backend/sandbox"
)

// Window is the desktop window as the window program (main_window.go, package app/window)
// provides it. Tofu's instance behind it is wired here, as for every command; Wails stays out
// of this package so that GTK and WebKit stay out of the `tofu` binary (docs/PERFORMANCE.md).
type Window interface {
	app.Emitter // events to the front end; dropped until the window has started
	app.Dialogs // the native folder and save dialogs
	// Show opens the window on a's services and returns when it has closed; shutdown runs as
	// it closes.
	Show(a *app.App, shutdown func()) error
}

// RunWindow runs the window program: the database, the services, the scheduler and the
// command socket, shown in w. It returns the process's exit status.
func RunWindow(w Window) int {
	return exitCode(runWindow(w))
}

func runWindow(w Window) error {
	// Again here: the window program can be started on its own, and GTK panics without a display.
	if err := checkDisplay(goruntime.GOOS, os.Getenv); err != nil {
		return err
	}
	if goruntime.GOOS == "linux" {
		if err := setWindowEnv(); err != nil { // before GTK starts (window_env.go)
			return err
		}
	}
	// The page's first calls include the settings, which report whether commands can be
	// sandboxed here: on a first run that is a probe (bubblewrap run twice, about 60 ms of CPU,
	// remembered after), made now on the core GTK and the dynamic loader leave idle rather than
	// inside the first paint's wait (sandbox.Detect runs it once; the settings call waits for it).
	go sandbox.Detect()
	st, dir, err := openStore()
	if err != nil {
		return err
	}
	defer st.Close()
	fan := &app.Fanout{}
	fan.Add(w)
	a, err := newApp(st, fan, nil)
	if err != nil {
		return err
	}
	defer a.Close()
	// The page's first paint waits for the model status: ask for it while GTK and WebKit start.
	a.Models.Warm()
	openFromDesktop(a)               // `tofu open FILE.pdf`: shown once the page has loaded
	defer startScheduler(a.Engine)() // jobs run while Tofu is open
	defer startBridges(a)()          // chat apps reach Tofu while it is open (docs/BRIDGES.md)
	a.SetDialogs(w)
	stopCommands := takeCommands(dir, a, st, fan)
	defer stopCommands()
	return w.Show(a, func() { a.Close(); stopCommands() })
}
