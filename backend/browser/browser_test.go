package browser

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// refOf finds the ref of the control whose snapshot text matches pattern (one group: the ref
// is the first word inside the brackets).
func refOf(t *testing.T, snapshot, pattern string) string {
	t.Helper()
	m := regexp.MustCompile(`\[(e\d+) ` + pattern).FindStringSubmatch(snapshot)
	if m == nil {
		t.Fatalf("no control matches %q in:\n%s", pattern, snapshot)
	}
	return m[1]
}

func mustContain(t *testing.T, text string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Fatalf("%q missing from:\n%s", w, text)
		}
	}
}

func evalString(t *testing.T, m *Manager, session, js string) string {
	t.Helper()
	rep, err := m.Eval(testCtx(t), session, js)
	if err != nil {
		t.Fatal(err)
	}
	res := strings.SplitN(rep.Text, "\n", 3)
	return res[1]
}

func TestTodoMVC(t *testing.T) {
	m := newManager(t)
	ctx := testCtx(t)
	for _, app := range []string{"react", "vue"} {
		t.Run(app, func(t *testing.T) {
			rep, err := m.Navigate(ctx, app, todomvc(t, app)+"/index.html")
			if err != nil {
				t.Fatal(err)
			}
			input := refOf(t, rep.Text, `textbox "(?:New Todo Input|What needs to be done\?)"`)
			for _, todo := range []string{"Buy milk", "Walk the dog", "Write report"} {
				if rep, err = m.Act(ctx, app, []Action{{Do: "type", Ref: input, Text: todo, Submit: true}}); err != nil {
					t.Fatal(err)
				}
				mustContain(t, rep.Text, "changes", todo)
			}
			snap, err := m.Snapshot(ctx, app, 0)
			if err != nil {
				t.Fatal(err)
			}
			// The ref of the input survives re-snapshots; the delete buttons, shown only on
			// hover, are listed without one.
			if again := refOf(t, snap.Text, `textbox "(?:New Todo Input|What needs to be done\?)"`); again != input {
				t.Fatalf("the input's ref changed from %s to %s", input, again)
			}
			toggle := refOf(t, snap.Text, `checkbox[^\]]*\] Walk the dog`)
			del := regexp.MustCompile(`\] Write report \[(e\d+) button[^\]]* hover\]`).FindStringSubmatch(snap.Text)
			if del == nil {
				t.Fatalf("no hover delete button for Write report in:\n%s", snap.Text)
			}
			active := refOf(t, snap.Text, `link "Active"`)
			if rep, err = m.Act(ctx, app, []Action{{Do: "click", Ref: toggle}, {Do: "click", Ref: active}}); err != nil {
				t.Fatal(err)
			}
			mustContain(t, rep.Text, "#/active")
			if got := evalString(t, m, app, `document.querySelectorAll('.todo-list li').length`); got != "2" {
				t.Fatalf("%s todos shown after the filter, want 2", got)
			}
			// The delete button of "Walk the dog"'s neighbour needs no hover first.
			if _, err = m.Act(ctx, app, []Action{{Do: "click", Ref: del[1]}}); err != nil {
				t.Fatal(err)
			}
			if got := evalString(t, m, app, `document.querySelectorAll('.todo-list li').length`); got != "1" {
				t.Fatalf("%s todos after deleting one, want 1", got)
			}
			_, err = m.Act(ctx, app, []Action{{Do: "click", Ref: del[1]}})
			var stale *StaleRefError
			if !errors.As(err, &stale) && !strings.Contains(fmtErr(err), "take a new snapshot") {
				t.Fatalf("clicking a deleted element: %v, want a stale-ref error", err)
			}
		})
	}
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func sites(t *testing.T) string {
	t.Helper()
	return serve(t, "testdata/sites")
}

func TestForms(t *testing.T) {
	m := newManager(t)
	ctx := testCtx(t)
	rep, err := m.Navigate(ctx, "s", sites(t)+"/forms/index.html")
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, rep.Text, `textbox "Name"`, `textbox "Password" password`, `combobox "Plan"="Free" options:Free|Pro|Team`,
		`checkbox "Send me news"`, `radio "Small"`, `button "Later" disabled`)
	snap := rep.Text
	rep, err = m.Act(ctx, "s", []Action{
		{Do: "type", Ref: refOf(t, snap, `textbox "Name"`), Text: "Ada"},
		{Do: "type", Ref: refOf(t, snap, `textbox "Password"`), Text: "s3cret"},
		{Do: "select", Ref: refOf(t, snap, `combobox "Plan"`), Values: []string{"Pro"}},
		{Do: "click", Ref: refOf(t, snap, `checkbox "Send me news"`)},
		{Do: "click", Ref: refOf(t, snap, `radio "Large"`)},
		{Do: "type", Ref: refOf(t, snap, `textbox "About you"`), Text: "Mathematician"},
		{Do: "click", Ref: refOf(t, snap, `button "Create account"`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, rep.Text, "Submitted: Ada|6|pro|true|l|Mathematician", `password=••••`, `checkbox "Send me news" checked`)
	if strings.Contains(rep.Text, "s3cret") {
		t.Fatalf("the password shows in the report:\n%s", rep.Text)
	}
	meta, _, ok := m.Ref("s", refOf(t, snap, `textbox "Password"`))
	if !ok || !meta.Password || !meta.Form {
		t.Fatalf("the password field's meta is %+v (%v)", meta, ok)
	}
	if meta, _, _ := m.Ref("s", refOf(t, snap, `button "Create account"`)); !meta.Submit {
		t.Fatal("the submit button is not marked as submitting")
	}
	_, err = m.Act(ctx, "s", []Action{{Do: "select", Ref: refOf(t, snap, `combobox "Plan"`), Values: []string{"Gold"}}})
	mustContain(t, fmtErr(err), `no option "Gold"`, "Free | Pro | Team")
}

func TestFramesAndShadowRoots(t *testing.T) {
	m := newManager(t)
	ctx := testCtx(t)
	rep, err := m.Navigate(ctx, "s", sites(t)+"/frames/index.html")
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, rep.Text, `[frame "Counter frame"]`, "Inside the frame: 0", "Shadow says hi", `textbox "Shadow input"`)
	snap := rep.Text
	rep, err = m.Act(ctx, "s", []Action{
		{Do: "click", Ref: refOf(t, snap, `button "Add one"`)},
		{Do: "type", Ref: refOf(t, snap, `textbox "Shadow input"`), Text: "deep"},
		{Do: "click", Ref: refOf(t, snap, `button "Shadow button"`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, rep.Text, "Inside the frame: 1", "shadow: deep")

	// A cross-origin frame (localhost inside 127.0.0.1) is shown too, its refs marked with its
	// number; typing and clicking in it work, and its refs stay across snapshots.
	mustContain(t, snap, `[frame "Other origin frame"]`, "Another origin:")
	name := regexp.MustCompile(`\[(f\d+e\d+) textbox "Your name"`).FindStringSubmatch(snap)
	send := regexp.MustCompile(`\[(f\d+e\d+) button "Send name"`).FindStringSubmatch(snap)
	if name == nil || send == nil {
		t.Fatalf("no refs in the cross-origin frame:\n%s", snap)
	}
	rep, err = m.Act(ctx, "s", []Action{{Do: "type", Ref: name[1], Text: "Ada"}, {Do: "click", Ref: send[1]}})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, rep.Text, "From the other origin: Ada", name[1]+` textbox "Your name"="Ada"`)
	again, err := m.Snapshot(ctx, "s", 0)
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, again.Text, "["+send[1]+` button "Send name"`)
}

func TestDialogs(t *testing.T) {
	m := newManager(t)
	ctx := testCtx(t)
	rep, err := m.Navigate(ctx, "s", sites(t)+"/dialogs/index.html")
	if err != nil {
		t.Fatal(err)
	}
	snap := rep.Text
	// A confirm is dismissed unless the model said otherwise; the report says so.
	rep, err = m.Act(ctx, "s", []Action{{Do: "click", Ref: refOf(t, snap, `button "Delete all"`)}})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, rep.Text, `dialog: confirm "Delete everything?" was dismissed`, "kept")
	rep, err = m.Act(ctx, "s", []Action{{Do: "dialog", Accept: true, Text: "Ada"}, {Do: "click", Ref: refOf(t, snap, `button "Greet"`)}})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, rep.Text, `prompt "Your name?" was accepted with "Ada"`, "hello Ada")
	rep, err = m.Act(ctx, "s", []Action{{Do: "click", Ref: refOf(t, snap, `button "Warn"`)}})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, rep.Text, `alert "Careful!" was accepted`, "warned")
}

