package child

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/testtools"
)

// The works this test binary serves as its own child.
func init() {
	// echo sends the request back, then the input in two halves.
	Serve("test-echo", func(req json.RawMessage, in io.Reader, send func(any)) error {
		data, err := io.ReadAll(in)
		if err != nil {
			return err
		}
		send(req)
		send(string(data[:len(data)/2]))
		send(string(data[len(data)/2:]))
		return nil
	})
	// grow allocates and keeps 1 MB after 1 MB, touched, until it cannot.
	Serve("test-grow", func(json.RawMessage, io.Reader, func(any)) error {
		var kept [][]byte
		for {
			b := make([]byte, 1<<20)
			for i := range b {
				b[i] = 1
			}
			//lint:ignore SA4010 kept is never read: it holds the memory so that none is freed
			kept = append(kept, b)
		}
	})
	// spin uses the processor until it is stopped.
	Serve("test-spin", func(json.RawMessage, io.Reader, func(any)) error {
		n := 0
		for {
			n++
		}
	})
	// recurse recurses without end.
	Serve("test-recurse", func(json.RawMessage, io.Reader, func(any)) error {
		return recurse(0)
	})
	// fail says why it cannot do the work.
	Serve("test-fail", func(json.RawMessage, io.Reader, func(any)) error {
		return errors.New("the input is not what it should be")
	})
	// wait reads nothing and answers nothing until it is killed.
	Serve("test-wait", func(json.RawMessage, io.Reader, func(any)) error {
		select {}
	})
}

func recurse(n int) error {
	var pad [256]byte
	if n < 0 {
		return errors.New(string(pad[:]))
	}
	return recurse(n + 1)
}

func run(t *testing.T, ctx context.Context, name string, in io.Reader, lim Limits) ([]string, error) {
	t.Helper()
	var got []string
	err := Run(ctx, name, map[string]int{"n": 7}, in, lim, func(m json.RawMessage) error {
		got = append(got, string(m))
		return nil
	})
	return got, err
}

// A child gets the request and the input, and its answers arrive in order.
func TestRequestInputAndAnswers(t *testing.T) {
	t.Parallel()
	got, err := run(t, context.Background(), "test-echo", strings.NewReader("abcdef"), DefaultLimits)
	if err != nil || strings.Join(got, " ") != `{"n":7} "abc" "def"` {
		t.Fatalf("answers %q, %v", got, err)
	}
}

// A child past a limit dies alone, and says which: memory, processor time, stack.
func TestLimits(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("a child bounds itself on Linux")
	}
	t.Parallel()
	for _, tc := range []struct {
		work string
		lim  Limits
		want string
	}{
		{"test-grow", Limits{Memory: 64 << 20, CPU: time.Minute}, "needed more than 64 MB of memory"},
		{"test-spin", Limits{Memory: 1 << 30, CPU: time.Second}, "took more than 1s of processor time"},
		{"test-recurse", Limits{Memory: 4 << 30, CPU: time.Minute}, "nested deeper than its stack allows"},
	} {
		if tc.work == "test-grow" && testtools.Race {
			continue // the race detector's shadow memory needs the room
		}
		_, err := run(t, context.Background(), tc.work, nil, tc.lim)
		var d *Died
		if !errors.As(err, &d) || !d.Limit || d.Reason != tc.want {
			t.Errorf("%s: %v, want it dead past a limit: %q", tc.work, err, tc.want)
		}
	}
}

// A runtime refused a thread under the memory bound went past that bound (the address space
// holds the threads' stacks; a stress run met it as cgo's pthread_create failing); without a
// memory bound the same words are only what the child said.
func TestAThreadRefusedUnderTheMemoryBoundIsThatBound(t *testing.T) {
	exited := exec.Command(os.Args[0], "-test.run=^$")
	if err := exited.Run(); err != nil {
		t.Fatal(err)
	}
	st := exited.ProcessState
	for _, stderr := range []string{
		"runtime/cgo: pthread_create failed: Resource temporarily unavailable\nSIGABRT: abort",
		"runtime: failed to create new OS thread (have 7 already; errno=12)\nruntime: may need to increase max user processes (ulimit -u)\nfatal error: newosproc",
	} {
		d := died(st, stderr, Limits{Memory: 16 << 20, CPU: time.Minute})
		if !d.Limit || d.Reason != "needed more than 16 MB of memory" {
			t.Errorf("%q under a 16 MB bound: %+v", stderr, d)
		}
		d = died(st, stderr, Limits{CPU: time.Minute})
		if d.Limit {
			t.Errorf("%q with no memory bound: %+v, want what it said", stderr, d)
		}
	}
}

