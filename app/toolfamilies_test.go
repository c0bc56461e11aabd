package app

import (
	"github.com/tofu-research/tofu/backend/desk"
	"slices"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
)

// TestToolFamilyTurnedOnIsOffered: the browser family waits for tool_search by default; turned
// on in the Tools menu its tools are offered from the next turn's first request, on every
// request after; back to "when needed" they wait again. An unknown mode is refused.
func TestToolFamilyTurnedOnIsOffered(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.DemoModel())
	srv.Default(scripted.Reply{Text: "ok"})
	f := newFixtureWith(t, srv, t.TempDir())
	info, _ := f.app.Sessions.Create("")
	if err := f.app.Sessions.SetWorkspace(info.ID, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	browserState := func() desk.ToolFamilyState {
		fams, err := f.app.Sessions.ToolFamilies(info.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range fams {
			if s.Family == store.FamilyBrowser {
				return s
			}
		}
		t.Fatal("no browser family")
		return desk.ToolFamilyState{}
	}
	turns := 0
	offersBrowser := func(msg string) bool {
		t.Helper()
		if err := f.app.Chat.Send(info.ID, msg, scripted.DemoModelName); err != nil {
			t.Fatal(err)
		}
		turns++
		f.waitEnded(t, info.ID, turns)
		chats := srv.Chats()
		return slices.ContainsFunc(chats[len(chats)-1].Request.Tools, func(s llm.ToolSpec) bool { return strings.HasPrefix(s.Name, "browser_") })
	}
	if s := browserState(); !s.On || !s.Deferred || s.Offered {
		t.Fatalf("default: %+v", s)
	}
	if offersBrowser("hello") {
		t.Fatal("browser tools offered by default")
	}
	if err := f.app.Sessions.SetToolFamily(info.ID, store.FamilyBrowser, true); err != nil {
		t.Fatal(err)
	}
	if s := browserState(); !s.On || !s.Offered {
		t.Fatalf("turned on: %+v", s)
	}
	// (Words that ask for no page: a message that asks offers the browser by itself, session/asked.go.)
	if !offersBrowser("go on") || !offersBrowser("again") {
		t.Fatal("browser tools not offered once turned on")
	}
	if err := f.app.Sessions.SetToolFamilyMode(info.ID, store.FamilyBrowser, desk.FamilyAuto); err != nil {
		t.Fatal(err)
	}
	if s := browserState(); !s.On || s.Offered {
		t.Fatalf("back to when needed: %+v", s)
	}
	if offersBrowser("and now") {
		t.Fatal("browser tools offered after going back to when needed")
	}
	if err := f.app.Sessions.SetToolFamilyMode(info.ID, store.FamilyBrowser, "sometimes"); err == nil {
		t.Fatal("an unknown mode was accepted")
	}
	if err := f.app.Sessions.SetToolFamily(info.ID, store.FamilyBrowser, false); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.store.Session(info.ID); len(got.ToolsOn) != 0 || !slices.Equal(got.ToolsOff, []store.ToolFamily{store.FamilyBrowser}) {
		t.Fatalf("off: on %v, off %v", got.ToolsOn, got.ToolsOff)
	}
}
