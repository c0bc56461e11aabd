package app

import (
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/llm/scripted"
)

func modelNames(st ModelStatus) []string {
	var names []string
	for _, m := range st.Models {
		names = append(names, m.Name)
	}
	return names
}

// The window warms the model status as it starts: its page's first Status call takes that
// answer (asked before the page existed), and every later call asks the server again.
func TestFirstStatusTakesTheWarmedAnswer(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	before := modelNames(f.app.Models.Status())
	f.app.Models.Warm()
	<-f.app.Models.warm.done
	f.model.SetModels(scripted.Model{Name: "later:1b"})

	published := f.countModels()
	first := f.app.Models.Status()
	if got := modelNames(first); len(got) != len(before) || got[0] != before[0] {
		t.Fatalf("first status after Warm lists %v; want the warmed %v", got, before)
	}
	if f.countModels() != published+1 {
		t.Fatal("the warmed status was not published to the window")
	}
	if got := modelNames(f.app.Models.Status()); len(got) != 1 || got[0] != "later:1b" {
		t.Fatalf("second status lists %v; want the server's new list [later:1b]", got)
	}
	f.app.Models.Warm() // once taken, Warm does not start again
	if got := modelNames(f.app.Models.Status()); len(got) != 1 || got[0] != "later:1b" {
		t.Fatalf("status after a second Warm lists %v", got)
	}
}

// A warmed answer older than warmTTL is not shown: the first call asks again.
func TestStaleWarmedAnswerIsDropped(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.app.Models.Warm()
	<-f.app.Models.warm.done
	f.app.Models.mu.Lock()
	f.app.Models.warm.started = time.Now().Add(-warmTTL - time.Second)
	f.app.Models.mu.Unlock()
	f.model.SetModels(scripted.Model{Name: "later:1b"})
	if got := modelNames(f.app.Models.Status()); len(got) != 1 || got[0] != "later:1b" {
		t.Fatalf("status lists %v; want a fresh answer [later:1b]", got)
	}
}

// countModels is how many model statuses were sent to the window.
func (f *fixture) countModels() int {
	n := 0
	for _, e := range f.rec.snapshot() {
		if e.topic == TopicModels {
			n++
		}
	}
	return n
}
