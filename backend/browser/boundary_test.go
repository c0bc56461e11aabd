package browser

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The browser inside the boundary: local files only from the workspace whatever the URL's
// spelling, every tool judging the page it shows, downloads never written through a link, no
// UDP past the proxy and no implicit proxy bypass for link-local addresses.

// boundary is a workspace with a page and an outside folder with secrets.
type boundary struct {
	ws, outside string
	rule        FileRule
}

const secretText = "OUTSIDE-SECRET-TOKEN"

func newBoundary(t *testing.T) boundary {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b := boundary{ws: filepath.Join(root, "ws"), outside: filepath.Join(root, "outside")}
	for _, d := range []string{b.ws, b.outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(b.outside, "secret.txt"), secretText)
	write(t, filepath.Join(b.outside, "secret.html"), "<title>"+secretText+"</title><p>"+secretText+"</p>")
	write(t, filepath.Join(b.ws, "inside.html"), "<title>inside</title><p>INSIDE-PAGE</p>")
	b.rule = func(path string) (bool, string) {
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			real = path
		}
		if rel, err := filepath.Rel(b.ws, real); err != nil || strings.HasPrefix(rel, "..") {
			return false, real + " is outside the workspace"
		}
		return true, ""
	}
	return b
}

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLocalFilesOnlyFromTheWorkspaceWhateverTheSpelling: Chromium itself refuses every load
// of a file outside the workspace (the file gate: CDP Fetch on every file: request), however
// the URL is written and whatever loads it: the tab, a frame, an <object>, an image, a
// redirect, a new tab.
func TestLocalFilesOnlyFromTheWorkspaceWhateverTheSpelling(t *testing.T) {
	b := newBoundary(t)
	m := newManager(t)
	m.Confine("s", b.ws, b.rule)
	ctx := testCtx(t)
	secret := filepath.Join(b.outside, "secret.txt")
	for _, u := range []string{
		"file://" + secret,
		`file:\\\` + strings.ReplaceAll(strings.TrimPrefix(secret, "/"), "/", `\`),
		"FILE:" + secret,
		"file:" + strings.TrimPrefix(secret, "/"),
		"file://localhost" + secret,
		"file://" + strings.Replace(secret, "secret", "%73ecret", 1),
		"file://" + b.ws + "/%2e%2e/outside/secret.txt",
	} {
		rep, err := m.Navigate(ctx, "s", u)
		if err == nil && strings.Contains(rep.Text, secretText) || strings.Contains(fmtErr(err), secretText) {
			t.Fatalf("%s showed the secret:\n%s", u, rep.Text)
		}
		if err == nil {
			t.Fatalf("%s opened: %s", u, rep.Text)
		}
		mustContain(t, fmtErr(err), "outside the workspace")
	}
	if rep, err := m.Navigate(ctx, "s", "file://"+b.ws+"/inside.html"); err != nil || !strings.Contains(rep.Text, "INSIDE-PAGE") {
		t.Fatalf("a workspace page: %v\n%s", err, rep.Text)
	}

	// A workspace page that frames, embeds, shows and opens the outside files, and redirects.
	write(t, filepath.Join(b.ws, "page.html"), fmt.Sprintf(`<title>page</title><p>PAGE</p>
		<iframe src="file://%[1]s/secret.html"></iframe><object data="file://%[1]s/secret.html"></object>
		<img src="file://%[1]s/secret.png"><button onclick="window.open('file://%[1]s/secret.html')">pop</button>
		<a href="file://localhost%[1]s/secret.html">go</a>`, b.outside))
	rep, err := m.Navigate(ctx, "s", "file://"+b.ws+"/page.html")
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, rep.Text, "PAGE", "refused to open file://"+b.outside+"/secret.html")
	if strings.Contains(rep.Text, secretText) {
		t.Fatalf("the page showed the secret:\n%s", rep.Text)
	}
	read, err := m.Read(ctx, "s")
	if err != nil || strings.Contains(read.Text, secretText) {
		t.Fatalf("read: %v\n%s", err, read.Text)
	}
	page := rep.Text
	rep, err = m.Act(ctx, "s", []Action{{Do: "click", Ref: refOf(t, page, `button "pop"`)}})
	if err != nil || strings.Contains(rep.Text, secretText) {
		t.Fatalf("a new tab of the secret: %v\n%s", err, rep.Text)
	}
	for _, tab := range m.Tabs(ctx, "s") {
		if strings.Contains(tab.URL+tab.Title, "secret") {
			t.Fatalf("a tab shows the secret: %+v", tab)
		}
	}
	rep, err = m.Act(ctx, "s", []Action{{Do: "click", Ref: refOf(t, page, `link "go"`)}})
	if err != nil || strings.Contains(rep.Text, secretText) {
		t.Fatalf("a link to the secret: %v\n%s", err, rep.Text)
	}
	if u := m.CurrentURL("s"); !strings.HasSuffix(u, "/page.html") {
		t.Fatalf("the tab left the page for %s", u)
	}

	// A file the model opened itself, with approval, may show.
	m.AllowFile("s", secret)
	if rep, err := m.Navigate(ctx, "s", "file://"+secret); err != nil || !strings.Contains(rep.Text, secretText) {
		t.Fatalf("an approved file: %v\n%s", err, rep.Text)
	}
}

// TestEveryToolJudgesThePageItShows: whatever let a page show a local file its session may
// not read (here: the rule changed after it loaded), snapshot, read, screenshot, eval, act,
// the tab list and the thumbnail say so and show nothing of it, and the tab is left for
// about:blank.
func TestEveryToolJudgesThePageItShows(t *testing.T) {
	b := newBoundary(t)
	m := newManager(t)
	ctx := testCtx(t)
	write(t, filepath.Join(b.ws, "page.html"), fmt.Sprintf(`<title>page</title><p>PAGE</p><iframe src="file://%s/secret.html"></iframe>`, b.outside))
	allowAll := func(string) (bool, string) { return true, "" }
	load := func() {
		t.Helper()
		m.Confine("s", b.ws, allowAll)
		rep, err := m.Navigate(ctx, "s", "file://"+b.ws+"/page.html")
		if err != nil || !strings.Contains(rep.Text, "PAGE") {
			t.Fatalf("load: %v\n%s", err, rep.Text)
		}
		m.Confine("s", b.ws, b.rule)
	}
	check := func(what, text string, err error) {
		t.Helper()
		if strings.Contains(text, secretText) || strings.Contains(fmtErr(err), secretText) {
			t.Fatalf("%s showed the secret:\n%s", what, text)
		}
		if !shownFile(err) {
			t.Fatalf("%s: %v, want the page closed for the file it shows\n%s", what, err, text)
		}
		if u := m.CurrentURL("s"); u != "" && u != "about:blank" {
			t.Fatalf("%s: the tab stays on %s", what, u)
		}
	}
	load()
	rep, err := m.Snapshot(ctx, "s", 0)
	check("snapshot", rep.Text, err)
	load()
	rep, err = m.Read(ctx, "s")
	check("read", rep.Text, err)
	load()
	img, rep, err := m.Screenshot(ctx, "s", 300)
	check("screenshot", rep.Text, err)
	if img != nil {
		t.Fatal("the screenshot was returned")
	}
	load()
	rep, err = m.Eval(ctx, "s", "document.body.innerText")
	check("eval", rep.Text, err)
	load()
	rep, err = m.Act(ctx, "s", []Action{{Do: "scroll"}})
	check("act", rep.Text, err)
	load()
	if img := m.Thumbnail(ctx, "s"); img != nil {
		t.Fatal("a thumbnail of the page was taken")
	}
	load()
	tabs := m.Tabs(ctx, "s")
	if len(tabs) != 1 || tabs[0].URL != "about:blank" || !strings.Contains(tabs[0].Title, "closed") {
		t.Fatalf("tabs: %+v", tabs)
	}
}

// TestSaveNeverWritesThroughALink: a download saved into the workspace where a link of its
// name (or a linked folder on the way) leads outside is refused, and nothing outside changes;
// a path outside the workspace is refused too.
func TestSaveNeverWritesThroughALink(t *testing.T) {
	b := newBoundary(t)
	m := newManager(t)
	ctx := testCtx(t)
	m.Confine("s", b.ws, b.rule)
	rep, err := m.Navigate(ctx, "s", sites(t)+"/downloads/index.html")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Act(ctx, "s", []Action{{Do: "click", Ref: refOf(t, rep.Text, `link "Export CSV"`)}}); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(b.outside, "data.csv")
	if err := os.Symlink(target, filepath.Join(b.ws, "data.csv")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(b.outside, filepath.Join(b.ws, "out")); err != nil {
		t.Fatal(err)
	}
	for _, dest := range []string{b.ws, filepath.Join(b.ws, "data.csv"), filepath.Join(b.ws, "out"), filepath.Join(b.ws, "out", "x.csv"), filepath.Join(b.outside, "y.csv")} {
		_, err := m.Act(ctx, "s", []Action{{Do: "save", Text: "data.csv", Values: []string{dest}}})
		if err == nil {
			t.Fatalf("saved to %s", dest)
		}
		t.Logf("%s: %v", dest, err)
	}
	entries, _ := os.ReadDir(b.outside)
	if len(entries) != 2 {
		t.Fatalf("something was written outside: %v", entries)
	}
	if _, err := os.Lstat(target); err == nil {
		t.Fatal("the download went through the link")
	}
	rep, err = m.Act(ctx, "s", []Action{{Do: "save", Text: "data.csv", Values: []string{filepath.Join(b.ws, "sub") + "/"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(b.ws, "sub", "data.csv")); err != nil || string(got) != "name,amount\nmilk,2\n" {
		t.Fatalf("saved %q, %v", got, err)
	}
	mustContain(t, rep.Text, "saved the download to "+filepath.Join(b.ws, "sub", "data.csv"))
}

// recordingProxy listens where the dead proxy is and reports each request line that reaches
// it (the test stands in for the closed port to see what Chromium sends there).
func recordingProxy(t *testing.T) <-chan string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	old := deadProxy
	deadProxy = l.Addr().String()
	t.Cleanup(func() { deadProxy = old })
	got := make(chan string, 64)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				line, _ := bufio.NewReader(c).ReadString('\n')
				select {
				case got <- strings.TrimSpace(line):
				default:
				}
				_, _ = c.Write([]byte("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
			}()
		}
	}()
	return got
}

// TestLinkLocalGoesThroughTheProxy: with web access off, a page's request to a link-local
// address (169.254.169.254, the cloud metadata service) goes to the dead proxy like any other
// host, where Chromium by itself would connect directly; loopback pages still load directly.
func TestLinkLocalGoesThroughTheProxy(t *testing.T) {
	proxied := recordingProxy(t)
	m := newManager(t)
	ctx := testCtx(t)
	page := serveHTML(t, `<title>p</title><p>LOOPBACK-PAGE</p><img src="http://169.254.169.254/latest/meta-data/">`)
	rep, err := m.Navigate(ctx, "s", page)
	if err != nil || !strings.Contains(rep.Text, "LOOPBACK-PAGE") {
		t.Fatalf("a loopback page with web access off: %v\n%s", err, rep.Text)
	}
	wait, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	for {
		select {
		case line := <-proxied:
			if strings.Contains(line, "127.0.0.1") {
				t.Fatalf("a loopback request went to the proxy: %s", line)
			}
			if strings.Contains(line, "169.254.169.254") {
				return
			}
		case <-wait.Done():
			t.Fatal("the link-local request did not go through the proxy (Chromium connected directly)")
		}
	}
}

func serveHTML(t *testing.T, body string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(body))
	})}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + l.Addr().String() + "/"
}

// TestWebRTCSendsNoUDP: a page's RTCPeerConnection gathers its candidates (STUN and TURN over
// UDP to a server, the TURN username carrying data) without a single UDP packet leaving: UDP
// would pass the proxy, so WebRTC may use only what a proxy carries.
func TestWebRTCSendsNoUDP(t *testing.T) {
	pc, err := net.ListenPacket("udp", "127.0.0.2:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	var mu sync.Mutex
	var packets int
	go func() {
		buf := make([]byte, 2048)
		for {
			if _, _, err := pc.ReadFrom(buf); err != nil {
				return
			}
			mu.Lock()
			packets++
			mu.Unlock()
		}
	}()
	m := newManager(t)
	ctx := testCtx(t)
	page := serveHTML(t, webrtcPage(pc.LocalAddr().String()))
	if _, err := m.Navigate(ctx, "s", page); err != nil {
		t.Fatal(err)
	}
	// Gathering ends when every server was tried (or there is none it may try).
	rep, err := m.Act(ctx, "s", []Action{{Do: "wait", Text: "gathered", TimeoutMS: 15000}})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, rep.Text, "gathered")
	mu.Lock()
	defer mu.Unlock()
	if packets != 0 {
		t.Fatalf("%d UDP packets reached the STUN/TURN server", packets)
	}
}

// webrtcPage gathers ICE candidates against a STUN and a TURN server at addr and writes
// "gathered" when done.
func webrtcPage(addr string) string {
	return `<title>rtc</title><p id=s>gathering</p><script>
const pc = new RTCPeerConnection({iceServers: [{urls: 'stun:` + addr + `'},
	{urls: 'turn:` + addr + `?transport=udp', username: 'workspace-data', credential: 'x'}]});
pc.createDataChannel('x');
pc.onicegatheringstatechange = () => { if (pc.iceGatheringState === 'complete') document.getElementById('s').textContent = 'gathered'; };
pc.createOffer().then(o => pc.setLocalDescription(o));
</script>`
}