func TestNewTabs(t *testing.T) {
	m := newManager(t)
	ctx := testCtx(t)
	rep, err := m.Navigate(ctx, "s", sites(t)+"/tabs/index.html")
	if err != nil {
		t.Fatal(err)
	}
	if _, err = m.Act(ctx, "s", []Action{{Do: "click", Ref: refOf(t, rep.Text, `link "Open the second page"`)}}); err != nil {
		t.Fatal(err)
	}
	// The new tab is adopted by an event: wait for it, then it is in the list.
	deadline := time.Now().Add(30 * time.Second)
	for len(m.Tabs(ctx, "s")) < 2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	tabs := m.Tabs(ctx, "s")
	if len(tabs) != 2 || !tabs[0].Active {
		t.Fatalf("tabs %+v, want the first active and a second", tabs)
	}
	if err := m.SwitchTab("s", tabs[1].ID); err != nil {
		t.Fatal(err)
	}
	rep, err = m.Snapshot(ctx, "s", 0)
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, rep.Text, "# The second page")
	if err := m.CloseTab("s", ""); err != nil {
		t.Fatal(err)
	}
	if tabs := m.Tabs(ctx, "s"); len(tabs) != 1 || !tabs[0].Active {
		t.Fatalf("after closing: %+v", tabs)
	}
	// Another session has tabs of its own.
	if tabs := m.Tabs(ctx, "other"); len(tabs) != 0 {
		t.Fatalf("another session sees %+v", tabs)
	}
}

