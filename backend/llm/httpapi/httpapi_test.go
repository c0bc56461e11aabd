package httpapi

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
)

func client(t *testing.T, body string) *Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	base, err := ParseBaseURL(srv.URL, "http", "http://host")
	if err != nil {
		t.Fatal(err)
	}
	return &Client{Name: "test", Base: base, HTTP: srv.Client(),
		Words:  Words{TransportWords: llm.TransportWords{MidReply: "cut"}, Malformed: "malformed"},
		Status: func(status int, body []byte, model string) *llm.Error { return &llm.Error{Kind: llm.ErrServer} }}
}

type line struct{ N int }

// Each reader ends in one of four ways: the protocol's end, the callback's Stop, a cut body, a
// line that is not JSON.
func TestStreamEnds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		ndjson     bool
		want       []int
		err        string // "" nil, "stop" Stop, else the llm.Error message
	}{
		{"sse done", "data: {\"N\":1}\n\ndata: [DONE]\n\n", false, []int{1}, ""},
		{"sse cut", "data: {\"N\":1}\n\n", false, []int{1}, "cut"},
		{"sse stop", "data: {\"N\":1}\n\ndata: {\"N\":9}\n\n", false, []int{1, 9}, "stop"},
		{"sse malformed", "data: {\"N\":\n\n", false, nil, "malformed"},
		{"ndjson end", "{\"N\":1}\n\n{\"N\":2}", true, []int{1, 2}, ""},
		{"ndjson stop", "{\"N\":1}\n{\"N\":9}\n{\"N\":3}\n", true, []int{1, 9}, "stop"},
		{"ndjson malformed", "{\"N\":1}\nnot json\n", true, []int{1}, "malformed"},
		{"ndjson line too long", "{\"N\":1}\n" + strings.Repeat("x", 300<<10), true, []int{1}, "cut"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := client(t, tt.body)
			var got []int
			fn := func(l line) error {
				got = append(got, l.N)
				if l.N == 9 {
					return Stop
				}
				return nil
			}
			r := Request{Method: http.MethodGet}
			var err error
			if tt.ndjson {
				err = NDJSON(t.Context(), c, r, 256<<10, fn)
			} else {
				err = SSE(t.Context(), c, r, fn)
			}
			var le *llm.Error
			switch {
			case tt.err == "" && err != nil, tt.err == "stop" && !errors.Is(err, Stop):
				t.Errorf("err = %v, want %q", err, tt.err)
			case tt.err != "" && tt.err != "stop" && (!errors.As(err, &le) || le.Message != tt.err):
				t.Errorf("err = %v, want an llm.Error %q", err, tt.err)
			}
			if len(got) != len(tt.want) || (len(got) > 0 && got[len(got)-1] != tt.want[len(tt.want)-1]) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}
