package procgroup

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startGroup starts a group like a command's: bash leading it with the marker, a child that
// keeps the marker, and one that dropped it. It returns the group and the pids (marked
// child, unmarked child).
func startGroup(t *testing.T) (Group, int, int) {
	t.Helper()
	dir := t.TempDir()
	marker := NewMarker()
	cmd := exec.Command("bash", "-c", `sleep 1000 & echo $! > marked; env -u `+MarkerEnv+` sleep 1000 & echo $! > unmarked; wait`)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), MarkerEnv+"="+marker)
	Prepare(cmd)
	var sp Spawner
	if err := sp.Start(cmd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
		sp.Close()
	})
	g := Describe(cmd.Process.Pid, marker)
	marked, unmarked := readPID(t, filepath.Join(dir, "marked")), readPID(t, filepath.Join(dir, "unmarked"))
	// Until `env` has run, the unmarked child is a copy of bash that still has the marker.
	waitComm(t, marked, "sleep")
	waitComm(t, unmarked, "sleep")
	return g, marked, unmarked
}

// waitComm polls until pid runs the program name.
func waitComm(t *testing.T, pid int, name string) {
	t.Helper()
	for range 6000 {
		if b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm"); strings.TrimSpace(string(b)) == name {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("process %d never ran %s", pid, name)
}

func readPID(t *testing.T, path string) int {
	t.Helper()
	for range 6000 {
		if b, err := os.ReadFile(path); err == nil && strings.HasSuffix(string(b), "\n") {
			n, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s never written", path)
	return 0
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	g, marked, unmarked := startGroup(t)
	if g.Start == 0 || g.Boot == "" || g.Owner != os.Getpid() || g.OwnerStart == 0 {
		t.Fatalf("described %+v", g)
	}
	m := Members(g)
	if !slices.Contains(m, g.PGID) || !slices.Contains(m, marked) || slices.Contains(m, unmarked) {
		t.Fatalf("members %v (leader %d, marked %d, unmarked %d)", m, g.PGID, marked, unmarked)
	}
	// Its owner (this process) lives: the group is not an orphan and is left alone.
	if Orphaned(g) {
		t.Fatal("a group of a live owner counts as orphaned")
	}
	if n, err := Reap(g); n != 0 || err != nil {
		t.Fatalf("reaped %d, %v", n, err)
	}
}

// TestReap: a group whose owner is gone loses every process that carries its marker; a
// process without it, or a record that does not match (another start time, another boot),
// is never touched.
func TestReap(t *testing.T) {
	t.Parallel()
	g, marked, unmarked := startGroup(t)
	for name, other := range map[string]Group{
		"a later start": func() Group { o := g; o.Start += 1 << 40; o.OwnerStart++; return o }(),
		"another boot":  func() Group { o := g; o.Boot = "x"; o.OwnerStart++; return o }(),
		"no start":      func() Group { o := g; o.Start = 0; o.OwnerStart++; return o }(),
		"another mark":  func() Group { o := g; o.Marker = NewMarker(); o.OwnerStart++; return o }(),
	} {
		if n, err := Reap(other); err != nil || n != 0 {
			t.Fatalf("%s: reaped %d, %v", name, n, err)
		}
	}
	if len(Members(g)) != 2 {
		t.Fatalf("a mismatched record killed something: members %v", Members(g))
	}
	dead := g
	dead.OwnerStart++ // as if this pid now belonged to another process: the owner is gone
	if !Orphaned(dead) {
		t.Fatal("not orphaned")
	}
	n, err := Reap(dead)
	if err != nil || n != 2 {
		t.Fatalf("reaped %d, %v", n, err)
	}
	if m := Members(g); len(m) != 0 {
		t.Fatalf("left %v", m)
	}
	if !running(unmarked) || running(marked) {
		t.Fatalf("unmarked running %v, marked running %v", running(unmarked), running(marked))
	}
}

func running(pid int) bool {
	f, ok := stat(pid)
	return ok && f[0] != "Z"
}
