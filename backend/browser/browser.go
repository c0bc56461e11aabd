// Package browser drives the system's Chromium with go-rod for the agent: one browser per
// Tofu, started on first use and closed when idle, in Tofu's own profile; tabs belong to
// sessions; pages are seen through compact snapshots whose element refs the actions take.
package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/launcher"
	"github.com/go-rod/rod/lib/proto"
	"github.com/tofu-research/tofu/backend/sandbox"
)

// ErrNoChromium means no Chromium or Chrome was found on the PATH.
var ErrNoChromium = errors.New("no Chromium found: install it (Debian/Ubuntu: sudo apt-get install chromium; Fedora: sudo dnf install chromium; macOS: brew install --cask chromium) or set TOFU_CHROMIUM to its path")

// Options configure the browser.
type Options struct {
	// ProfileDir holds Tofu's own browser profile (cookies, storage); never the user's.
	ProfileDir string
	// Bin is the Chromium to run ("": $TOFU_CHROMIUM, else launcher.LookPath).
	Bin string
	// Visible shows the browser window instead of running headless (nil: headless); a change
	// takes effect on the next call, which restarts the browser.
	Visible func() bool
	// WebAccess lets pages reach beyond loopback. Off, every other host fails to connect (a
	// dead proxy): only loopback and file:// pages load, whatever a page or the model tries.
	WebAccess func() bool
	// Idle closes the browser after this long unused (0: 5 minutes).
	Idle time.Duration
	// DownloadGrace is how long a save step waits for a download of that name to begin (0:
	// 10 s): the click that starts one reports before Chromium says it began.
	DownloadGrace time.Duration
	// CommitWait bounds how long a report waits, after an action, for a navigation to commit
	// before it says the page is still loading (0: commitWait).
	CommitWait time.Duration
	// Width and Height are the viewport (0: 1280×800).
	Width, Height int
	// Sandbox is the boundary Chromium runs in (sandboxed.go), asked at each start; nil, or
	// nil returned: unconfined (no sandbox on this machine, or the user chose so).
	Sandbox func() *sandbox.Boundary
}

// Manager owns the browser process and the tabs of every session. Safe for concurrent use.
type Manager struct {
	o Options

	mu         sync.Mutex
	launcher   *launcher.Launcher
	pid        int  // Chromium's process (bubblewrap's, sandboxed): killed with its group
	sandboxed  bool // the running browser is inside the sandbox
	browser    *rod.Browser
	web        bool // the web access the running browser was started with
	visible    bool // whether it was started with a window
	controlURL string
	sessions   map[string]*sessionTabs
	front      proto.TargetTargetID // the tab last brought to the front
	guarding   bool                 // the host guard runs (web access on)
	timer      *time.Timer
	started    time.Duration // how long the last start took (the eval reports it)
	closed     bool
	began      chan struct{} // closed (and replaced) when any download begins
}

// New returns a manager; nothing starts until a session uses the browser.
func New(o Options) *Manager {
	if o.Idle == 0 {
		o.Idle = 5 * time.Minute
	}
	if o.Width == 0 {
		o.Width, o.Height = 1280, 800
	}
	if o.DownloadGrace == 0 {
		o.DownloadGrace = 10 * time.Second
	}
	if o.CommitWait == 0 {
		o.CommitWait = commitWait
	}
	return &Manager{o: o, sessions: map[string]*sessionTabs{}, began: make(chan struct{})}
}

// FindChromium returns the Chromium to run: bin, $TOFU_CHROMIUM, or the first on the PATH.
func FindChromium(bin string) (string, error) {
	if bin == "" {
		bin = os.Getenv("TOFU_CHROMIUM")
	}
	if bin != "" {
		if _, err := os.Stat(bin); err != nil {
			return "", fmt.Errorf("%w (%s: %v)", ErrNoChromium, bin, err)
		}
		return bin, nil
	}
	if p, ok := launcher.LookPath(); ok {
		return p, nil
	}
	return "", ErrNoChromium
}

