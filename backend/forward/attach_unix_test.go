//go:build unix

package forward

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/usersock"
)

// TestAttachFindsTheInstance: with the database free, a command opens it itself; held by a
// process that takes no commands, it is told so; held by an instance, it gets a connection.
func TestAttachFindsTheInstance(t *testing.T) {
	dir := t.TempDir()
	st, c, err := Attach(dir, "test", func(err error) { t.Errorf("warned: %v", err) })
	if err != nil || st == nil || c != nil {
		t.Fatalf("free database: store %v, client %v, %v", st, c, err)
	}
	defer st.Close()
	if _, _, err := Attach(dir, "test", nil); err == nil || !strings.Contains(err.Error(), "takes no commands") {
		t.Fatalf("held without a socket: %v", err)
	}
	stop, err := Listen(dir, "test", nil) // the request below is refused before the app is asked
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	st2, c, err := Attach(dir, "test", nil)
	if err != nil || st2 != nil || c == nil {
		t.Fatalf("held by an instance: store %v, client %v, %v", st2, c, err)
	}
	c.Close()
}

// TestInstanceRefusesAnotherVersion: a command line of another protocol version is told which
// builds speak which version, and nothing else happens on its connection.
func TestInstanceRefusesAnotherVersion(t *testing.T) {
	dir := t.TempDir()
	stop, err := Listen(dir, "tofu-now", nil) // never asked: the version is checked first
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	for name, req := range map[string]Request{
		"newer":      {Version: Version + 1, Tofu: "tofu-next", Search: &SearchRequest{Query: "q"}},
		"no command": {Version: Version, Tofu: "tofu-now"},
	} {
		c, err := usersock.Dial(SocketPath(dir))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Send(req); err != nil {
			t.Fatal(err)
		}
		var f Output
		if err := c.Recv(&f); err != nil || f.Error == nil {
			t.Fatalf("%s: no refusal: %+v, %v", name, f, err)
		}
		var more Output
		if err := c.Recv(&more); err == nil {
			t.Errorf("%s: the connection went on after the refusal: %+v", name, more)
		}
		c.Close()
		msg := f.Error.Message
		switch name {
		case "newer":
			if !strings.Contains(msg, "tofu-now") || !strings.Contains(msg, "tofu-next") || !strings.Contains(msg, fmt.Sprintf("protocol %d", Version)) {
				t.Errorf("version refusal: %q", msg)
			}
		case "no command":
			if !strings.HasPrefix(msg, "bad request") {
				t.Errorf("empty request: %q", msg)
			}
		}
	}
}
