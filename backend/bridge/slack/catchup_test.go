package slack

import (
	"encoding/json"
	"fmt"
	"testing"
)

// TestCursorKeepsTheLatestOfTheRecentConversations: the cursor holds each conversation's latest
// handled ts (an older one delivered again does not move it back) and forgets the least recent
// conversations beyond maxKnown; an unreadable cursor starts from nothing known.
func TestCursorKeepsTheLatestOfTheRecentConversations(t *testing.T) {
	p := &Platform{}
	p.resume("not json")
	p.advance("D1", "1765000000.000010")
	p.advance("D1", "1765000000.000009")
	for i := range maxKnown {
		p.advance(fmt.Sprintf("C1:%d", i), fmt.Sprintf("1765000001.%06d", i))
	}
	var seen map[string]string
	cur := p.advance("C1:0", "1765000001.000000")
	if err := json.Unmarshal([]byte(cur), &seen); err != nil {
		t.Fatal(err)
	}
	if len(seen) != maxKnown || seen["D1"] != "" || seen["C1:0"] != "1765000001.000000" {
		t.Fatalf("cursor = %v", seen)
	}
	q := &Platform{}
	q.resume(`{"D1":"1765000000.000010"}`)
	q.advance("D1", "1765000000.000009")
	if got := q.advance("D2", "1765000000.000001"); got != `{"D1":"1765000000.000010","D2":"1765000000.000001"}` {
		t.Fatalf("cursor = %s", got)
	}
	if !after("1765000001.000000", "1765000000.999999") || after("1765000000.000001", "1765000000.000002") || !after("1.1", "") {
		t.Fatal("after compares timestamps wrongly")
	}
}