// StartTime is how long the browser took to start the last time it did (0: not yet).
func (m *Manager) StartTime() time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.started
}

// ensure returns the running browser, starting it (or restarting it when web access changed
// or it died). m.mu is held.
func (m *Manager) ensureLocked(ctx context.Context) (*rod.Browser, error) {
	if m.closed {
		return nil, errors.New("the browser is shut down")
	}
	web := m.o.WebAccess != nil && m.o.WebAccess()
	visible := m.o.Visible != nil && m.o.Visible()
	var box *sandbox.Boundary
	if m.o.Sandbox != nil {
		box = m.o.Sandbox()
	}
	if m.browser != nil && web == m.web && visible == m.visible && (box != nil) == m.sandboxed {
		if m.aliveLocked() {
			m.touchLocked()
			return m.browser, nil
		}
		m.stopLocked()
		return nil, errors.New("the browser stopped unexpectedly (crashed or killed) and its tabs are gone; the next call starts a fresh one")
	}
	m.stopLocked()
	start := time.Now()
	bin, err := FindChromium(m.o.Bin)
	if err != nil {
		return nil, err
	}
	if m.o.ProfileDir == "" {
		return nil, errors.New("the browser has no profile directory")
	}
	if err := os.MkdirAll(m.o.ProfileDir, 0o700); err != nil {
		return nil, fmt.Errorf("create the browser profile: %w", err)
	}
	// A crashed Chromium leaves its profile locked; Tofu's profile is used by Tofu alone.
	for _, f := range []string{"SingletonLock", "SingletonSocket", "SingletonCookie"} {
		_ = os.Remove(filepath.Join(m.o.ProfileDir, f))
	}
	// Chromium writes crash reports and caches under HOME and XDG dirs whatever its profile:
	// give it a home inside the profile, so it never touches the user's.
	home := filepath.Join(m.o.ProfileDir, "home")
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"), "XDG_DATA_HOME="+filepath.Join(home, ".local", "share"))
	// Built anew for each try: a launcher starts one Chromium.
	newLauncher := func() *launcher.Launcher {
		l := launcher.New().Bin(bin).Env(env...).Set("disable-breakpad").Set("disable-crash-reporter").Headless(!visible).NoSandbox(true).UserDataDir(m.o.ProfileDir).
			Set("disable-gpu").Set("disable-quic").Set("no-first-run").Set("disable-component-update").
			Set("disable-sync").Set("disable-default-apps").Set("mute-audio").
			Set("window-size", fmt.Sprintf("%d,%d", m.o.Width, m.o.Height))
		// WebRTC sends UDP itself (STUN, TURN), past any proxy: only what a proxy carries.
		l = l.Set("webrtc-ip-handling-policy", "disable_non_proxied_udp")
		if !web {
			// Everything but loopback meets a closed port. Chromium bypasses proxies for loopback
			// and link-local addresses by itself (169.254.169.254, a cloud's metadata service, among
			// them): <-loopback> removes that rule, and loopback is named again.
			l = l.Set("proxy-server", "http://"+deadProxy).Set("proxy-bypass-list", loopbackBypass)
		}
		return l
	}
	l := newLauncher()
	var u string
	var pid int
	if box != nil {
		profile, err := filepath.Abs(m.o.ProfileDir)
		if err != nil {
			return nil, err
		}
		sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		var cmd *exec.Cmd
		var workspaces []string
		for _, s := range m.sessions {
			if s.workspace != "" {
				workspaces = append(workspaces, s.workspace)
			}
		}
		u, cmd, err = launchSandboxed(sctx, l, bin, env, *box, profile, workspaces)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("start Chromium (%s) in the sandbox: %w", bin, err)
		}
		pid = cmd.Process.Pid
	} else {
		u, err = l.Context(context.WithoutCancel(ctx)).Launch()
		if err != nil && strings.Contains(err.Error(), "Failed to get the debug url") {
			// A Chromium that died while starting (seen once on a loaded machine, crashpad's
			// report and no DevTools address) gets one more try.
			for _, f := range []string{"SingletonLock", "SingletonSocket", "SingletonCookie"} {
				_ = os.Remove(filepath.Join(m.o.ProfileDir, f))
			}
			l = newLauncher()
			u, err = l.Context(context.WithoutCancel(ctx)).Launch()
		}
		if err != nil {
			return nil, fmt.Errorf("start Chromium (%s): %w", bin, err)
		}
		pid = l.PID()
	}
	b := rod.New().ControlURL(u)
	if err := b.Connect(); err != nil {
		killAndWait(pid)
		return nil, fmt.Errorf("connect to Chromium: %w", err)
	}
	m.launcher, m.pid, m.sandboxed, m.browser, m.web, m.visible, m.controlURL = l, pid, box != nil, b, web, visible, u
	m.started = time.Since(start)
	m.watchTargets(b)
	if err := m.watchDownloads(b); err != nil {
		m.stopLocked()
		return nil, err
	}
	m.guarding = web
	if err := m.gate(b, web); err != nil {
		m.stopLocked()
		return nil, err
	}
	m.touchLocked()
	return b, nil
}

