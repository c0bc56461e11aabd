package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/tofu-research/tofu/backend/paper/library"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/shareddata"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
)

// testPaper reads a paper of the shared evaluation set, failing when the set is not there.
func testPaper(t *testing.T, id string) []byte {
	t.Helper()
	p := shareddata.Require(t, "papers", id, "paper.pdf")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// newPaperFixture is newFixture without the demo script (whose "long" rule would catch any
// passage mentioning a longitude): paper tests script the model themselves.
func newPaperFixture(t *testing.T, dir string) *fixture {
	t.Helper()
	return newFixtureWith(t, scripted.New(t, scripted.DemoModel()), dir)
}

var passagePages = regexp.MustCompile(`<passage id=\d+ section="[^"]*">\n\[page (\d+)\]`)

// citeFirstPassage answers with a citation of the first page of the first passage it was given,
// as a grounded model would.
func citeFirstPassage(req llm.Request) scripted.Reply {
	m := passagePages.FindStringSubmatch(scripted.LastUser(req))
	if m == nil {
		return scripted.Reply{Text: "The passages do not say."}
	}
	return scripted.Reply{Text: fmt.Sprintf("On 27 February 2007 the Fed warned of a recession [p. %s].", m[1])}
}

func TestPaperQAGrounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f := newPaperFixture(t, dir)
	f.model.On(func(req llm.Request) bool { return strings.Contains(scripted.LastUser(req), "<passage") }).ReplyFunc(citeFirstPassage)

	pdf := testPaper(t, "icml2024_altmeyer_agi_claims")
	info, err := f.app.Papers.Import("altmeyer.pdf", pdf)
	if err != nil {
		t.Fatal(err)
	}
	if info.Pages != 21 || !strings.Contains(info.Title, "AGI") || info.Chunks < 10 {
		t.Fatalf("imported %+v", info)
	}
	again, err := f.app.Papers.Import("copy.pdf", pdf)
	if err != nil || again.ID != info.ID {
		t.Fatalf("importing the same file again: %+v, %v", again, err)
	}
	if list, _ := f.app.Papers.List(); len(list) != 1 {
		t.Fatalf("library has %d papers, want 1", len(list))
	}

	sid, err := f.app.Papers.Ask(info.ID, "On which date did the Fed warn that the US economy was at risk of a recession at the onset of the Global Financial Crisis?", scripted.DemoModelName)
	if err != nil {
		t.Fatal(err)
	}
	f.rec.waitFor(t, "the answer", f.rec.ended(sid))

	// The request carried the passages, the first from page 4, where the answer is.
	chats := f.model.Chats()
	if len(chats) != 1 {
		t.Fatalf("%d chat requests", len(chats))
	}
	sent := scripted.LastUser(*chats[0].Request)
	if m := passagePages.FindStringSubmatch(sent); m == nil || m[1] != "4" {
		t.Fatalf("first passage sent is not from page 4:\n%.600s", sent)
	}
	if !strings.Contains(sent, "27 February 2007") || !strings.Contains(chats[0].Request.Messages[0].Content, "[p. N]") {
		t.Fatalf("the request lacks the answer's passage or the citation instruction:\n%.600s", sent)
	}
	// The log is white-box: user, retrieval (naming page 4 first), assistant citing it.
	evs := f.events(t, sid)
	if got := types(evs); got != "user,retrieval,assistant,usage,model_call" {
		t.Fatalf("events: %s", got)
	}
	var rec store.Retrieval
	evs[1].Decode(&rec)
	if rec.Method != "bm25" || rec.Paper != info.ID || len(rec.Chunks) == 0 || rec.Chunks[0].Pages[0] != 4 {
		t.Fatalf("retrieval event: %+v", rec)
	}
	var reply store.AssistantMessage
	evs[2].Decode(&reply)
	if !strings.Contains(reply.Text, "[p. 4]") {
		t.Fatalf("answer: %q", reply.Text)
	}
	// The conversation is linked to the paper, and the user's words are logged as typed.
	s, _ := f.store.Session(sid)
	if s.Paper != info.ID || s.Purpose != "qa" {
		t.Fatalf("session %+v", s)
	}
	var u store.UserMessage
	evs[0].Decode(&u)
	if strings.Contains(u.Text, "<passage") {
		t.Fatal("the passages leaked into the user event")
	}

	// Reopen: the paper, its chunks and its Q&A are there without extracting again.
	f.app.Close()
	f.store.Close()
	g := newPaperFixture(t, dir)
	view, err := g.app.Papers.Open(info.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(view.Chunks) != info.Chunks || view.Info.QA != sid || view.Info.Opened.IsZero() || view.PDFURL != "/api/paper/"+info.ID+".pdf" {
		t.Fatalf("view after reopen: %+v", view.Info)
	}

	// The PDF is served as it was imported, with range requests.
	h := g.app.PaperHandler()
	rr := httptest.NewRecorder()
	h.ServeHTTP(rr, httptest.NewRequest("GET", view.PDFURL, nil))
	if rr.Code != 200 || rr.Body.Len() != len(pdf) || rr.Header().Get("Content-Type") != "application/pdf" {
		t.Fatalf("GET pdf: %d, %d bytes", rr.Code, rr.Body.Len())
	}
	req := httptest.NewRequest("GET", view.PDFURL, nil)
	req.Header.Set("Range", "bytes=1048570-1048579")
	rr = httptest.NewRecorder()
	h.ServeHTTP(rr, req)
	if rr.Code != http.StatusPartialContent || rr.Body.String() != string(pdf[1048570:1048580]) {
		t.Fatalf("range request: %d %q", rr.Code, rr.Body.String())
	}

	// Delete takes everything with it.
	if err := g.app.Papers.Delete(info.ID); err != nil {
		t.Fatal(err)
	}
	if list, _ := g.app.Papers.List(); len(list) != 0 {
		t.Fatal("paper still listed")
	}
	if _, err := g.store.Session(sid); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Q&A session survived: %v", err)
	}
	if _, err := g.store.Blob(library.PDFKey(info.ID)); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("PDF blob survived: %v", err)
	}
	rr = httptest.NewRecorder()
	h.ServeHTTP(rr, httptest.NewRequest("GET", view.PDFURL, nil))
	if rr.Code != 404 {
		t.Fatalf("deleted pdf: %d", rr.Code)
	}
}

