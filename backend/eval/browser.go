package eval

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/browser"
	"github.com/tofu-research/tofu/backend/llm/tokens"
	"github.com/tofu-research/tofu/backend/shareddata"
)

// BrowserScenario is a site folder's scenario.json: the page to open, the steps a model
// would take (each names its element by CSS; "HOST >>> INNER" looks into an iframe or a
// shadow root), and a JavaScript check that must be true at the end.
type BrowserScenario struct {
	URL   string        `json:"url"`
	Steps []BrowserStep `json:"steps"`
	Check string        `json:"check"`
	// Root is the folder served, relative to the scenario's folder ("": that folder);
	// Shared names it inside the shared data instead ("web/todomvc/react").
	Root   string `json:"root,omitempty"`
	Shared string `json:"shared,omitempty"`
}

// BrowserStep is one step: Action is a browser_act step ("click", "type", "select", "press",
// "hover", "scroll", "upload", "wait", "dialog"), on the element CSS names (none for
// wait, dialog, and press or scroll of the page), with the step's fields.
type BrowserStep struct {
	Action    string   `json:"action"`
	CSS       string   `json:"css,omitempty"`
	Text      string   `json:"text,omitempty"`
	Submit    bool     `json:"submit,omitempty"`
	Keys      string   `json:"keys,omitempty"`
	Values    []string `json:"values,omitempty"`
	Accept    bool     `json:"accept,omitempty"`
	Gone      bool     `json:"gone,omitempty"`
	Idle      bool     `json:"idle,omitempty"`
	Y         int      `json:"y,omitempty"`
	TimeoutMS int      `json:"timeout_ms,omitempty"`
}

// BrowserSite is one site's figures. The keys up to ms_per_action are a contract (issue 11).
type BrowserSite struct {
	Site               string  `json:"site"`
	Passed             bool    `json:"passed"`
	Steps              int     `json:"steps"`
	Unaddressable      int     `json:"unaddressable"`
	SnapshotTokensMean float64 `json:"snapshot_tokens_mean"`
	SnapshotTokensMax  int     `json:"snapshot_tokens_max"`
	HTMLTokens         int     `json:"html_tokens"`
	TextTokens         int     `json:"text_tokens"`
	MsPerAction        float64 `json:"ms_per_action"`
	// FinalSnapshotTokens is Tofu's snapshot of the final URL freshly opened in a new tab
	// (same browser, same storage); PlaywrightSnapshotTokens is Playwright MCP's
	// browser_snapshot of the same (0: not measured).
	FinalSnapshotTokens      int    `json:"final_snapshot_tokens"`
	PlaywrightSnapshotTokens int    `json:"playwright_snapshot_tokens,omitempty"`
	Error                    string `json:"error,omitempty"`

	clicks, types []float64
}

// BrowserReport is the outcome of EvalBrowser.
type BrowserReport struct {
	Sites []BrowserSite `json:"sites"`
	// ColdStartMS is how long Chromium took to start and answer (the first site's browser).
	ColdStartMS float64 `json:"cold_start_ms"`
	ClickP50MS  float64 `json:"click_p50_ms"`
	TypeP50MS   float64 `json:"type_p50_ms"`
	// ToolSchemaTokens are Tofu's browser tool specs; PlaywrightToolSchemaTokens those
	// Playwright MCP lists (0: not measured).
	ToolSchemaTokens           int `json:"tool_schema_tokens"`
	PlaywrightToolSchemaTokens int `json:"playwright_tool_schema_tokens,omitempty"`
	PlaywrightTools            int `json:"playwright_tools,omitempty"`
}

// BrowserOptions tune EvalBrowser.
type BrowserOptions struct {
	// Chromium is the browser to run ("": found as the app finds it).
	Chromium string
	// Playwright, when set, is the command line that starts Playwright MCP over stdio
	// (e.g. node …/@playwright/mcp/cli.js); "--cdp-endpoint URL" is added so it drives the
	// same Chromium.
	Playwright []string
	// ToolSchemaTokens is what Tofu's browser tool specs cost (measured by the caller, which
	// builds them).
	ToolSchemaTokens int
}