// aliveLocked reports whether the browser still answers.
func (m *Manager) aliveLocked() bool {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_, err := proto.BrowserGetVersion{}.Call(m.browser.Context(ctx))
	return err == nil
}

// touchLocked restarts the idle timer.
func (m *Manager) touchLocked() {
	if m.timer != nil {
		m.timer.Stop()
	}
	b := m.browser
	m.timer = time.AfterFunc(m.o.Idle, func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.browser == b && !m.busyLocked() {
			m.stopLocked()
		}
	})
}

// busyLocked reports whether an action is running in some tab.
func (m *Manager) busyLocked() bool {
	for _, s := range m.sessions {
		if s.busy > 0 || s.paused != nil {
			return true // an action runs, or the user has the browser
		}
	}
	return false
}

// stopLocked closes the browser and forgets every tab.
func (m *Manager) stopLocked() {
	if m.timer != nil {
		m.timer.Stop()
		m.timer = nil
	}
	if m.browser != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		closed := m.browser.Context(ctx).Close() == nil
		cancel()
		if closed && m.pid != 0 {
			awaitExit(m.pid, 3*time.Second) // the rest of its group, if any, is killed below
		}
	}
	if m.pid != 0 {
		killAndWait(m.pid)
	}
	m.browser, m.launcher, m.pid, m.front = nil, nil, 0, ""
	for _, s := range m.sessions {
		s.tabs, s.downloads = nil, nil
		s.setActive("")
	}
}

// Running reports whether the browser process is up.
func (m *Manager) Running() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.browser != nil
}

// Close shuts the browser down for good (Tofu is closing).
func (m *Manager) Close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.stopLocked()
	m.closed = true
}

// ClearData closes the browser and deletes Tofu's browser profile (cookies, storage, cache);
// the next use starts afresh.
func (m *Manager) ClearData() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.stopLocked()
	if m.o.ProfileDir == "" {
		return nil
	}
	if err := os.RemoveAll(m.o.ProfileDir); err != nil {
		return fmt.Errorf("clear browser data: %w", err)
	}
	return nil
}

// deadProxy is where the browser's requests go with web access off: a port nothing listens
// on (discard). A var so a test can listen there instead and see what reaches it.
var deadProxy = "127.0.0.1:9"

// loopbackBypass are the hosts that skip the dead proxy: loopback only, by name and address
// (Chromium's own implicit rules, which add link-local, are removed by <-loopback>).
const loopbackBypass = "<-loopback>;localhost;*.localhost;127.0.0.0/8;[::1]"