// A child that fails says why; one killed by a signal says so.
func TestDeathsThatAreNotLimits(t *testing.T) {
	t.Parallel()
	_, err := run(t, context.Background(), "test-fail", nil, DefaultLimits)
	var d *Died
	if !errors.As(err, &d) || d.Limit || d.Reason != "stopped: tofu child: the input is not what it should be" {
		t.Errorf("a failing child: %v", err)
	}
	if err == nil || err.Error() != "the child process stopped: tofu child: the input is not what it should be" {
		t.Errorf("its text: %v", err)
	}
}

// Cancelled, a child is killed and the caller gets the cancellation at once; an answer the
// caller refuses kills it too.
func TestCancelAndRefusal(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := run(t, ctx, "test-wait", nil, DefaultLimits)
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	refused := errors.New("not that")
	err := Run(context.Background(), "test-echo", 1, strings.NewReader("x"), DefaultLimits, func(json.RawMessage) error { return refused })
	if !errors.Is(err, refused) {
		t.Fatalf("a refused answer: %v", err)
	}
}

// The window's child is the `tofu` beside it (no GTK and WebKit loaded to read a file); a
// work with its own lean program beside (tofu-pdf) runs that; a lean program's other works
// run the `tofu` beside it; any other program, or one alone, is its own child.
func TestProgram(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	exe := ""
	if runtime.GOOS == "windows" {
		exe = ".exe"
	}
	window, cli, lean := filepath.Join(dir, "tofu-window"+exe), filepath.Join(dir, "tofu"+exe), filepath.Join(dir, "tofu-pdf"+exe)
	test := filepath.Join(dir, "child.test"+exe)
	for _, self := range []string{window, test, lean} {
		if got := programFor(self, "pdf", self == lean); got != self {
			t.Errorf("%s alone: %s, want itself", self, got)
		}
	}
	if got := programFor(lean, "pdf-repair", true); got != "" {
		t.Errorf("tofu-pdf alone, asked to repair: %s, want none (it serves its own work only)", got)
	}
	os.WriteFile(cli, []byte("x"), 0o755)
	os.MkdirAll(filepath.Join(dir, "sub", "tofu"), 0o755)
	os.MkdirAll(filepath.Join(dir, "sub", "tofu-pdf"), 0o755)
	dev := filepath.Join(dir, "tofu-window-dev"+exe)
	cases := []struct{ self, work, want string }{
		{window, "office", cli},
		{dev, "office", cli},
		{cli, "office", cli},
		{test, "office", test},
		{cli, "pdf", cli}, // no tofu-pdf yet: the fallback
		{filepath.Join(dir, "sub", "tofu-window"), "office", filepath.Join(dir, "sub", "tofu-window")}, // a folder named tofu is not it
		{filepath.Join(dir, "sub", "tofu"), "pdf", filepath.Join(dir, "sub", "tofu")},                  // nor one named tofu-pdf
	}
	for _, c := range cases {
		if got := programFor(c.self, c.work, c.self == lean); got != c.want {
			t.Errorf("%s, work %s: %s, want %s", c.self, c.work, got, c.want)
		}
	}
	os.WriteFile(lean, []byte("x"), 0o755)
	for _, c := range []struct{ self, work, want string }{
		{cli, "pdf", lean},
		{window, "pdf", lean},
		{test, "pdf", lean},
		{cli, "office", cli},
		{lean, "pdf-repair", cli}, // the lean program's repairs: tofu, which links pdfcpu
		{lean, "pdf", lean},
		{filepath.Join(dir, "tofu-tool"+exe), "office", filepath.Join(dir, "tofu-tool"+exe)}, // named like one, not lean: itself
	} {
		if got := programFor(c.self, c.work, c.self == lean); got != c.want {
			t.Errorf("with tofu-pdf: %s, work %s: %s, want %s", c.self, c.work, got, c.want)
		}
	}
}