func TestPaperReportAndTranslation(t *testing.T) {
	t.Parallel()
	f := newPaperFixture(t, t.TempDir())
	f.model.OnUser("## TL;DR").Reply(scripted.Reply{Text: "## TL;DR\nA short paper [p. 1].\n## Key results\n- F1 0.9 [p. 3]"})
	f.model.On(func(req llm.Request) bool {
		return len(req.Messages) > 0 && strings.Contains(req.Messages[0].Content, "Translate each numbered")
	}).ReplyFunc(func(req llm.Request) scripted.Reply {
		var b strings.Builder
		for _, m := range regexp.MustCompile(`⟦(\d+)⟧`).FindAllStringSubmatch(scripted.LastUser(req), -1) {
			fmt.Fprintf(&b, "⟦%s⟧ FR-%s\n\n", m[1], m[1])
		}
		return scripted.Reply{Text: b.String()}
	})
	info, err := f.app.Papers.Import("specter.pdf", testPaper(t, "specter_acl2020"))
	if err != nil {
		t.Fatal(err)
	}

	sid, err := f.app.Papers.Report(info.ID, scripted.DemoModelName)
	if err != nil {
		t.Fatal(err)
	}
	f.rec.waitFor(t, "the report", f.rec.ended(sid))
	md, err := f.app.Papers.ReportMarkdown(info.ID)
	if err != nil || !strings.Contains(md, "## TL;DR") || !strings.HasPrefix(md, "# "+info.Title) {
		t.Fatalf("report markdown: %v\n%s\n%s %s", err, md, types(f.events(t, sid)), f.events(t, sid)[len(f.events(t, sid))-1].Data)
	}
	if view, _ := f.app.Papers.Open(info.ID); !strings.Contains(view.Report, "F1 0.9") {
		t.Fatalf("view.Report = %q", view.Report)
	}
	// In the window, export goes through the native save dialog to the chosen file.
	if _, err := f.app.Papers.SaveExport(info.ID, "report", ""); err == nil {
		t.Fatal("SaveExport without a dialog (a browser) succeeded")
	}
	exported := filepath.Join(t.TempDir(), "out.md")
	dialogs := &fakeDialogs{path: exported}
	f.app.SetDialogs(dialogs)
	if path, err := f.app.Papers.SaveExport(info.ID, "report", ""); err != nil || path != exported {
		t.Fatalf("SaveExport = %q, %v", path, err)
	}
	if b, _ := os.ReadFile(exported); string(b) != md {
		t.Fatalf("exported file differs from the report markdown")
	}
	if !strings.HasSuffix(dialogs.asked, "-report.md") || strings.ContainsAny(dialogs.asked, " :/") {
		t.Fatalf("suggested name %q", dialogs.asked)
	}
	dialogs.path = "" // cancelled
	if path, err := f.app.Papers.SaveExport(info.ID, "report", ""); err != nil || path != "" {
		t.Fatalf("cancelled SaveExport = %q, %v", path, err)
	}
	var rec store.Retrieval
	evs := f.events(t, sid)
	evs[1].Decode(&rec)
	if rec.Method != "full_text" || rec.Words < 1500 || rec.Words > 3200 || rec.Chunks[len(rec.Chunks)-1].Pages[0] < 6 {
		t.Fatalf("report retrieval: %s %+v", types(evs), rec)
	}

	// Before any translation the reader's question has an answer: none, not an error.
	if none, err := f.app.Papers.Translation(info.ID, "French"); none != nil || err != nil {
		t.Fatalf("translation before translating = %+v, %v; want nil, nil", none, err)
	}
	if err := f.app.Papers.Translate(info.ID, "French", scripted.DemoModelName); err != nil {
		t.Fatal(err)
	}
	f.rec.waitFor(t, "the translation", func() bool {
		for _, m := range f.rec.snapshot() {
			if p, ok := m.data.(TranslationProgress); ok && m.topic == PaperTopic(info.ID) && p.State != "running" {
				if p.State != "done" {
					t.Fatalf("translation ended %+v", p)
				}
				return true
			}
		}
		return false
	})
	// The details (batches, skipped paragraphs, the logged calls) are tested in
	// backend/paper/library; here the bound methods reach it.
	tr, err := f.app.Papers.Translation(info.ID, "French")
	if err != nil || tr == nil || !tr.Done || tr.Session == "" {
		t.Fatalf("translation: %v %+v", err, tr)
	}
	out, _ := f.app.Papers.TranslationMarkdown(info.ID, "French")
	if !strings.Contains(out, "FR-1") {
		t.Fatalf("translation markdown:\n%.500s", out)
	}
}

