package scripted

import (
	"bufio"
	"net/http"
	"strings"
	"testing"
)

// A held reply sends its first piece and nothing more until Hold is closed; then the rest
// follows and the call completes.
func TestHoldStopsAfterTheFirstPiece(t *testing.T) {
	t.Parallel()
	srv := New(t, DemoModel())
	hold := make(chan struct{})
	srv.OnUser("q").Reply(Reply{Text: "one two three", Chunks: 3, Hold: hold})
	resp, err := http.Post(srv.URL+"/api/chat", "application/json",
		strings.NewReader(`{"model":"`+DemoModelName+`","messages":[{"role":"user","content":"q"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	if !lines.Scan() || !strings.Contains(lines.Text(), `"content":"one`) {
		t.Fatalf("first piece: %q (%v)", lines.Text(), lines.Err())
	}
	// Held: the call is still pending once the first piece has arrived.
	for _, c := range srv.Calls() {
		if c.IsChat() && c.Outcome != OutcomePending {
			t.Fatalf("outcome while held = %q", c.Outcome)
		}
	}
	close(hold)
	var rest []string
	for lines.Scan() {
		rest = append(rest, lines.Text())
	}
	if len(rest) < 2 || !strings.Contains(rest[len(rest)-1], `"done":true`) {
		t.Fatalf("after release: %q", rest)
	}
	calls, err := srv.Wait(t.Context(), func(cs []Call) bool { return len(cs) > 0 && cs[len(cs)-1].Outcome != OutcomePending })
	if err != nil || calls[len(calls)-1].Outcome != OutcomeComplete {
		t.Fatalf("outcome %+v, %v", calls, err)
	}
}

// A client that leaves while its reply is held ends the call as gone.
func TestHoldEndsWhenTheClientLeaves(t *testing.T) {
	t.Parallel()
	srv := New(t, DemoModel())
	srv.OnUser("q").Reply(Reply{Text: "one two three", Chunks: 3, Hold: make(chan struct{})})
	resp, err := http.Post(srv.URL+"/api/chat", "application/json",
		strings.NewReader(`{"model":"`+DemoModelName+`","messages":[{"role":"user","content":"q"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(resp.Body)
	if !lines.Scan() {
		t.Fatal(lines.Err())
	}
	resp.Body.Close()
	calls, err := srv.Wait(t.Context(), func(cs []Call) bool { return len(cs) > 0 && cs[len(cs)-1].Outcome != OutcomePending })
	if err != nil || calls[len(calls)-1].Outcome != OutcomeClientGone {
		t.Fatalf("outcome %+v, %v", calls, err)
	}
}
