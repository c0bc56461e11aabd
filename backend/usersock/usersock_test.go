//go:build unix

package usersock

import (
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

type msg struct {
	Text string `json:"text"`
}

// listen makes a listener in a fresh directory that starts group- and world-readable.
func listen(t *testing.T) *Listener {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	l, err := Listen(filepath.Join(dir, "tofu.sock"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func accept(l *Listener) <-chan *Conn {
	ch := make(chan *Conn, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			close(ch)
			return
		}
		ch <- c
	}()
	return ch
}

func TestRoundTripAndModes(t *testing.T) {
	l := listen(t)
	fi, err := os.Lstat(l.Path())
	if err != nil || fi.Mode()&fs.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket %v, %v", fi.Mode(), err)
	}
	if di, _ := os.Stat(filepath.Dir(l.Path())); di.Mode().Perm() != 0o700 {
		t.Fatalf("directory mode %v", di.Mode().Perm())
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(l.Path()), ".sock-*")); len(left) > 0 {
		t.Fatalf("temporary names left: %v", left)
	}
	got := accept(l)
	c, err := Dial(l.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := <-got
	defer s.Close()
	if err := c.Send(msg{"ping && <ok>"}); err != nil {
		t.Fatal(err)
	}
	var m msg
	if err := s.Recv(&m); err != nil || m.Text != "ping && <ok>" {
		t.Fatalf("%+v, %v", m, err)
	}
	s.Send(msg{"pong"})
	s.Flush(10e9) // written, then closed
	if err := c.Recv(&m); err != nil || m.Text != "pong" {
		t.Fatalf("%+v, %v", m, err)
	}
	if err := c.Recv(&m); !errors.Is(err, io.EOF) {
		t.Fatalf("after Flush: %v", err)
	}
	l.Close()
	if _, err := os.Lstat(l.Path()); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the socket outlived Close: %v", err)
	}
}

// A peer of another uid is closed unread. The listener is told to expect another uid, so
// the refusal runs the real SO_PEERCRED check from one test process.
func TestPeerOfAnotherUserRefused(t *testing.T) {
	l := listen(t)
	l.uid = os.Geteuid() + 1
	refused := make(chan error, 1)
	l.Refused = func(err error) { refused <- err }
	got := accept(l)
	c, err := Dial(l.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Send(msg{"let me in"})
	if err := <-refused; !errors.Is(err, ErrOtherUser) {
		t.Fatalf("refused with %v", err)
	}
	var m msg
	if err := c.Recv(&m); err == nil {
		t.Fatalf("the refused peer read %+v", m)
	}
	l.Close()
	if c, ok := <-got; ok {
		t.Fatalf("a refused connection was accepted: %v", c)
	}
}

// A symbolic link at the socket's path (to someone else's listener) is not followed.
func TestDialRefusesSymlink(t *testing.T) {
	decoy := listen(t)
	reached := accept(decoy)
	dir := t.TempDir()
	path := filepath.Join(dir, "tofu.sock")
	if err := os.Symlink(decoy.Path(), path); err != nil {
		t.Fatal(err)
	}
	if _, err := Dial(path); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("dial through a link: %v", err)
	}
	// Listening over it removes the link, not what it points to.
	l, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if fi, err := os.Lstat(decoy.Path()); err != nil || fi.Mode()&fs.ModeSocket == 0 {
		t.Fatalf("the link's target was touched: %v", err)
	}
	decoy.Close()
	if c, ok := <-reached; ok {
		t.Fatalf("the decoy was reached: %v", c)
	}
}

func TestDialRefusesNonSocket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tofu.sock")
	os.WriteFile(path, []byte("x"), 0o600)
	if _, err := Dial(path); err == nil || !strings.Contains(err.Error(), "not a socket") {
		t.Fatalf("dial a file: %v", err)
	}
	if _, err := Listen(path); err == nil {
		t.Fatal("Listen removed a regular file")
	}
	if _, err := Dial(filepath.Join(t.TempDir(), "none.sock")); !errors.Is(err, ErrNoListener) {
		t.Fatalf("dial nothing: %v", err)
	}
}