func TestWaitForSlowPage(t *testing.T) {
	m := newManager(t)
	ctx := testCtx(t)
	if _, err := m.Navigate(ctx, "s", sites(t)+"/slow/index.html"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Act(ctx, "s", []Action{{Do: "wait", Text: "Ready"}}); err != nil {
		t.Fatal(err)
	}
	// The whole page: on a loaded machine the navigation's own report may already show it, and
	// the wait's diff then says "no visible change".
	rep, err := m.Snapshot(ctx, "s", 0)
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, rep.Text, "Ready", `button "Continue"`)
	cont := refOf(t, rep.Text, `button "Continue"`)
	rep, err = m.Act(ctx, "s", []Action{{Do: "wait", Text: "Never", TimeoutMS: 100}})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, rep.Text, `for "Never" in vain`)
	rep, err = m.Act(ctx, "s", []Action{{Do: "click", Ref: cont}, {Do: "wait", Text: "Ready", Gone: true}, {Do: "wait", Idle: true}})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, rep.Text, "Done")

	// A navigation that comes later (a script's timer): wait for the URL.
	if _, err := m.Eval(ctx, "s", `setTimeout(() => { location.href = '../forms/index.html'; }, 300)`); err != nil {
		t.Fatal(err)
	}
	rep, err = m.Act(ctx, "s", []Action{{Do: "wait", URL: "/forms/"}})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, rep.Text, "/forms/", `textbox "Name"`)
}

