package matrix_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/tofu-research/tofu/backend/bridge/bridgetest"
)

// dendrite starts a real Matrix homeserver on 127.0.0.1 (Dendrite, SQLite, federation off,
// open registration) from the binaries build/dendrite.sh builds; TOFU_DENDRITE names their
// folder (make test-matrix sets it; without it the test skips, as in make test-go).
func dendrite(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("TOFU_DENDRITE")
	if bin == "" {
		t.Skip("TOFU_DENDRITE is not set: make test-matrix builds Dendrite and runs this")
	}
	dir := t.TempDir()
	cfg, err := exec.Command(filepath.Join(bin, "generate-config"), "-ci", "-dir", dir).Output()
	if err != nil {
		t.Fatalf("generate-config: %v", err)
	}
	cfg = []byte(strings.Replace(string(cfg), "disable_federation: false", "disable_federation: true", 1))
	if err := os.WriteFile(filepath.Join(dir, "dendrite.yaml"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	keys := exec.Command(filepath.Join(bin, "generate-keys"), "-private-key", "matrix_key.pem")
	keys.Dir = dir
	if out, err := keys.CombinedOutput(); err != nil {
		t.Fatalf("generate-keys: %v: %s", err, out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	logf, err := os.Create(filepath.Join(dir, "dendrite.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(bin, "dendrite"), "-config", "dendrite.yaml", "-http-bind-address", addr,
		"-really-enable-open-registration")
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logf.Name())
			t.Logf("dendrite's log (the end):\n%s", tail(string(b), 3000))
		}
	})
	url := "http://" + addr
	for i := 0; ; i++ {
		resp, err := http.Get(url + "/_matrix/client/versions")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return url
			}
		}
		if i == 1200 {
			t.Fatalf("dendrite did not answer on %s: %v", addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// account registers a user on the homeserver and returns a client logged in as them.
func account(t *testing.T, hs, name string) *mautrix.Client {
	t.Helper()
	anon, err := mautrix.NewClient(hs, "", "")
	if err != nil {
		t.Fatal(err)
	}
	resp, err := anon.RegisterDummy(context.Background(), &mautrix.ReqRegister[any]{Username: name, Password: "pw-" + name + "-12345"})
	if err != nil {
		t.Fatalf("register %s: %v", name, err)
	}
	cli, err := mautrix.NewClient(hs, resp.UserID, resp.AccessToken)
	if err != nil {
		t.Fatal(err)
	}
	return cli
}

// view is what a user sees of the bot's messages in a room, edits applied, kept up to date by
// a sync loop of the user's own.
type view struct {
	cli *mautrix.Client
	bot id.UserID

	mu      sync.Mutex
	order   []id.EventID
	text    map[id.EventID]string
	changed chan struct{}
}

func watch(t *testing.T, cli *mautrix.Client, bot id.UserID, room id.RoomID) *view {
	t.Helper()
	v := &view{cli: cli, bot: bot, text: map[id.EventID]string{}, changed: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		since := ""
		for ctx.Err() == nil {
			resp, err := cli.SyncRequest(ctx, 1000, since, "", false, event.PresenceOffline)
			if err != nil {
				time.Sleep(50 * time.Millisecond)
				continue
			}
			since = resp.NextBatch
			if joined := resp.Rooms.Join[room]; joined != nil {
				v.take(joined.Timeline.Events)
			}
		}
	}()
	return v
}

func (v *view) take(evs []*event.Event) {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, ev := range evs {
		if ev.Sender != v.bot || ev.Type != event.EventMessage {
			continue
		}
		if err := ev.Content.ParseRaw(ev.Type); err != nil && !errors.Is(err, event.ErrContentAlreadyParsed) {
			continue
		}
		msg := ev.Content.AsMessage()
		if msg.RelatesTo != nil && msg.RelatesTo.Type == event.RelReplace && msg.NewContent != nil {
			v.text[msg.RelatesTo.EventID] = msg.NewContent.Body
		} else {
			v.order = append(v.order, ev.ID)
			v.text[ev.ID] = msg.Body
		}
	}
	close(v.changed)
	v.changed = make(chan struct{})
}

// messages are the bot's messages, in order, as they read now.
func (v *view) messages() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := make([]string, len(v.order))
	for i, e := range v.order {
		out[i] = v.text[e]
	}
	return out
}

// waitFor waits until the last message holds want and is whole (not ending in " …").
func (v *view) waitFor(t *testing.T, want string, log func() string) []string {
	t.Helper()
	deadline := time.After(bridgetest.Patience)
	for {
		v.mu.Lock()
		ch := v.changed
		v.mu.Unlock()
		msgs := v.messages()
		if n := len(msgs); n > 0 && strings.Contains(msgs[n-1], want) && !bridgetest.Partial(msgs[n-1]) {
			return msgs
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("the room never showed %q; it holds %q\nlog:\n%s", want, msgs, log())
		}
	}
}

// joined waits until user is a member of room.
func joined(t *testing.T, cli *mautrix.Client, room id.RoomID, user id.UserID) {
	t.Helper()
	for i := 0; ; i++ {
		members, err := cli.JoinedMembers(context.Background(), room)
		if err == nil {
			if _, ok := members.Joined[user]; ok {
				return
			}
		}
		if i == 1200 {
			t.Fatalf("%s never joined %s: %v", user, room, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
