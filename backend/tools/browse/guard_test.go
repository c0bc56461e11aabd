package browse

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/browser"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/permission"
)

// listen serves h on addr (127.0.0.2 is loopback too, under another name than 127.0.0.1).
func listen(t *testing.T, addr string, h http.Handler) string {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return l.Addr().String()
}

// user answers the questions calls ask while running, through the real approval service,
// as a person at the window would.
type user struct {
	svc    *permission.Service
	ws     string
	mu     sync.Mutex
	answer permission.Answer
	asked  []string
}

func (u *user) permit(callID, tool string) func(context.Context, []tools.Access) (bool, string) {
	return func(ctx context.Context, access []tools.Access) (bool, string) {
		d := u.svc.Check("s", u.ws, permission.ModeAsk, tool, access)
		switch d.Action {
		case permission.Allow:
			return true, ""
		case permission.Deny:
			return false, d.Reason
		}
		a, err := u.svc.Ask(ctx, "s", u.ws, callID, d, func() error {
			u.mu.Lock()
			u.asked = append(u.asked, d.Subject)
			ans := u.answer
			u.mu.Unlock()
			return u.svc.Answer("s", callID, ans)
		})
		if err != nil {
			return false, err.Error()
		}
		if !a.Allows() {
			return false, "the user denied it"
		}
		return true, ""
	}
}

func (u *user) questions() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.asked...)
}

