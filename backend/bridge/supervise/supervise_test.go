package supervise_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/bridge"
	"github.com/tofu-research/tofu/backend/bridge/bridgetest"
	"github.com/tofu-research/tofu/backend/bridge/supervise"
	"github.com/tofu-research/tofu/backend/bridge/telegram"
	"github.com/tofu-research/tofu/backend/bridge/telegram/telegramtest"
	"github.com/tofu-research/tofu/backend/config"
)

const owner = 1001

// TestSettingsChangesApplyWhileOpen runs a Telegram bridge on the loopback Bot API through the
// supervisor as Settings changes it: nothing runs before Run; on, it connects and answers
// the owner; a new token (named again) runs it anew; its settings changed run it anew with
// them; a bridge that cannot open says why; off, it stops; the end of Run stops the rest.
func TestSettingsChangesApplyWhileOpen(t *testing.T) {
	f := bridgetest.New(t)
	tg := telegramtest.New()
	t.Cleanup(tg.Close)
	var mu sync.Mutex
	token, opened := telegramtest.Token, 0
	var logs []string
	s := supervise.New(func(name string, b config.Bridge) (*bridge.Bridge, error) {
		mu.Lock()
		defer mu.Unlock()
		if b.API == "" {
			return nil, errors.New("no API address")
		}
		p, err := telegram.New(telegram.Options{Token: token, API: b.API, PollTimeout: 200 * time.Millisecond})
		if err != nil {
			return nil, err
		}
		opened++
		o := f.Options(bridge.Options{Platform: p, Allowed: b.Allowed})
		o.Name = name
		return bridge.New(o)
	}, func(format string, args ...any) {
		mu.Lock()
		logs = append(logs, fmt.Sprintf(format, args...))
		mu.Unlock()
	})
	phone := config.Bridge{Platform: "telegram", On: true, API: tg.URL, Allowed: []string{fmt.Sprint(owner)}}

	s.Apply(map[string]config.Bridge{"phone": phone})
	if _, running, _ := s.State("phone"); running || tg.Calls("getMe") != 0 {
		t.Fatalf("a bridge ran before Run (running %v, getMe %d)", running, tg.Calls("getMe"))
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Run(ctx, map[string]config.Bridge{"phone": phone})
	}()
	t.Cleanup(func() { cancel(); <-done })
	connected := func(what string) {
		t.Helper()
		for deadline := time.Now().Add(bridgetest.Patience); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if st, running, _ := s.State("phone"); running && st.Connected {
				return
			}
		}
		st, running, failed := s.State("phone")
		t.Fatalf("%s: never connected: %+v running %v failed %q", what, st, running, failed)
	}
	connected("on")
	tg.Say(owner, owner, "hello")
	whole := func(ms []telegramtest.Message) bool {
		return len(ms) > 0 && !bridgetest.Partial(ms[len(ms)-1].Text)
	}
	if msgs := tg.Wait(fmt.Sprint(owner), bridgetest.Patience, whole); !whole(msgs) {
		t.Fatalf("the owner got no answer: %+v\n%s", msgs, f.Log())
	}

	s.Apply(map[string]config.Bridge{"phone": phone})
	mu.Lock()
	if opened != 1 {
		t.Fatalf("the same settings opened the bridge again (%d opens)", opened)
	}
	mu.Unlock()
	s.Apply(map[string]config.Bridge{"phone": phone}, "phone") // its token changed
	connected("a new token")
	phone.Approve = "safe"
	s.Apply(map[string]config.Bridge{"phone": phone})
	connected("settings changed")
	mu.Lock()
	if opened != 3 {
		t.Fatalf("opens = %d, want 3 (on, new token, new settings)", opened)
	}
	mu.Unlock()

	s.Apply(map[string]config.Bridge{"phone": phone, "broken": {Platform: "telegram", On: true, Allowed: []string{"1"}}})
	if _, running, failed := s.State("broken"); running || failed != "no API address" {
		t.Fatalf("broken: running %v, failed %q", running, failed)
	}
	phone.On = false
	s.Apply(map[string]config.Bridge{"phone": phone, "broken": {Platform: "telegram"}})
	if _, running, _ := s.State("phone"); running {
		t.Fatal("phone still runs after it was turned off")
	}
	if _, _, failed := s.State("broken"); failed != "" {
		t.Fatalf("broken, now off, still says %q", failed)
	}
	polls := tg.Calls("getUpdates")
	phone.On = true
	s.Apply(map[string]config.Bridge{"phone": phone})
	connected("on again")
	cancel()
	<-done
	if _, running, _ := s.State("phone"); running {
		t.Fatal("phone still runs after Run ended")
	}
	if tg.Calls("getUpdates") <= polls {
		t.Fatal("turned on again, it did not poll")
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(strings.Join(logs, "\n"), "bridge broken: no API address") {
		t.Fatalf("the failure to open was not logged: %q", logs)
	}
}