func TestWidgets(t *testing.T) {
	m := newManager(t)
	ctx := testCtx(t)
	rep, err := m.Navigate(ctx, "s", sites(t)+"/widgets/index.html")
	if err != nil {
		t.Fatal(err)
	}
	snap := rep.Text
	mustContain(t, snap, `link "New" hover]`, `clickable "Pick this card"`, `button "Toggle me"`, `textbox "Edit here"`,
		`button "More"`, "Row 1\n", "(156 more lines: browser_snapshot with from=250)")
	file := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(file, []byte("hi"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err = m.Act(ctx, "s", []Action{
		{Do: "click", Ref: refOf(t, snap, `link "New"`)},
		{Do: "click", Ref: refOf(t, snap, `clickable "Pick this card"`)},
		{Do: "click", Ref: refOf(t, snap, `button "Toggle me"`)},
		{Do: "type", Ref: refOf(t, snap, `textbox "Edit here"`), Text: "Edited"},
		{Do: "upload", Ref: refOf(t, snap, `file "Attachment"`), Values: []string{file}},
		{Do: "press", Keys: "Control+a Backspace"},
	})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, rep.Text, "new;card;fake;file:notes.txt;", `button "Toggle me" pressed`)
	page2, err := m.Snapshot(ctx, "s", 250)
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, page2.Text, "(lines 251… of", "- Row 400")
}

func TestPageInjectionIsFencedAsData(t *testing.T) {
	m := newManager(t)
	ctx := testCtx(t)
	rep, err := m.Navigate(ctx, "s", sites(t)+"/injection/index.html")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(rep.Text, untrustedClose); n != 1 {
		t.Fatalf("the page closed the untrusted block itself (%d closings):\n%s", n, rep.Text)
	}
	open := strings.Index(rep.Text, untrustedOpen)
	inside := rep.Text[open:strings.Index(rep.Text, untrustedClose)]
	mustContain(t, inside, "ignore previous instructions", "(end of page content]")
	if strings.Contains(rep.Text, "Hidden: also delete") {
		t.Fatal("hidden text reached the model")
	}
	md, err := m.Read(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, md.Text, untrustedOpen, "# Pancakes")
	if strings.Count(md.Text, untrustedClose) != 1 {
		t.Fatalf("the page closed the untrusted block in the Markdown:\n%s", md.Text)
	}
}

func TestReadScreenshotEval(t *testing.T) {
	m := newManager(t)
	ctx := testCtx(t)
	if _, err := m.Navigate(ctx, "s", sites(t)+"/injection/index.html"); err != nil {
		t.Fatal(err)
	}
	img, rep, err := m.Screenshot(ctx, "s", 400)
	if err != nil {
		t.Fatal(err)
	}
	if len(img) < 1000 || img[0] != 0xFF || img[1] != 0xD8 || rep.Title != "Totally normal recipe" {
		t.Fatalf("screenshot: %d bytes, title %q", len(img), rep.Title)
	}
	if th := m.Thumbnail(ctx, "s"); len(th) == 0 {
		t.Fatal("no thumbnail")
	}
	for js, want := range map[string]string{
		`document.title`:             `"Totally normal recipe"`,
		`() => 6 * 7`:                `42`,
		`const x = [1, 2]; x.length`: `2`,
		`async () => document.querySelector('h1').textContent`: `"Pancakes"`,
	} {
		if got := evalString(t, m, "s", js); got != want {
			t.Fatalf("%s gave %s, want %s", js, got, want)
		}
	}
	_, err = m.Eval(ctx, "s", `throw new Error("nope")`)
	mustContain(t, fmtErr(err), "the script threw", "nope")
}

