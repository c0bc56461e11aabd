package cli

import (
	"fmt"
	"testing"

	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
)

// TestSidebarEndToEnd drives the sidebar in headless Chromium against `tofu serve`
// (frontend/e2e/sidebar.e2e.mjs): folders, drag and drop, pin and duplicate by keyboard, a
// reference, delete with Undo, math (a radical's SVG drawn). The store then holds what the
// page did: the deleted conversation in the trash with its log, the copy linked to its source,
// no folder left.
func TestSidebarEndToEnd(t *testing.T) {
	root := e2eRoot(t)
	model := scripted.New(t, scripted.DemoModel())
	isolate(t, model.URL)
	st, url, stop := serveE2E(t, root)
	made := map[string]string{}
	// Older conversations first (the page opens on the latest, "Math"): enough to fill the
	// sidebar at 900×620, one with Markdown for the search snippets.
	for i := 1; i <= 6; i++ {
		info, err := st.CreateSession(fmt.Sprintf("Note %d", i))
		if err != nil {
			t.Fatal(err)
		}
		st.Append(info.ID, store.EventUser, store.UserMessage{Text: fmt.Sprintf("note %d", i)})
	}
	md, err := st.CreateSession("Markdown notes")
	if err != nil {
		t.Fatal(err)
	}
	st.Append(md.ID, store.EventUser, store.UserMessage{Text: "how do I find wombat files"})
	st.Append(md.ID, store.EventAssistant, store.AssistantMessage{Text: "Use **find** to list every wombat file:\n\n```sh\nfind ~ -name '*wombat*'\n```\n"})
	for _, c := range []struct{ title, user, reply string }{
		{"Quokkas", "where do quokkas live", "On Rottnest Island, off Perth."},
		{"Tides", "when is high tide", "Twice a day, about 12 h 25 min apart."},
		{"Math", "the area of a circle", "It is $A = \\pi r^2$, and\n\n$$\\int_0^r 2\\pi s\\,ds = \\pi r^2$$\n\nand a hypotenuse\n\n$$\\sqrt{x^2+1}$$\n\nA pizza costs $5 and a drink $3."},
	} {
		info, err := st.CreateSession(c.title)
		if err != nil {
			t.Fatal(err)
		}
		st.Append(info.ID, store.EventUser, store.UserMessage{Text: c.user})
		st.Append(info.ID, store.EventAssistant, store.AssistantMessage{Text: c.reply})
		made[c.title] = info.ID
	}
	runBrowser(t, root, url, "sidebar.e2e.mjs", "sidebar-e2e.png")
	stop()

	q, err := st.Session(made["Quokkas"])
	if err != nil || !q.InTrash() {
		t.Fatalf("Quokkas: %+v, %v", q, err)
	}
	if evs, _ := st.Events(q.ID); len(evs) != 5 || evs[4].Type != store.EventTrash {
		t.Fatalf("Quokkas' log: %d events", len(evs))
	}
	if tides, _ := st.Session(made["Tides"]); !tides.Pinned {
		t.Fatal("Tides is not pinned")
	}
	all, _ := st.Sessions()
	var copies []store.SessionInfo
	for _, s := range all {
		if s.ForkOf != "" {
			copies = append(copies, s)
		}
		if s.Folder != "" {
			t.Fatalf("%s is still in folder %q", s.Title, s.Folder)
		}
	}
	byTitle := map[string]store.SessionInfo{}
	for _, c := range copies {
		byTitle[c.Title] = c
	}
	if c := byTitle["Copy of Tides"]; len(copies) != 2 || c.ForkOf != made["Tides"] || c.Events != 2 {
		t.Fatalf("copies: %+v", copies)
	}
	if c := byTitle["Copy of Math"]; c.ForkOf != made["Math"] || c.ForkSeq != 2 || c.Events != 2 {
		t.Fatalf("the copy from the reply: %+v", c)
	}
	var folders []string
	if _, err := st.GetJSON(store.FoldersKey, &folders); err != nil || len(folders) != 0 {
		t.Fatalf("folders: %v %v", folders, err)
	}
}
