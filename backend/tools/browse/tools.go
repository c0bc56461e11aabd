package browse

import (
	"context"
	"fmt"
	"strings"

	"github.com/tofu-research/tofu/backend/browser"
	"github.com/tofu-research/tofu/backend/tools"
)

type navigateParams struct {
	URL string `json:"url" description:"URL, or back, forward, reload"`
}

func (b *box) navigate() tools.Tool {
	return tools.Define(tools.Def[navigateParams]{
		Name: "browser_navigate", Description: doc("browser_navigate"), Purpose: "open a URL",
		Example: `{"url":"http://127.0.0.1:8000/"}`,
		Access:  func(_ tools.Call, p navigateParams) []tools.Access { return b.urlAccess(p.URL) },
		Run: guarded(b, func(ctx context.Context, call tools.Call, p navigateParams) (tools.Result, error) {
			target := p.URL
			if !history(p.URL) {
				u, canon, err := parseURL(p.URL)
				if err != nil {
					return tools.Errorf(err.Error()), nil
				}
				if !local(u) && !b.web() {
					return tools.Errorf(errWebOff.Error()), nil
				}
				b.allow(u)
				target = canon
			}
			rep, err := b.o.Browser.Navigate(ctx, b.o.Session, target)
			return b.result(ctx, "navigate", p.URL, rep, err)
		}),
	})
}

// urlAccess is what opening raw touches: a file it reads, or a site it contacts (only with
// web access on; Run refuses other sites when it is off, so there is nothing to approve).
func (b *box) urlAccess(raw string) []tools.Access {
	if history(raw) {
		return nil
	}
	u, canon, err := parseURL(raw)
	if err != nil {
		return nil // Run refuses it
	}
	if u.Scheme == "file" {
		path, _ := browser.FilePath(canon)
		return []tools.Access{{Kind: tools.AccessRead, Path: path}}
	}
	if local(u) || !b.web() {
		return nil
	}
	return []tools.Access{{Kind: tools.AccessNetwork, Target: u.Host}}
}

func history(s string) bool { return s == "back" || s == "forward" || s == "reload" }

func (b *box) web() bool { return b.o.WebAccess != nil && b.o.WebAccess() }

type snapshotParams struct {
	From int `json:"from,omitempty" description:"first line (0-based)"`
}

func (b *box) snapshot() tools.Tool {
	return tools.Define(tools.Def[snapshotParams]{
		Name: "browser_snapshot", Description: doc("browser_snapshot"), Purpose: "page text with refs", ReadOnly: true, Example: `{}`,
		Run: guarded(b, func(ctx context.Context, _ tools.Call, p snapshotParams) (tools.Result, error) {
			rep, err := b.o.Browser.Snapshot(ctx, b.o.Session, p.From)
			return b.result(ctx, "snapshot", "", rep, err)
		}),
	})
}

type actParams struct {
	Actions []browser.Action `json:"actions" description:"steps: {do, ref, text, submit, keys, values, y, url, gone, idle, accept, timeout_ms}"`
}

func (b *box) act() tools.Tool {
	return tools.Define(tools.Def[actParams]{
		Name: "browser_act", Description: doc("browser_act"), Purpose: "click, type on a page",
		Example: `{"actions":[{"do":"type","ref":"e2","text":"milk","submit":true},{"do":"click","ref":"e7"}]}`,
		Access:  b.actAccess,
		Run: guarded(b, func(ctx context.Context, call tools.Call, p actParams) (tools.Result, error) {
			for i, a := range p.Actions {
				if a.Do == "upload" || a.Do == "save" {
					for j, f := range a.Values {
						p.Actions[i].Values[j] = tools.AbsPath(call.Workspace, f)
					}
				}
			}
			if len(p.Actions) == 0 {
				return tools.Errorf(`actions is empty: give steps such as [{"do":"click","ref":"e3"}]`), nil
			}
			var targets []string
			for _, a := range p.Actions {
				what := a.Ref
				if meta, _, ok := b.o.Browser.Ref(b.o.Session, a.Ref); ok && meta.Name != "" {
					what = meta.Name
				}
				targets = append(targets, strings.TrimSpace(a.Do+" "+what))
			}
			rep, err := b.o.Browser.Act(ctx, b.o.Session, p.Actions)
			return b.result(ctx, "act", strings.Join(targets, ", "), rep, err)
		}),
	})
}

// actAccess lists what needs approval in a batch: typing into a password field, submitting
// a form to a site that is not local, uploading a file (it is read, and sent to the site).
// What a ref is comes from the snapshot the model saw; an unknown ref fails in Run.
func (b *box) actAccess(call tools.Call, p actParams) []tools.Access {
	var out []tools.Access
	for _, a := range p.Actions {
		meta, page, _ := b.o.Browser.Ref(b.o.Session, a.Ref)
		at := site(page)
		switch {
		case a.Do == "type" && meta.Password:
			out = append(out, tools.Access{Kind: tools.AccessBrowser, Command: "type a password", Target: at})
		case a.Do == "save":
			for _, f := range a.Values {
				out = append(out, tools.Access{Kind: tools.AccessWrite, Path: f})
			}
		case a.Do == "upload":
			for _, f := range a.Values {
				out = append(out, tools.Access{Kind: tools.AccessRead, Path: f})
			}
			if !b.localPage() {
				out = append(out, tools.Access{Kind: tools.AccessBrowser, Command: "upload files", Target: at})
			}
		}
		submits := (a.Do == "type" && a.Submit || a.Do == "press" && strings.Contains(strings.ToLower(a.Keys), "enter")) && meta.Form ||
			(a.Do == "click" || a.Do == "dblclick") && meta.Submit
		if submits && !b.localPage() {
			out = append(out, tools.Access{Kind: tools.AccessBrowser, Command: "submit a form", Target: at})
		}
	}
	return out
}

