package cli

import (
	"encoding/binary"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/forward"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools/permission"
	"github.com/tofu-research/tofu/backend/usersock"
)

// dialInstance connects to a running instance's socket as a command line would.
func dialInstance(t *testing.T, data string) *usersock.Conn {
	t.Helper()
	c, err := usersock.Dial(forward.SocketPath(filepath.Join(data, "tofu")))
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadLimit(64 << 20) // what the command line takes of the instance's frames
	t.Cleanup(func() { c.Close() })
	return c
}

// refusal reads the instance's answer to a bad request: one error frame, then the end.
func refusal(t *testing.T, c *usersock.Conn) string {
	t.Helper()
	var f forward.Output
	if err := c.Recv(&f); err != nil || f.Error == nil {
		t.Fatalf("no refusal: %+v, %v", f, err)
	}
	var more forward.Output
	if err := c.Recv(&more); err == nil {
		t.Fatalf("the connection went on after the refusal: %+v", more)
	}
	return f.Error.Message
}

// TestForwardAttacks sends what a broken or hostile command line of the same user could to
// a real `tofu serve`: an oversized length prefix, a frame that is not JSON, another protocol
// version, an answer to an approval it was not asked. Each is refused on its connection
// alone, and the instance serves the next command as usual.
func TestForwardAttacks(t *testing.T) {
	srv := llmtestServer(t)
	commandsUnconfined(t) // an approval must be asked: inside the sandbox `touch marker` asks nothing
	ws := t.TempDir()
	data := t.TempDir()
	startServe(t, data)

	t.Run("oversized frame", func(t *testing.T) {
		c := dialInstance(t, data)
		var n [4]byte
		binary.BigEndian.PutUint32(n[:], 0xFFFFFFF0) // 4 GB announced, never sent
		c.Raw().Write(n[:])
		if msg := refusal(t, c); !strings.Contains(msg, "frame too large") {
			t.Fatalf("refused with %q", msg)
		}
	})
	t.Run("not JSON", func(t *testing.T) {
		c := dialInstance(t, data)
		var n [4]byte
		binary.BigEndian.PutUint32(n[:], 5)
		c.Raw().Write(append(n[:], "{run:"...))
		if msg := refusal(t, c); !strings.Contains(msg, "bad request") {
			t.Fatalf("refused with %q", msg)
		}
	})
	t.Run("other version", func(t *testing.T) {
		c := dialInstance(t, data)
		c.Send(forward.Request{Version: forward.Version + 1, Tofu: "future", Run: &forward.RunRequest{Options: RunOptions{Task: "x", Workspace: ws}}})
		if msg := refusal(t, c); !strings.Contains(msg, "command protocol") || !strings.Contains(msg, "future") {
			t.Fatalf("refused with %q", msg)
		}
	})
	t.Run("neither run, chat nor search", func(t *testing.T) {
		c := dialInstance(t, data)
		c.Send(forward.Request{Version: forward.Version})
		if msg := refusal(t, c); !strings.Contains(msg, "neither run, chat nor search") {
			t.Fatalf("refused with %q", msg)
		}
	})
	t.Run("answer to an approval not asked here", func(t *testing.T) {
		script(srv, "done", []llm.ToolCall{tc("c1", "run_command", map[string]any{"command": "touch marker"})})
		c := dialInstance(t, data)
		c.Send(forward.Request{Version: forward.Version, Run: &forward.RunRequest{Options: RunOptions{Task: "touch it", Workspace: ws, Approve: "ask"}}})
		var answers []string
		for {
			var f forward.Output
			if err := c.Recv(&f); err != nil {
				t.Fatalf("the turn did not end: %v (answers %v)", err, answers)
			}
			switch {
			case f.Ask != nil:
				c.Send(forward.Input{Approve: &forward.Approve{Call: "someone-elses-call", Decision: permission.AllowOnce}})
				c.Send(forward.Input{Approve: &forward.Approve{Call: f.Ask.CallID, Decision: permission.DenyOnce}})
			case f.Answered != nil:
				answers = append(answers, f.Answered.Call+":"+f.Answered.Code)
			case f.End != nil:
				if strings.Join(answers, " ") != "someone-elses-call:not_pending c1:" || f.End.Reason != store.EndDone {
					t.Fatalf("answers %v, end %+v", answers, f.End)
				}
				if _, err := os.Stat(filepath.Join(ws, "marker")); err == nil {
					t.Fatal("the denied command ran")
				}
				return
			}
		}
	})
	script(srv, "Still here.")
	if out, errOut, code := tofuAt(t, data, "", "run", "--cwd", ws, "are you there"); code != 0 || !strings.Contains(out, "Still here.") {
		t.Fatalf("after the attacks: exit %d\n%s%s", code, out, errOut)
	}
}

// A symbolic link at the socket's path is not followed: with the database held by a process
// that takes no commands and a link to someone else's socket in its place, the command line
// refuses, and the other socket never hears from it.
func TestForwardSymlinkedSocket(t *testing.T) {
	llmtestServer(t)
	data := t.TempDir()
	dir := filepath.Join(data, "tofu")
	st, err := store.Open(dir) // holds the lock, as another tofu run would
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	decoy, err := usersock.Listen(filepath.Join(t.TempDir(), "decoy.sock"))
	if err != nil {
		t.Fatal(err)
	}
	reached := make(chan bool, 1)
	go func() {
		_, err := decoy.Accept()
		reached <- err == nil
	}()
	if err := os.Symlink(decoy.Path(), forward.SocketPath(dir)); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := tofuAt(t, data, "", "run", "--cwd", t.TempDir(), "hello")
	if code != 1 || !strings.Contains(errOut, "symbolic link") {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	decoy.Close()
	if <-reached {
		t.Fatal("the command line connected through the link")
	}
}

// The page cannot start a turn the way a forwarded command does: that entry point is the
// App's, not a bound service's (every exported method of a service is callable over HTTP).
func TestForwardEntryNotOnThePage(t *testing.T) {
	llmtestServer(t)
	inst := startServe(t, t.TempDir())
	base, token, _ := strings.Cut(inst.url, "/#token=")
	req, _ := http.NewRequest(http.MethodPost, base+"/api/call/ChatService.StartTurn", strings.NewReader(`[null,{"Session":"x","Approve":"all"}]`))
	req.Header.Set("X-Tofu-Token", token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("ChatService.StartTurn over HTTP: %s", resp.Status)
	}
}
