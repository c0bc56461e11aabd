package app

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/gateway"
	"github.com/tofu-research/tofu/backend/llm/router"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
)

// recorder is a fake Emitter that keeps everything sent to the UI.
type recorder struct {
	mu     sync.Mutex
	msgs   []emitted
	notify chan struct{}
}

type emitted struct {
	topic string
	data  any
}

func newRecorder() *recorder { return &recorder{notify: make(chan struct{}, 1)} }

func (r *recorder) Emit(topic string, data any) {
	r.mu.Lock()
	r.msgs = append(r.msgs, emitted{topic, data})
	r.mu.Unlock()
	select {
	case r.notify <- struct{}{}:
	default:
	}
}

func (r *recorder) snapshot() []emitted {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]emitted(nil), r.msgs...)
}

// sessionMsgs returns what was sent on one session's topic.
func (r *recorder) sessionMsgs(id string) []SessionMessage {
	var out []SessionMessage
	for _, m := range r.snapshot() {
		if m.topic == SessionTopic(id) {
			out = append(out, m.data.(SessionMessage))
		}
	}
	return out
}

// waitFor waits until cond holds on what was emitted; it fails the test after a minute, which
// only a hang reaches, even under -race on a loaded machine (no assertion depends on timing).
func (r *recorder) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(time.Minute)
	for !cond() {
		select {
		case <-r.notify:
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func (r *recorder) ended(id string) func() bool {
	return func() bool {
		for _, m := range r.sessionMsgs(id) {
			if m.Kind == "stream" && m.State == "ended" {
				return true
			}
		}
		return false
	}
}

type fixture struct {
	app   *App
	store *store.Store
	rec   *recorder
	fan   *Fanout // the app's emitter: rec, and whatever a test adds
	model *scripted.Server
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	srv := scripted.New(t, scripted.DemoModel()).ScriptDemo()
	return newFixtureWith(t, srv, t.TempDir())
}

// newFixtureWith wires the app, with its database in storeDir, the way the commands do (settings in a config directory, the
// real gateway) against the scripted model server srv.
func newFixtureWith(t *testing.T, srv *scripted.Server, storeDir string) *fixture {
	t.Helper()
	f, closeApp := openFixture(t, srv, storeDir, t.TempDir())
	t.Cleanup(closeApp)
	return f
}

// openFixture is newFixtureWith with the settings in cfgDir; the caller closes it (a test of
// a restart opens the same directories again).
func openFixture(t *testing.T, srv *scripted.Server, storeDir, cfgDir string) (*fixture, func()) {
	t.Helper()
	st, err := store.Open(storeDir)
	if err != nil {
		t.Fatal(err)
	}
	settings := NewSettingsService(config.Open(cfgDir), config.FileSecrets(cfgDir))
	cfg, err := settings.config()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Providers = append([]config.Provider(nil), cfg.Providers...)
	cfg.Providers[0].BaseURL = srv.URL
	if _, err := settings.Update(Settings{Config: cfg}); err != nil {
		t.Fatal(err)
	}
	rec := newRecorder()
	fan := &Fanout{}
	fan.Add(rec)
	a := New(st, fan, settings, fastGateway)
	return &fixture{app: a, store: st, rec: rec, fan: fan, model: srv}, func() { a.Close(); st.Close() }
}

// fastGateway is the real gateway with a retry policy that does not make tests wait.
func fastGateway(cfg config.Config, keys gateway.Keys) (llm.Provider, error) {
	return gateway.New(cfg, keys, router.WithPolicy(router.Policy{
		MaxAttempts: 2, MaxRestarts: 2, BaseBackoff: time.Millisecond, MaxBackoff: time.Millisecond, Jitter: -1,
	}))
}

// setBaseURL points the first provider somewhere else, as a user does in Settings.
func (f *fixture) setBaseURL(t *testing.T, url string) {
	t.Helper()
	set, err := f.app.Settings.Get()
	if err != nil {
		t.Fatal(err)
	}
	set.Providers = append([]config.Provider(nil), set.Providers...)
	set.Providers[0].BaseURL = url
	if _, err := f.app.Settings.Update(set); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) events(t *testing.T, id string) []store.Event {
	t.Helper()
	evs, err := f.app.Sessions.Transcript(id)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

func types(evs []store.Event) string {
	var s []string
	for _, e := range evs {
		s = append(s, string(e.Type))
	}
	return strings.Join(s, ",")
}

func TestSendStreamsAndRecords(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	info, err := f.app.Sessions.Create("")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.app.Chat.Send(info.ID, "What is tofu made of?", scripted.DemoModelName); err != nil {
		t.Fatal(err)
	}
	// The user event is durable when Send returns.
	if evs := f.events(t, info.ID); len(evs) < 1 || evs[0].Type != store.EventUser {
		t.Fatalf("after Send: %s", types(evs))
	}
	f.rec.waitFor(t, "end of stream", f.rec.ended(info.ID))

	evs := f.events(t, info.ID)
	if got := types(evs); got != "user,assistant,usage,model_call" {
		t.Fatalf("events = %s", got)
	}
	var reply store.AssistantMessage
	evs[1].Decode(&reply)
	want := scripted.EchoText("What is tofu made of?")
	if reply.Text != want || reply.Model != scripted.DemoModelName || reply.Provider != "ollama" || reply.Interrupted {
		t.Fatalf("reply = %+v", reply)
	}
	var u llm.Usage
	evs[2].Decode(&u)
	if u.InputTokens == 0 || u.OutputTokens == 0 || u.ContextWindow != 8192 {
		t.Fatalf("usage = %+v", u)
	}

	// The UI saw: started, deltas that add up to the reply, the durable events, ended.
	var streamed strings.Builder
	var kinds []string
	for _, m := range f.rec.sessionMsgs(info.ID) {
		kinds = append(kinds, string(m.Kind))
		if m.Kind == "delta" {
			streamed.WriteString(m.Text)
		}
	}
	if streamed.String() != want {
		t.Fatalf("streamed %q, want %q", streamed.String(), want)
	}
	if kinds[0] != "event" || kinds[1] != "stream" || kinds[len(kinds)-1] != "stream" {
		t.Fatalf("message order = %v", kinds)
	}
	// Deltas are coalesced: fewer messages than the model's chunks is not guaranteed at every
	// speed, but never more.
	deltas := 0
	for _, k := range kinds {
		if k == "delta" {
			deltas++
		}
	}
	if deltas == 0 || deltas > 12 {
		t.Fatalf("%d delta messages for a 6+6-piece reply", deltas)
	}

	got, _ := f.store.Session(info.ID)
	if got.Title != "What is tofu made of?" || got.Model != scripted.DemoModelName {
		t.Fatalf("session after first message: %+v", got)
	}
	// The model got the system prompt and the user message, with a fixed num_ctx.
	chats := f.model.Chats()
	if len(chats) != 1 || chats[0].NumCtx() != 8192 {
		t.Fatalf("chat calls: %+v", chats)
	}
	msgs := chats[0].Request.Messages
	if len(msgs) != 2 || msgs[0].Role != llm.RoleSystem || msgs[1].Content != "What is tofu made of?" {
		t.Fatalf("request messages: %+v", msgs)
	}
}

func TestSecondTurnCarriesHistory(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	info, _ := f.app.Sessions.Create("kept title")
	f.app.Chat.Send(info.ID, "first", scripted.DemoModelName)
	f.rec.waitFor(t, "first reply", f.rec.ended(info.ID))
	if err := f.app.Chat.Send(info.ID, "second", scripted.DemoModelName); err != nil {
		t.Fatal(err)
	}
	f.rec.waitFor(t, "second reply", func() bool { return len(f.events(t, info.ID)) == 8 })
	chats := f.model.Chats()
	msgs := chats[len(chats)-1].Request.Messages
	if len(msgs) != 4 || msgs[2].Role != llm.RoleAssistant || msgs[3].Content != "second" {
		t.Fatalf("second request: %+v", msgs)
	}
	if got, _ := f.store.Session(info.ID); got.Title != "kept title" {
		t.Fatalf("a named conversation was retitled: %q", got.Title)
	}
}

func TestStopKeepsPartialReply(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	info, _ := f.app.Sessions.Create("")
	if err := f.app.Chat.Send(info.ID, "tell me something long", scripted.DemoModelName); err != nil {
		t.Fatal(err)
	}
	f.rec.waitFor(t, "some streamed text", func() bool {
		for _, m := range f.rec.sessionMsgs(info.ID) {
			if m.Kind == "delta" {
				return true
			}
		}
		return false
	})
	if err := f.app.Chat.Send(info.ID, "again", scripted.DemoModelName); !errors.Is(err, ErrBusy) {
		t.Fatalf("Send while streaming: %v, want ErrBusy", err)
	}
	if got := f.app.Chat.Streaming(); len(got) != 1 || got[0] != info.ID {
		t.Fatalf("Streaming() = %v", got)
	}
	f.app.Chat.Stop(info.ID)
	f.rec.waitFor(t, "end of stream", f.rec.ended(info.ID))

	evs := f.events(t, info.ID)
	if got := types(evs); got != "user,assistant,model_call,interrupted" {
		t.Fatalf("events = %s", got)
	}
	var reply store.AssistantMessage
	evs[1].Decode(&reply)
	full := scripted.LongText(400)
	if !reply.Interrupted || reply.Text == "" || len(reply.Text) >= len(full) || !strings.HasPrefix(full, reply.Text) {
		t.Fatalf("partial reply = %+v", reply)
	}
	var why store.Interruption
	evs[3].Decode(&why)
	if why.Reason != "user" {
		t.Fatalf("interruption = %+v", why)
	}
	if len(f.app.Chat.Streaming()) != 0 {
		t.Fatal("still streaming after stop")
	}
	// The model server saw the client go away: the request was really cancelled.
	if _, err := f.model.Wait(context.Background(), func(cs []scripted.Call) bool {
		return cs[len(cs)-1].Outcome == scripted.OutcomeClientGone
	}); err != nil {
		t.Fatal(err)
	}
}

func TestServerDownThenRetry(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// Point the settings at a port where nothing listens.
	f.setBaseURL(t, "http://127.0.0.1:1")
	st := f.app.Models.Status()
	if st.Reachable || st.Error == nil || st.Error.Kind != llm.ErrUnreachable || !strings.Contains(st.Error.Hint, "ollama serve") {
		t.Fatalf("status with server down: %+v", st)
	}
	info, _ := f.app.Sessions.Create("")
	if err := f.app.Chat.Send(info.ID, "are you there?", scripted.DemoModelName); err != nil {
		t.Fatal(err)
	}
	f.rec.waitFor(t, "end of stream", f.rec.ended(info.ID))
	evs := f.events(t, info.ID)
	if got := types(evs); got != "user,model_call,error" {
		t.Fatalf("events = %s", got)
	}
	var e store.ErrorInfo
	evs[2].Decode(&e)
	if e.Kind != llm.ErrUnreachable || !e.Retryable || !strings.Contains(e.Hint, "ollama serve") {
		t.Fatalf("error event = %+v", e)
	}

	// The user fixes the URL and retries: the same message is answered, nothing is lost.
	f.setBaseURL(t, f.model.URL)
	if err := f.app.Chat.Retry(info.ID, scripted.DemoModelName); err != nil {
		t.Fatal(err)
	}
	f.rec.waitFor(t, "retry answer", func() bool { return len(f.events(t, info.ID)) == 6 })
	evs = f.events(t, info.ID)
	if got := types(evs); got != "user,model_call,error,assistant,usage,model_call" {
		t.Fatalf("after retry: %s", got)
	}
	var reply store.AssistantMessage
	evs[3].Decode(&reply)
	if reply.Text != scripted.EchoText("are you there?") {
		t.Fatalf("retry reply = %q", reply.Text)
	}
}

func TestModelMissing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	info, _ := f.app.Sessions.Create("")
	f.app.Chat.Send(info.ID, "hi", "llama9:70b")
	f.rec.waitFor(t, "end of stream", f.rec.ended(info.ID))
	evs := f.events(t, info.ID)
	var e store.ErrorInfo
	if len(evs) != 3 || evs[2].Decode(&e) != nil || e.Kind != llm.ErrModelNotFound || !strings.Contains(e.Hint, "ollama pull llama9:70b") {
		t.Fatalf("events %s, error %+v", types(evs), e)
	}
}

func TestServerDiesMidStream(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.model.OnUser("fragile").Reply(scripted.Reply{Text: "one two three four five six", DieAfter: 3})
	info, _ := f.app.Sessions.Create("")
	f.app.Chat.Send(info.ID, "fragile", scripted.DemoModelName)
	f.rec.waitFor(t, "end of stream", f.rec.ended(info.ID))
	evs := f.events(t, info.ID)
	// The router re-ran the call (twice, with the test policy), then gave up: the last partial
	// reply is kept, then the error.
	got := types(evs)
	if !strings.HasPrefix(got, "user,retry,") || !strings.HasSuffix(got, ",assistant,model_call,error") {
		t.Fatalf("events = %s", got)
	}
	var reply store.AssistantMessage
	evs[len(evs)-3].Decode(&reply)
	var e store.ErrorInfo
	evs[len(evs)-1].Decode(&e)
	if reply.Text == "" || reply.StopReason != "error" || e.Kind != llm.ErrServer {
		t.Fatalf("reply %+v, error %+v", reply, e)
	}
}

func TestModelStatus(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	st := f.app.Models.Status()
	if !st.Reachable || st.Error != nil || len(st.Models) != 1 || st.DefaultModel != scripted.DemoModelName {
		t.Fatalf("status = %+v", st)
	}
	if st.Models[0].ContextWindow != 8192 || !st.Models[0].Has(llm.CapTools) {
		t.Fatalf("model info = %+v", st.Models[0])
	}
	set, _ := f.app.Settings.Get()
	set.Models.Main = "gone:1b"
	f.app.Settings.Update(set)
	st = f.app.Models.Status()
	if st.Error == nil || st.Error.Kind != llm.ErrModelNotFound || st.DefaultModel != scripted.DemoModelName {
		t.Fatalf("status with a missing default = %+v", st)
	}
	f.model.SetModels()
	st = f.app.Models.Status()
	if !st.Reachable || st.Error == nil || st.Error.Kind != llm.ErrNoModels || !strings.Contains(st.Error.Hint, "ollama pull") {
		t.Fatalf("status with no models = %+v", st)
	}
}

func TestSettingsValidationAndKeys(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	good, _ := f.app.Settings.Get()
	for _, bad := range []func(*Settings){
		func(s *Settings) { s.Providers[0].BaseURL = "localhost:11434" },
		func(s *Settings) { s.Providers[0].Type = "ftp" },
		func(s *Settings) { s.ContextWindowCap = 100 },
		func(s *Settings) { s.Providers = nil },
	} {
		s := good
		s.Providers = append([]config.Provider(nil), good.Providers...)
		bad(&s)
		if _, err := f.app.Settings.Update(s); err == nil {
			t.Errorf("Update(%+v) accepted", s.Config)
		}
	}
	s := good
	s.Providers = append(s.Providers, config.Provider{Name: "remote", Type: "openai", BaseURL: " http://10.0.0.2:8000/v1/ "})
	got, err := f.app.Settings.Update(s)
	if err != nil || got.Providers[1].BaseURL != "http://10.0.0.2:8000/v1" || got.ConfigPath == "" {
		t.Fatalf("Update = %+v, %v", got, err)
	}
	got, err = f.app.Settings.SetAPIKeys("remote", []string{"sk-secret-1", "sk-secret-2"})
	if err != nil || got.APIKeys["remote"] != 2 {
		t.Fatalf("SetAPIKeys = %+v, %v", got.APIKeys, err)
	}
	// The keys are never sent back to the UI, nor written into config.json.
	if b, _ := json.Marshal(got); strings.Contains(string(b), "sk-secret") {
		t.Fatalf("settings leak a key: %s", b)
	}
	if b, _ := os.ReadFile(got.ConfigPath); strings.Contains(string(b), "sk-secret") {
		t.Fatal("config.json holds a key")
	}
	if _, err := f.app.Settings.SetAPIKeys("nobody", []string{"k"}); err == nil {
		t.Fatal("keys for an unknown provider accepted")
	}
}

func TestRetriedReplyIsNotDuplicated(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.DemoModel()).ScriptDemo()
	// The first attempt dies after three pieces; the router re-runs the call.
	srv.OnUser("flaky").Times(1).Reply(scripted.Reply{Text: "alpha beta gamma delta epsilon", DieAfter: 3})
	srv.OnUser("flaky").Reply(scripted.Reply{Text: "alpha beta gamma delta epsilon"})
	f := newFixtureWith(t, srv, t.TempDir())
	info, _ := f.app.Sessions.Create("")
	f.app.Chat.Send(info.ID, "flaky", scripted.DemoModelName)
	f.rec.waitFor(t, "end of stream", f.rec.ended(info.ID))
	evs := f.events(t, info.ID)
	if got := types(evs); got != "user,retry,assistant,usage,model_call" {
		t.Fatalf("events = %s", got)
	}
	var reply store.AssistantMessage
	evs[2].Decode(&reply)
	if reply.Text != "alpha beta gamma delta epsilon" {
		t.Fatalf("reply = %q", reply.Text)
	}
	// What the UI was shown after its last reset is exactly the reply.
	var shown strings.Builder
	for _, m := range f.rec.sessionMsgs(info.ID) {
		switch m.Kind {
		case "reset":
			shown.Reset()
		case "delta":
			shown.WriteString(m.Text)
		}
	}
	if shown.String() != reply.Text {
		t.Fatalf("UI shows %q", shown.String())
	}
}

func TestDeleteStopsStreaming(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	info, _ := f.app.Sessions.Create("")
	f.app.Chat.Send(info.ID, "long please", scripted.DemoModelName)
	if err := f.app.Sessions.Delete(info.ID); err != nil {
		t.Fatal(err)
	}
	if len(f.app.Chat.Streaming()) != 0 {
		t.Fatal("reply still streaming after delete")
	}
	list, _ := f.app.Sessions.List()
	if len(list) != 0 {
		t.Fatalf("list after delete: %+v", list)
	}
}

func TestShutdownRecordsInterruption(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	info, _ := f.app.Sessions.Create("")
	f.app.Chat.Send(info.ID, "long please", scripted.DemoModelName)
	f.app.Close()
	evs := f.events(t, info.ID)
	last := evs[len(evs)-1]
	var why store.Interruption
	if last.Type != store.EventInterrupted || last.Decode(&why) != nil || why.Reason != "shutdown" {
		t.Fatalf("events after shutdown: %s", types(evs))
	}
}

func TestSessionsAnnounced(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, _ := f.app.Sessions.Create("a")
	f.app.Sessions.Rename(a.ID, "renamed")
	var last []store.SessionInfo
	for _, m := range f.rec.snapshot() {
		if m.topic == TopicSessions {
			last = m.data.([]store.SessionInfo)
		}
	}
	if len(last) != 1 || last[0].Title != "renamed" {
		t.Fatalf("last sessions announcement: %+v", last)
	}
	if err := f.app.Sessions.Rename("nope", "x"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("rename unknown: %v", err)
	}
}

func TestUsagePricedFromSettings(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	set, _ := f.app.Settings.Get()
	set.Prices = map[string]config.Price{scripted.DemoModelName: {Input: 1, Output: 2}}
	if _, err := f.app.Settings.Update(set); err != nil {
		t.Fatal(err)
	}
	info, _ := f.app.Sessions.Create("")
	f.app.Chat.Send(info.ID, "price me", scripted.DemoModelName)
	f.rec.waitFor(t, "end of stream", f.rec.ended(info.ID))
	for _, ev := range f.events(t, info.ID) {
		if ev.Type == store.EventUsage {
			var u llm.Usage
			ev.Decode(&u)
			want := float64(u.InputTokens)*1e-6 + float64(u.OutputTokens)*2e-6
			if u.CostUSD != want || u.LocalInputTokens == 0 {
				t.Fatalf("usage = %+v, want cost %v", u, want)
			}
			return
		}
	}
	t.Fatal("no usage event")
}