type tabsParams struct {
	Op  string `json:"op" enum:"list,open,switch,close"`
	Tab string `json:"tab,omitempty" description:"tab id (switch, close)"`
	URL string `json:"url,omitempty" description:"for open"`
}

func (b *box) tabs() tools.Tool {
	return tools.Define(tools.Def[tabsParams]{
		Name: "browser_tabs", Description: doc("browser_tabs"), Purpose: "browser tabs", Example: `{"op":"list"}`,
		Access: func(_ tools.Call, p tabsParams) []tools.Access {
			if p.Op != "open" || p.URL == "" {
				return nil
			}
			return b.urlAccess(p.URL)
		},
		Run: guarded(b, func(ctx context.Context, _ tools.Call, p tabsParams) (tools.Result, error) {
			m, s := b.o.Browser, b.o.Session
			var err error
			switch p.Op {
			case "open":
				target := p.URL
				if p.URL != "" {
					u, canon, perr := parseURL(p.URL)
					if perr != nil {
						return tools.Errorf(perr.Error()), nil
					}
					if !local(u) && !b.web() {
						return tools.Errorf(errWebOff.Error()), nil
					}
					b.allow(u)
					target = canon
				}
				var id string
				if id, err = m.OpenTab(ctx, s, target); err == nil {
					rep, err := m.Snapshot(ctx, s, 0)
					return b.result(ctx, "open tab", id, rep, err)
				}
			case "switch":
				if err = m.SwitchTab(s, p.Tab); err == nil {
					rep, err := m.Snapshot(ctx, s, 0)
					return b.result(ctx, "switch tab", p.Tab, rep, err)
				}
			case "close":
				err = m.CloseTab(s, p.Tab)
			case "list":
			default:
				return tools.Errorf("op must be list, open, switch or close"), nil
			}
			if err != nil {
				return b.result(ctx, p.Op+" tab", p.Tab, browser.Report{}, err)
			}
			var lines []string
			for _, t := range m.Tabs(ctx, s) {
				mark := " "
				if t.Active {
					mark = "*"
				}
				lines = append(lines, fmt.Sprintf("%s %s %s — %s", mark, t.ID, t.URL, t.Title))
			}
			if len(lines) == 0 {
				return tools.Result{Text: "no tabs are open"}, nil
			}
			return tools.Result{Text: strings.Join(lines, "\n"), Meta: Meta{Action: p.Op + " tabs", Target: p.Tab}}, nil
		}),
	})
}

type noParams struct{}

func (b *box) read() tools.Tool {
	return tools.Define(tools.Def[noParams]{
		Name: "browser_read", Description: doc("browser_read"), Purpose: "page as Markdown", ReadOnly: true, Example: `{}`,
		Run: guarded(b, func(ctx context.Context, _ tools.Call, _ noParams) (tools.Result, error) {
			rep, err := b.o.Browser.Read(ctx, b.o.Session)
			return b.result(ctx, "read", "", rep, err)
		}),
	})
}

type screenshotParams struct {
	Width int `json:"width,omitempty" description:"pixels, default 800"`
}

func (b *box) screenshot() tools.Tool {
	return tools.Define(tools.Def[screenshotParams]{
		Name: "browser_screenshot", Description: doc("browser_screenshot"), Purpose: "image of the page", ReadOnly: true, Example: `{}`,
		Run: guarded(b, func(ctx context.Context, _ tools.Call, p screenshotParams) (tools.Result, error) {
			w := p.Width
			if w <= 0 || w > 1280 {
				w = 800
			}
			img, rep, err := b.o.Browser.Screenshot(ctx, b.o.Session, w)
			res, rerr := b.result(ctx, "screenshot", "", rep, err)
			if err == nil {
				res.Text = fmt.Sprintf("%s %s: screenshot attached (%d px wide)", rep.Tab, rep.URL, w)
				res.Images = [][]byte{img}
			}
			return res, rerr
		}),
	})
}

type evalParams struct {
	JS string `json:"js"`
}

func (b *box) eval() tools.Tool {
	return tools.Define(tools.Def[evalParams]{
		Name: "browser_eval", Description: doc("browser_eval"), Purpose: "run JavaScript", Example: `{"js":"document.title"}`,
		Access: func(_ tools.Call, p evalParams) []tools.Access {
			return []tools.Access{{Kind: tools.AccessBrowser, Command: "run JavaScript", Target: site(b.o.Browser.CurrentURL(b.o.Session))}}
		},
		Run: guarded(b, func(ctx context.Context, _ tools.Call, p evalParams) (tools.Result, error) {
			rep, err := b.o.Browser.Eval(ctx, b.o.Session, p.JS)
			return b.result(ctx, "eval", clipJS(p.JS), rep, err)
		}),
	})
}

func clipJS(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
