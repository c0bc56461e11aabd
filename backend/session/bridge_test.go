package session

import (
	"testing"

	"github.com/tofu-research/tofu/backend/store"
)

// A chat bridge's conversation with the web off gets no web access for its commands even with
// web access on in the settings; with the web turned on in it, and in the window's own
// conversations, the settings decide.
func TestBridgeConversationWithTheWebOffHasNoNetwork(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.cfg.WebAccess = true
	for _, c := range []struct {
		bridge string
		off    []store.ToolFamily
		want   bool
	}{
		{"telegram", []store.ToolFamily{store.FamilyWeb, store.FamilyBrowser}, false},
		{"telegram", []store.ToolFamily{store.FamilyBrowser}, true},
		{"", []store.ToolFamily{store.FamilyWeb}, true},
	} {
		id := f.session(t, f.ws, "hi")
		if _, err := f.st.UpdateSession(id, func(i *store.SessionInfo) { i.Bridge, i.ToolsOff = c.bridge, c.off }); err != nil {
			t.Fatal(err)
		}
		tr := &Turn{Session: id}
		p, err := f.runner.build(Request{Session: id}, tr)
		if err != nil {
			t.Fatal(err)
		}
		p.release()
		if p.cfg.WebAccess != c.want {
			t.Errorf("bridge %q, off %v: web access %v, want %v", c.bridge, c.off, p.cfg.WebAccess, c.want)
		}
	}
}
