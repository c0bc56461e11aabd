// Package desktoptest starts a real X server (Xvfb) with a window manager (openbox) for tests,
// on a display of its own: tests running in parallel, and the desktop of the person running
// them, never share one.
package desktoptest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Server is a running Xvfb and what the test started on it.
type Server struct {
	Display string
	// Env is the environment for programs on this display (DISPLAY set, the rest inherited
	// minus WAYLAND_DISPLAY).
	Env []string
	t   testing.TB
}

// Options shape the server.
type Options struct {
	Width, Height int  // default 1280×800
	NoWM          bool // no window manager
	// DBus starts a private session bus (dbus-launch) for the programs on the display, as
	// AT-SPI needs.
	DBus bool
}

// Start runs Xvfb and, unless o.NoWM, openbox; both stop when the test ends. A missing program
// fails the test: build/setup.sh test installs them.
func Start(t *testing.T, o Options) *Server { return start(t, o) }

// StartB is Start for a benchmark.
func StartB(b *testing.B, o Options) *Server { return start(b, o) }

func start(t testing.TB, o Options) *Server {
	t.Helper()
	if o.Width == 0 {
		o.Width, o.Height = 1280, 800
	}
	for _, p := range []string{"Xvfb", "openbox", "xdotool", "xterm"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Fatalf("%s is not installed (build/setup.sh test installs it): %v", p, err)
		}
	}
	display, stopServer := claimDisplay(t, o)
	t.Cleanup(stopServer)
	s := &Server{Display: display, t: t}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DISPLAY=") && !strings.HasPrefix(kv, "WAYLAND_DISPLAY=") &&
			!strings.HasPrefix(kv, "DBUS_SESSION_BUS_ADDRESS=") {
			s.Env = append(s.Env, kv)
		}
	}
	s.Env = append(s.Env, "DISPLAY="+s.Display)
	if o.DBus {
		s.startBus()
	}
	if !o.NoWM {
		wm := s.Command("openbox", "--sm-disable")
		var wmErr lockedBuffer
		wm.Stderr = &wmErr
		s.Background(wm)
		managed, done, err := wmManages(s.Display)
		if err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(time.Minute)
		for !managed() {
			if time.Now().After(deadline) {
				t.Fatalf("waited a minute for openbox to manage windows; it said: %s", wmErr.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
		done()
	}
	return s
}

// startBus launches a session bus for this display and adds its address to Env.
func (s *Server) startBus() {
	out, err := s.Command("dbus-launch", "--sh-syntax").Output()
	if err != nil {
		s.t.Fatalf("dbus-launch (package dbus-x11): %v", err)
	}
	var pid int
	for _, l := range strings.Split(string(out), "\n") {
		l = strings.TrimSuffix(strings.TrimSpace(l), ";")
		if v, ok := strings.CutPrefix(l, "DBUS_SESSION_BUS_ADDRESS='"); ok {
			s.Env = append(s.Env, "DBUS_SESSION_BUS_ADDRESS="+strings.TrimSuffix(v, "'"))
		}
		if v, ok := strings.CutPrefix(l, "DBUS_SESSION_BUS_PID="); ok {
			fmt.Sscan(v, &pid)
		}
	}
	if pid > 0 {
		s.t.Cleanup(func() { terminate(pid) })
	}
}

// Command is a program to run on the display.
func (s *Server) Command(name string, args ...string) *exec.Cmd {
	c := exec.Command(name, args...)
	c.Env = s.Env
	c.SysProcAttr = groupAttr()
	return c
}

// Background starts cmd and stops it (its whole process group) when the test ends.
func (s *Server) Background(cmd *exec.Cmd) {
	s.t.Helper()
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("start %s: %v", cmd.Path, err)
	}
	s.t.Cleanup(func() { stop(cmd) })
}

// Output runs a program on the display and returns its trimmed standard output.
func (s *Server) Output(name string, args ...string) string {
	s.t.Helper()
	c := s.Command(name, args...)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		s.t.Fatalf("%s %s: %v: %s", name, strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// WaitFor polls cond until it holds; only a hang (a minute) fails the test.
func (s *Server) WaitFor(what string, cond func() bool) {
	s.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			s.t.Fatalf("waited a minute for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// ActiveWindow is the active window's id as xdotool prints it (decimal), or "" while there is
// none: in the middle of a focus change the window manager clears _NET_ACTIVE_WINDOW for a
// moment, and xdotool then fails. For WaitFor conditions.
func (s *Server) ActiveWindow() string {
	out, err := s.Command("xdotool", "getactivewindow").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// WindowOf waits for a window whose WM_CLASS matches class and returns its id as xdotool
// prints it (decimal).
func (s *Server) WindowOf(class string) string {
	s.t.Helper()
	var id string
	s.WaitFor("a "+class+" window", func() bool {
		out, _ := s.Command("xdotool", "search", "--onlyvisible", "--class", class).Output()
		f := strings.Fields(string(out))
		if len(f) > 0 {
			id = f[0]
		}
		return id != ""
	})
	return id
}

// claimDisplay starts Xvfb on the first display from :20 it can hold, and returns once the
// server takes clients. A display is held by its lock file (/tmp/.XN-lock, made atomically,
// holding the server's pid): a server finding another's lock exits. (-displayfd takes no lock
// and picks the first number whose socket is free in its own network namespace: under
// build/offline.sh, :0, rebinding the desktop's /tmp/.X11-unix/X0 and removing it on exit.)
func claimDisplay(t testing.TB, o Options) (display string, stop func()) {
	t.Helper()
	for n := 20; n < 100; n++ {
		display = fmt.Sprintf(":%d", n)
		cmd := exec.Command("Xvfb", display, "-screen", "0", fmt.Sprintf("%dx%dx24", o.Width, o.Height),
			"-nolisten", "tcp", "-noreset")
		var stderr lockedBuffer
		cmd.Stderr = &stderr
		cmd.SysProcAttr = groupAttr()
		if err := cmd.Start(); err != nil {
			t.Fatalf("start Xvfb: %v", err)
		}
		exited := waited(cmd)
		stop = func() { stopGroup(cmd.Process.Pid, exited) }
		deadline := time.Now().Add(time.Minute)
		// Ours once its lock names it; another's when it exits first.
		claimed := func() bool {
			for time.Now().Before(deadline) {
				if lockHolder(n) == cmd.Process.Pid {
					return true
				}
				select {
				case <-exited:
					return false
				case <-time.After(10 * time.Millisecond):
				}
			}
			return false
		}
		if !claimed() {
			stop()
			continue
		}
		for time.Now().Before(deadline) {
			probe := exec.Command("xdotool", "getdisplaygeometry")
			probe.Env = append(os.Environ(), "DISPLAY="+display)
			if probe.Run() == nil {
				return display, stop
			}
			select {
			case <-exited:
				t.Fatalf("Xvfb %s exited; it said: %s", display, stderr.String())
			case <-time.After(20 * time.Millisecond):
			}
		}
		stop()
		t.Fatalf("Xvfb %s took no client in a minute; it said: %s", display, stderr.String())
	}
	t.Fatal("no free X display from :20 to :99")
	return "", nil
}

// lockHolder is the pid in display n's lock file, 0 if none.
func lockHolder(n int) int {
	b, err := os.ReadFile(fmt.Sprintf("/tmp/.X%d-lock", n))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}

func stop(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	stopGroup(cmd.Process.Pid, waited(cmd))
}

// waited is closed once the started cmd has exited (and been reaped).
func waited(cmd *exec.Cmd) <-chan struct{} {
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	return done
}

// stopGroup asks the process group led by pid to stop, kills it after 5 s, and returns once
// the leader has exited (exited closed).
func stopGroup(pid int, exited <-chan struct{}) {
	terminateGroup(pid)
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		killGroup(pid)
		<-exited
	}
}

// Context is a context for the test that ends with it.
func Context(t *testing.T) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return ctx
}

// lockedBuffer collects a program's output while the test may read it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