// Over HTTP an import error answer carries its kind and hint (the cases are tested in
// backend/paper/library).
func TestPaperImportErrorOverHTTP(t *testing.T) {
	t.Parallel()
	f := newPaperFixture(t, t.TempDir())
	rr := httptest.NewRecorder()
	f.app.PaperHandler().ServeHTTP(rr, httptest.NewRequest("POST", "/api/paper/import?name=x.pdf", strings.NewReader("junk")))
	var body map[string]string
	json.NewDecoder(io.Reader(rr.Body)).Decode(&body)
	if rr.Code != 400 || body["kind"] != "corrupt" || body["hint"] == "" {
		t.Fatalf("HTTP import of junk: %d %v", rr.Code, body)
	}
	if list, _ := f.app.Papers.List(); len(list) != 0 {
		t.Fatalf("library after a bad import: %+v", list)
	}
}

// Importing from arXiv needs web access: off by default, nothing is downloaded and the user
// is told why (the import itself is tested in backend/paper/library).
func TestImportArxivNeedsWebAccess(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	if _, err := f.app.Papers.ImportArxiv("2401.12345"); err == nil || !strings.Contains(err.Error(), "web access is off") {
		t.Fatalf("import with web access off: %v", err)
	}
}

// fakeDialogs answers the save dialog with path ("" = cancelled) and records the suggestion.
type fakeDialogs struct{ path, asked string }

func (d *fakeDialogs) ChooseDirectory(string, string) (string, error) { return "", nil }
func (d *fakeDialogs) ChooseSaveFile(_, name string) (string, error) {
	d.asked = name
	return d.path, nil
}
