package browser

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	_ "image/png" // screenshots arrive as PNG
	"regexp"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"golang.org/x/image/draw"
)

//go:embed read.js
var readJS string

// MaxMarkdown bounds what Read returns, in bytes (the rest is cut, with a note).
const MaxMarkdown = 40_000

// Read returns the active tab's main content as Markdown (links kept), fenced as untrusted.
func (m *Manager) Read(ctx context.Context, session string) (Report, error) {
	var rep Report
	err := m.use(ctx, session, func(t *Tab) error {
		ctx, cancel := context.WithTimeout(ctx, ActionTimeout)
		defer cancel()
		if err := m.judge(ctx, session, t); err != nil {
			return err
		}
		res, err := t.page.Context(ctx).Eval(readJS)
		if err != nil {
			return fmt.Errorf("read the page: %w", err)
		}
		if err := m.judge(ctx, session, t); err != nil {
			return err
		}
		md := res.Value.Str()
		if len(md) > MaxMarkdown {
			md = md[:MaxMarkdown] + fmt.Sprintf("\n… (cut at %d of %d bytes)", MaxMarkdown, len(md))
		}
		info, err := t.page.Context(ctx).Info()
		if err != nil {
			return err
		}
		s := Snapshot{URL: info.URL, Title: info.Title}
		rep = Report{Text: s.header(t.ID) + "\n" + fence([]string{md}), URL: info.URL, Title: info.Title, Tab: t.ID}
		return nil
	})
	return rep, err
}

// Screenshot returns a JPEG of the active tab's viewport, scaled to at most width pixels wide.
func (m *Manager) Screenshot(ctx context.Context, session string, width int) ([]byte, Report, error) {
	var img []byte
	var rep Report
	err := m.use(ctx, session, func(t *Tab) error {
		ctx, cancel := context.WithTimeout(ctx, ActionTimeout)
		defer cancel()
		if err := m.judge(ctx, session, t); err != nil {
			return err
		}
		var err error
		img, err = shoot(ctx, t.page, width)
		if err != nil {
			return err
		}
		if err := m.judge(ctx, session, t); err != nil {
			img = nil
			return err
		}
		info, err := t.page.Context(ctx).Info()
		if err != nil {
			return err
		}
		rep = Report{URL: info.URL, Title: info.Title, Tab: t.ID}
		return nil
	})
	return img, rep, err
}

// Thumbnail is a small JPEG of the session's active tab for the UI's tool cards (nil when
// there is no page or it cannot be taken).
func (m *Manager) Thumbnail(ctx context.Context, session string) []byte {
	m.mu.Lock()
	s := m.sessions[session]
	var t *Tab
	if s != nil && m.browser != nil {
		t = s.find(s.active)
	}
	m.mu.Unlock()
	if t == nil {
		return nil
	}
	// A tab that never drew (a new tab whose first page was refused) waits for a frame forever.
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if m.judge(ctx, session, t) != nil {
		return nil
	}
	img, err := shoot(ctx, t.page, 320)
	if err != nil || m.judge(ctx, session, t) != nil {
		return nil
	}
	return img
}

// shoot captures the viewport as PNG and scales it down to width as JPEG.
func shoot(ctx context.Context, p *rod.Page, width int) ([]byte, error) {
	png, err := p.Context(ctx).Screenshot(false, &proto.PageCaptureScreenshot{Format: proto.PageCaptureScreenshotFormatPng})
	if err != nil {
		return nil, fmt.Errorf("screenshot: %w", err)
	}
	src, _, err := image.Decode(bytes.NewReader(png))
	if err != nil {
		return nil, fmt.Errorf("screenshot: %w", err)
	}
	b := src.Bounds()
	if width <= 0 || width > b.Dx() {
		width = b.Dx()
	}
	h := b.Dy() * width / max(b.Dx(), 1)
	dst := image.NewRGBA(image.Rect(0, 0, width, h))
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, b, draw.Src, nil)
	var out bytes.Buffer
	if err := jpeg.Encode(&out, dst, &jpeg.Options{Quality: 70}); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// Eval runs a JavaScript expression or function in the active tab and returns its result
// as JSON text (fenced: the page chose it).
func (m *Manager) Eval(ctx context.Context, session, js string) (Report, error) {
	var rep Report
	err := m.use(ctx, session, func(t *Tab) error {
		ctx, cancel := m.actionContext(ctx, session)
		defer cancel()
		// The script reads the page it runs in: that page is judged first (and after, by report).
		if err := m.judge(ctx, session, t); err != nil {
			return err
		}
		res, err := t.page.Context(ctx).Evaluate(&rod.EvalOptions{JS: jsFunction(js), ByValue: true, AwaitPromise: true})
		if err != nil {
			var ev *rod.EvalError
			if asEvalError(err, &ev) {
				return &UserError{"the script threw: " + clip(ev.Exception.Description, 500)}
			}
			return err
		}
		out := res.Value.JSON("", "")
		if len(out) > MaxMarkdown {
			out = out[:MaxMarkdown] + "…"
		}
		rep, err = m.report(ctx, session, t, nil, false)
		if err != nil {
			return err
		}
		rep.Text = "result: " + fence([]string{out}) + "\n" + rep.Text
		return nil
	})
	return rep, err
}

// jsFunction makes the model's script a function for Runtime.callFunctionOn: a function as
// it is; anything else (an expression or statements) through indirect eval, whose value is
// the last statement's.
func jsFunction(js string) string {
	if arrowOrFunction.MatchString(js) {
		return js
	}
	q, _ := json.Marshal(js)
	return "() => (0, eval)(" + string(q) + ")"
}

var arrowOrFunction = regexp.MustCompile(`^\s*(async\s+)?(function\b|\([^()]*\)\s*=>|[A-Za-z_$][\w$]*\s*=>)`)

func asEvalError(err error, target **rod.EvalError) bool { return errors.As(err, target) }