// EvalBrowser runs the scenario of each site folder in a fresh browser per site: it serves
// the folder on loopback, and before each step takes the snapshot the model would get, finds
// the ref of the step's element in it (none: unaddressable) and acts through the same code
// as the browser_act tool; then it evaluates the check.
func EvalBrowser(ctx context.Context, dirs []string, opt BrowserOptions) (*BrowserReport, error) {
	rep := &BrowserReport{ToolSchemaTokens: opt.ToolSchemaTokens}
	var clicks, types []float64
	for i, dir := range dirs {
		site, cold, err := evalSite(ctx, dir, opt, rep, i == 0)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			rep.ColdStartMS = cold
		}
		clicks = append(clicks, site.clicks...)
		types = append(types, site.types...)
		rep.Sites = append(rep.Sites, site)
	}
	rep.ClickP50MS, rep.TypeP50MS = median(clicks), median(types)
	return rep, nil
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

// loadScenario reads dir's scenario.json and finds the folder to serve.
func loadScenario(dir string) (*BrowserScenario, string, error) {
	data, err := os.ReadFile(filepath.Join(dir, "scenario.json"))
	if err != nil {
		return nil, "", err
	}
	var sc BrowserScenario
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sc); err != nil {
		return nil, "", fmt.Errorf("%s/scenario.json: %w", dir, err)
	}
	root := dir
	switch {
	case sc.Shared != "":
		if root = shareddata.Path(strings.Split(sc.Shared, "/")...); root == "" {
			return nil, "", fmt.Errorf("%s: the shared data %s is missing (set TOFU_DATA or run from below shared/data)", dir, sc.Shared)
		}
	case sc.Root != "":
		root = filepath.Join(dir, sc.Root)
	}
	return &sc, root, nil
}

