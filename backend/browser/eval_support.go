package browser

import (
	"context"
	"fmt"

	"github.com/go-rod/rod"
)

// RefForCSS is the ref the last snapshot gave the element a CSS selector names in the
// session's active tab ("" when the snapshot lists no such control: the model could not
// address it). "HOST >>> INNER" looks inside an iframe's document or an open shadow root.
// For `tofu eval browser`, which checks that scenario steps are addressable.
func (m *Manager) RefForCSS(ctx context.Context, session, css string) (string, error) {
	var ref string
	err := m.use(ctx, session, func(t *Tab) error {
		p, sel := t.page.Context(ctx), css
		for range maxFrameDepth + 1 {
			res, err := p.Evaluate(rod.Eval(`(sel) => {
				let root = document, el = null;
				const parts = sel.split('>>>');
				for (let i = 0; i < parts.length; i++) {
					el = root.querySelector(parts[i].trim());
					if (!el) return { ref: '', frame: '' };
					const T = window.__tofu;
					if (el.tagName === 'IFRAME' && !el.contentDocument && i < parts.length - 1)
						return { ref: '', frame: (T && T.ids.get(el)) || '', rest: parts.slice(i + 1).join('>>>') };
					root = el.shadowRoot || (el.tagName === 'IFRAME' ? el.contentDocument : el) || el;
				}
				const T = window.__tofu;
				return { ref: (T && T.ids.get(el)) || '', frame: '' }; }`, sel))
			if err != nil {
				return fmt.Errorf("find %s: %w", css, err)
			}
			frame := res.Value.Get("frame").Str()
			if frame == "" {
				ref = res.Value.Get("ref").Str()
				break
			}
			// A cross-origin frame: go on in its own document.
			if p, err = frameIn(ctx, p, frame); err != nil {
				return fmt.Errorf("find %s: %w", css, err)
			}
			sel = res.Value.Get("rest").Str()
		}
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.last == nil {
			ref = ""
		} else if _, ok := t.last.Meta[ref]; !ok {
			ref = ""
		}
		return nil
	})
	return ref, err
}

// EvalValue runs a JavaScript expression in the session's active tab and returns its value
// as JSON, without a snapshot (the eval's checks and measurements).
func (m *Manager) EvalValue(ctx context.Context, session, js string) (string, error) {
	var out string
	err := m.use(ctx, session, func(t *Tab) error {
		res, err := t.page.Context(ctx).Evaluate(&rod.EvalOptions{JS: jsFunction(js), ByValue: true, AwaitPromise: true})
		if err != nil {
			return err
		}
		out = res.Value.JSON("", "")
		return nil
	})
	return out, err
}

// ControlURL is the DevTools WebSocket URL of the running browser ("" when none runs): another
// CDP client (Playwright MCP in the eval) can attach to the same Chromium.
func (m *Manager) ControlURL() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.launcher == nil {
		return ""
	}
	return m.controlURL
}