// A socket left by a process that died refuses connections: it is stale, and a new Listen
// takes its place.
func TestStaleSocket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tofu.sock")
	dead, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	dead.SetUnlinkOnClose(false)
	dead.Close()
	if _, err := Dial(path); !errors.Is(err, ErrNoListener) {
		t.Fatalf("dial a stale socket: %v", err)
	}
	l, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go l.Accept()
	c, err := Dial(path)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
}

// A length prefix over the limit is refused before anything is allocated or read.
func TestOversizedFrame(t *testing.T) {
	l := listen(t)
	got := accept(l)
	c, err := Dial(l.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := <-got
	defer s.Close()
	s.SetReadLimit(1024)
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], 0xFFFFFFFF)
	c.Raw().Write(n[:])
	var m msg
	if err := s.Recv(&m); !errors.Is(err, ErrFrameTooLarge) {
		t.Fatalf("oversized frame: %v", err)
	}
}

// A peer that stops reading cannot make the sender block or queue without end.
func TestQueueFull(t *testing.T) {
	l := listen(t)
	got := accept(l)
	c, err := Dial(l.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := <-got
	s.queueLimit = 1 << 20
	big := msg{strings.Repeat("x", 64<<10)}
	var sendErr error
	for i := 0; i < 10000 && sendErr == nil; i++ {
		sendErr = s.Send(big)
	}
	if !errors.Is(sendErr, ErrQueueFull) && !errors.Is(sendErr, net.ErrClosed) {
		t.Fatalf("sending to a peer that does not read: %v", sendErr)
	}
}

// TestOtherUserProcess connects as another real user (nobody) with the directory and socket
// opened up, as a misconfigured system might: the peer check alone refuses it. With the
// modes Listen sets, the directory already stops it.
func TestOtherUserProcess(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("running a client as another user needs root")
	}
	if os.Getenv("USERSOCK_PROBE") != "" {
		t.Skip("probe process")
	}
	l := listen(t)
	refused := make(chan error, 2)
	l.Refused = func(err error) { refused <- err }
	go l.Accept()
	// The test binary, where nobody can run it.
	bin := filepath.Join(t.TempDir(), "probe")
	b, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(bin, b, 0o755)
	// Only the test's own directories are opened (never /tmp itself): each t.TempDir is
	// under one directory per test.
	root := filepath.Dir(filepath.Dir(bin))
	open := func(p string) {
		for ; strings.HasPrefix(p, root); p = filepath.Dir(p) {
			os.Chmod(p, 0o755)
		}
	}
	open(filepath.Dir(bin))
	probe := func() string {
		cmd := exec.Command(bin, "-test.run=^TestProbe$")
		cmd.Env = []string{"USERSOCK_PROBE=" + l.Path()}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	if out := probe(); !strings.Contains(out, "PROBE: ") || !strings.Contains(out, "permission denied") {
		t.Fatalf("with private modes: %s", out)
	}
	open(filepath.Dir(l.Path()))
	os.Chmod(l.Path(), 0o666)
	out := probe()
	if !strings.Contains(out, "PROBE: connected") || strings.Contains(out, "PROBE: read") {
		t.Fatalf("with open modes: %s", out)
	}
	if err := <-refused; !errors.Is(err, ErrOtherUser) {
		t.Fatalf("refused with %v", err)
	}
}

// TestProbe is not a test: TestOtherUserProcess runs it as another user.
func TestProbe(t *testing.T) {
	path := os.Getenv("USERSOCK_PROBE")
	if path == "" {
		t.Skip("probe process only")
	}
	c, err := net.Dial("unix", path)
	if err != nil {
		println("PROBE: " + err.Error())
		return
	}
	println("PROBE: connected")
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], 2)
	c.Write(append(n[:], "{}"...))
	if _, err := c.Read(n[:]); err == nil {
		println("PROBE: read a reply")
	}
}