// TestPagesAskBeforeAnotherHost: with web access on, a link, a server redirect, window.open,
// a meta refresh, a form posted elsewhere and an iframe all lead the browser from an approved
// host (127.0.0.1:A) to another (127.0.0.2:B); each asks from the call that caused it, and
// refused, the other host gets no request at all and the tab stays where it was.
func TestPagesAskBeforeAnotherHost(t *testing.T) {
	var hits atomic.Int32
	other := listen(t, "127.0.0.2:0", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprintf(w, "<title>other</title><p>OTHER-PAGE %s</p>", r.URL.Path)
	}))
	pages := map[string]string{
		"/link":    `<a href="http://OTHER/clicked">away</a>`,
		"/popup":   `<button onclick="window.open('http://OTHER/popup')">pop</button>`,
		"/refresh": `<meta http-equiv="refresh" content="0;url=http://OTHER/refreshed"><p>refreshing</p>`,
		"/form":    `<form method=post action="http://OTHER/steal"><input name=q value=secret><button>Send</button></form>`,
		"/frame":   `<p>framed</p><iframe src="http://OTHER/framed"></iframe>`,
		"/script":  `<button onclick="location.href='http://OTHER/scripted'">go</button>`,
	}
	site := listen(t, "127.0.0.1:0", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/redir" {
			http.Redirect(w, r, "http://"+other+"/redirected", http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<title>site</title>%s", strings.ReplaceAll(pages[r.URL.Path], "OTHER", other))
	}))
	m := browser.New(browser.Options{ProfileDir: filepath.Join(t.TempDir(), "profile"), Idle: time.Hour, WebAccess: func() bool { return true }})
	t.Cleanup(m.Close)
	reg := tools.NewRegistry()
	if err := Add(reg, Options{Browser: m, Session: "s", WebAccess: func() bool { return true }}); err != nil {
		t.Fatal(err)
	}
	u := &user{svc: permission.NewService(nil), ws: t.TempDir(), answer: permission.DenyOnce}
	calls := 0
	call := func(name, args string) tools.Result {
		t.Helper()
		calls++
		id := fmt.Sprintf("c%d", calls)
		res, err := reg.Run(context.Background(), tools.Call{ID: id, Name: name, Arguments: json.RawMessage(args), Workspace: u.ws, Permit: u.permit(id, name)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	open := func(path string) tools.Result {
		t.Helper()
		res := call("browser_navigate", `{"url":"http://`+site+path+`"}`)
		if res.IsError {
			t.Fatalf("open %s: %s", path, res.Text)
		}
		return res
	}
	refused := "refused to open http://" + other + "/"
	staysOnSite := func(what string) {
		t.Helper()
		if n := hits.Load(); n != 0 {
			t.Fatalf("%s: the other host got %d requests", what, n)
		}
		if got := m.Tabs(context.Background(), "s"); len(got) == 0 || !strings.Contains(got[0].URL, site) {
			t.Fatalf("%s: the tab left the site: %+v", what, got)
		}
	}

	res := open("/link")
	res = call("browser_act", `{"actions":[{"do":"click","ref":"`+refIn(t, res.Text, `link "away"`)+`"}]}`)
	if !strings.Contains(res.Text, refused+"clicked") {
		t.Fatalf("a link to another host:\n%s", res.Text)
	}
	staysOnSite("a link")
	if q := u.questions(); len(q) != 1 || q[0] != other {
		t.Fatalf("asked %q, want one question about %s", q, other)
	}

	res = call("browser_navigate", `{"url":"http://`+site+`/redir"}`)
	if !res.IsError || !strings.Contains(res.Text, refused+"redirected") {
		t.Fatalf("a redirect to another host:\n%s", res.Text)
	}
	staysOnSite("a redirect")

	for _, c := range []struct{ page, control, path string }{
		{"/form", `button "Send"`, "steal"},
		{"/script", `button "go"`, "scripted"},
		{"/popup", `button "pop"`, "popup"},
	} {
		res = open(c.page)
		res = call("browser_act", `{"actions":[{"do":"click","ref":"`+refIn(t, res.Text, c.control)+`"}]}`)
		// The question may come a moment after the report (a new tab starts loading late);
		// the call waits for it all the same, and the next report says it was refused.
		if !strings.Contains(res.Text, refused+c.path) {
			res = call("browser_snapshot", `{}`)
		}
		if !strings.Contains(res.Text, refused+c.path) {
			t.Fatalf("%s: no refusal in:\n%s\ntabs %+v", c.page, res.Text, m.Tabs(context.Background(), "s"))
		}
		if c.path == "popup" && !strings.Contains(res.Text, "the new tab it was to open in is closed") {
			t.Fatalf("the blank new tab stays open:\n%s", res.Text)
		}
		staysOnSite(c.page)
	}

	// A meta refresh and an iframe load on their own: the refusal is in this report or the next.
	for _, c := range []struct{ page, path string }{{"/refresh", "refreshed"}, {"/frame", "framed"}} {
		res = open(c.page)
		if !strings.Contains(res.Text, refused+c.path) {
			res = call("browser_snapshot", `{}`)
		}
		if !strings.Contains(res.Text, refused+c.path) {
			t.Fatalf("%s: no refusal in:\n%s", c.page, res.Text)
		}
		staysOnSite(c.page)
	}

	// Without anyone to ask (a headless run under safe), the page is refused without a question.
	asked := len(u.questions())
	res = open("/link")
	ref := refIn(t, res.Text, `link "away"`)
	res, err := reg.Run(context.Background(), tools.Call{ID: "nobody", Name: "browser_act", Arguments: json.RawMessage(`{"actions":[{"do":"click","ref":"` + ref + `"}]}`), Workspace: u.ws})
	if err != nil || !strings.Contains(res.Text, refused+"clicked") || len(u.questions()) != asked {
		t.Fatalf("nobody to ask: %v\n%s", err, res.Text)
	}
	staysOnSite("nobody to ask")

	// Allowed for the session: the page goes on, and that host never asks again.
	u.mu.Lock()
	u.answer = permission.AllowSession
	u.mu.Unlock()
	res = call("browser_act", `{"actions":[{"do":"click","ref":"`+ref+`"}]}`)
	if res.IsError || !strings.Contains(res.Text, "OTHER-PAGE /clicked") {
		t.Fatalf("allowed, the page should be the other host's:\n%s", res.Text)
	}
	asked = len(u.questions())
	res = open("/popup")
	call("browser_act", `{"actions":[{"do":"click","ref":"`+refIn(t, res.Text, `button "pop"`)+`"}]}`)
	if len(u.questions()) != asked {
		t.Fatalf("an approved host asked again: %q", u.questions())
	}
}