func evalSite(ctx context.Context, dir string, opt BrowserOptions, rep *BrowserReport, first bool) (BrowserSite, float64, error) {
	site := BrowserSite{Site: filepath.Base(filepath.Clean(dir))}
	sc, root, err := loadScenario(dir)
	if err != nil {
		return site, 0, err
	}
	site.Steps = len(sc.Steps)
	srv := httptest.NewServer(http.FileServer(http.Dir(root)))
	defer srv.Close()
	profile, err := os.MkdirTemp("", "tofu-eval-browser-")
	if err != nil {
		return site, 0, err
	}
	defer os.RemoveAll(profile)
	m := browser.New(browser.Options{ProfileDir: profile, Bin: opt.Chromium, Idle: time.Hour})
	defer m.Close()
	const session = "eval"
	url := srv.URL + "/" + strings.TrimPrefix(sc.URL, "/")
	if _, err := m.Navigate(ctx, session, url); err != nil {
		site.Error = err.Error()
		return site, 0, nil
	}
	cold := float64(m.StartTime().Microseconds()) / 1000
	var snapTokens []int
	var actionMS float64
	acted := 0
	for i, st := range sc.Steps {
		snap, err := m.Snapshot(ctx, session, 0)
		if err != nil {
			site.Error = fmt.Sprintf("step %d: %v", i+1, err)
			return site, cold, nil
		}
		snapTokens = append(snapTokens, tokens.Count(snap.Text))
		a := browser.Action{Do: st.Action, Text: st.Text, Submit: st.Submit, Keys: st.Keys, Values: st.Values,
			Accept: st.Accept, Gone: st.Gone, Idle: st.Idle, Y: st.Y, TimeoutMS: st.TimeoutMS}
		if st.CSS != "" {
			ref, err := m.RefForCSS(ctx, session, st.CSS)
			if err != nil {
				site.Error = fmt.Sprintf("step %d: %v", i+1, err)
				return site, cold, nil
			}
			if ref == "" {
				site.Unaddressable++
				continue
			}
			a.Ref = ref
		}
		if a.Do == "upload" {
			for j, v := range a.Values {
				a.Values[j] = filepath.Join(root, v)
			}
		}
		start := time.Now()
		if _, err := m.Act(ctx, session, []browser.Action{a}); err != nil {
			site.Error = fmt.Sprintf("step %d (%s %s): %v", i+1, st.Action, st.CSS, err)
			break
		}
		ms := float64(time.Since(start).Microseconds()) / 1000
		actionMS += ms
		acted++
		switch a.Do {
		case "click":
			site.clicks = append(site.clicks, ms)
		case "type":
			site.types = append(site.types, ms)
		}
	}
	if acted > 0 {
		site.MsPerAction = actionMS / float64(acted)
	}
	for _, n := range snapTokens {
		site.SnapshotTokensMean += float64(n) / float64(len(snapTokens))
		site.SnapshotTokensMax = max(site.SnapshotTokensMax, n)
	}
	if site.Error == "" {
		ok, err := m.EvalValue(ctx, session, sc.Check)
		switch {
		case err != nil:
			site.Error = "check: " + err.Error()
		case ok != "true":
			site.Error = fmt.Sprintf("check %s is %s", sc.Check, ok)
		default:
			site.Passed = site.Unaddressable == 0
		}
	}
	if html, err := m.EvalValue(ctx, session, `document.documentElement.outerHTML`); err == nil {
		site.HTMLTokens = tokens.Count(unquote(html))
	}
	if text, err := m.EvalValue(ctx, session, `document.body ? document.body.innerText : ''`); err == nil {
		site.TextTokens = tokens.Count(unquote(text))
	}
	final, err := m.EvalValue(ctx, session, `location.href`)
	if err != nil {
		return site, cold, nil
	}
	// The final page, freshly opened in another tab of the same browser (same storage), by
	// Tofu and by Playwright MCP: the same state for both.
	if rep2, err := m.Navigate(ctx, "final", unquote(final)); err == nil {
		site.FinalSnapshotTokens = tokens.Count(rep2.Text)
	}
	if len(opt.Playwright) > 0 {
		pw, tools, schema, err := playwrightSnapshot(ctx, opt.Playwright, m.ControlURL(), unquote(final))
		if err != nil {
			site.Error = strings.TrimSpace(site.Error + "; playwright: " + err.Error())
		} else {
			site.PlaywrightSnapshotTokens = pw
			rep.PlaywrightTools, rep.PlaywrightToolSchemaTokens = tools, schema
		}
	}
	return site, cold, nil
}

func unquote(js string) string {
	var s string
	if json.Unmarshal([]byte(js), &s) != nil {
		return js
	}
	return s
}

// WriteText prints the report as a table.
func (r *BrowserReport) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%-16s %6s %5s %7s %9s %8s %7s %6s %8s %7s %10s\n",
		"site", "passed", "steps", "unaddr", "snap mean", "snap max", "html", "text", "ms/act", "final", "playwright")
	for _, s := range r.Sites {
		fmt.Fprintf(bw, "%-16s %6v %5d %7d %9.1f %8d %7d %6d %8.1f %7d %10d\n", s.Site, s.Passed, s.Steps, s.Unaddressable,
			s.SnapshotTokensMean, s.SnapshotTokensMax, s.HTMLTokens, s.TextTokens, s.MsPerAction, s.FinalSnapshotTokens, s.PlaywrightSnapshotTokens)
		if s.Error != "" {
			fmt.Fprintf(bw, "  %s\n", s.Error)
		}
	}
	fmt.Fprintf(bw, "cold start %.0f ms; click p50 %.1f ms; type p50 %.1f ms; tool schemas %d tokens", r.ColdStartMS, r.ClickP50MS, r.TypeP50MS, r.ToolSchemaTokens)
	if r.PlaywrightTools > 0 {
		fmt.Fprintf(bw, " (Playwright MCP: %d tools, %d tokens)", r.PlaywrightTools, r.PlaywrightToolSchemaTokens)
	}
	fmt.Fprintln(bw)
	return bw.Flush()
}

// WriteJSON prints the report as JSON.
func (r *BrowserReport) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