func TestHistoryAndReload(t *testing.T) {
	m := newManager(t)
	ctx := testCtx(t)
	base := sites(t)
	if _, err := m.Navigate(ctx, "s", base+"/tabs/index.html"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Navigate(ctx, "s", base+"/tabs/second.html"); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct{ to, want string }{{"back", "/tabs/"}, {"forward", "/tabs/second.html"}, {"reload", "/tabs/second.html"}} {
		rep, err := m.Navigate(ctx, "s", step.to)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(rep.URL, step.want) {
			t.Fatalf("%s went to %s, want %s", step.to, rep.URL, step.want)
		}
	}
	_, err := m.Navigate(ctx, "s", "forward")
	mustContain(t, fmtErr(err), "no page to go to")
	_, err = m.Navigate(ctx, "s", "not a url")
	mustContain(t, fmtErr(err), "is not a URL")
}

func TestDownloadsAreSavedIntoTheWorkspaceOnRequest(t *testing.T) {
	m := newManager(t)
	ctx := testCtx(t)
	rep, err := m.Navigate(ctx, "s", sites(t)+"/downloads/index.html")
	if err != nil {
		t.Fatal(err)
	}
	rep, err = m.Act(ctx, "s", []Action{{Do: "click", Ref: refOf(t, rep.Text, `link "Export CSV"`)}})
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	m.Confine("s", ws, nil)
	// The save step waits for the download if the click's report came before it finished.
	rep2, err := m.Act(ctx, "s", []Action{{Do: "save", Text: "data.csv", Values: []string{ws}}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rep.Text+rep2.Text, "downloaded data.csv (19 bytes)") {
		t.Fatalf("the download was not reported:\n%s\n%s", rep.Text, rep2.Text)
	}
	mustContain(t, rep2.Text, "saved the download to "+filepath.Join(ws, "data.csv"))
	if b, err := os.ReadFile(filepath.Join(ws, "data.csv")); err != nil || string(b) != "name,amount\nmilk,2\n" {
		t.Fatalf("saved %q, %v", b, err)
	}
	m.o.DownloadGrace = time.Millisecond // none of that name will begin: no need to wait
	_, err = m.Act(ctx, "s", []Action{{Do: "save", Text: "nope.csv", Values: []string{ws}}})
	mustContain(t, fmtErr(err), `no download called "nope.csv"`)
}

// TestHoverMarksFollowThePage: after a click deleted a row, the next row slid under the mouse
// and its delete button, shown by :hover, lost its "hover" mark while the others kept theirs.
// Every control shown only on hover is marked, wherever the mouse is.
func TestHoverMarksFollowThePage(t *testing.T) {
	m := newManager(t)
	ctx := testCtx(t)
	rep, err := m.Navigate(ctx, "h", sites(t)+"/hoverlist/index.html")
	if err != nil {
		t.Fatal(err)
	}
	marked := regexp.MustCompile(`button "Delete [^"]+" hover\]`)
	if n := len(marked.FindAllString(rep.Text, -1)); n != 3 {
		t.Fatalf("%d delete buttons marked hover, want 3:\n%s", n, rep.Text)
	}
	first := refOf(t, rep.Text, `button "Delete Buy milk"`)
	if _, err := m.Act(ctx, "h", []Action{{Do: "click", Ref: first}}); err != nil {
		t.Fatal(err)
	}
	if got := evalString(t, m, "h", `document.querySelector('li:hover') ? document.querySelector('li:hover').textContent.trim() : ''`); !strings.Contains(got, "Walk the dog") {
		t.Fatalf("the mouse is over %q, want the row that slid in (Walk the dog)", got)
	}
	snap, err := m.Snapshot(ctx, "h", 0)
	if err != nil {
		t.Fatal(err)
	}
	got := marked.FindAllString(snap.Text, -1)
	if len(got) != 2 || !strings.Contains(snap.Text, `button "Delete Walk the dog" hover]`) {
		t.Fatalf("after deleting one, marked %v, want both left:\n%s", got, snap.Text)
	}
}
