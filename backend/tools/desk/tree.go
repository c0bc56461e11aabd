package desk

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tofu-research/tofu/backend/desktop"
	"github.com/tofu-research/tofu/backend/desktop/atspi"
	"github.com/tofu-research/tofu/backend/tools"
)

type treeParams struct {
	Window string `json:"window,omitempty" description:"window id; default the focused window"`
}

// tree is the text view: the window list, then the accessibility tree of one window with refs
// that desktop_input's press and set_text take.
func (b *box) tree() tools.Tool {
	return tools.Define(tools.Def[treeParams]{
		Name: "desktop_tree", Description: doc("desktop_tree"), Purpose: "windows and controls as text", ReadOnly: true,
		Example: `{}`,
		Run: func(ctx context.Context, _ tools.Call, p treeParams) (tools.Result, error) {
			d, err := b.desk(ctx)
			if err != nil {
				return failed(ctx, err)
			}
			ws, err := d.Windows()
			if err != nil {
				return failed(ctx, err)
			}
			text, err := b.snapshot(ctx, d, ws, p.Window)
			if err != nil {
				return failed(ctx, err)
			}
			return tools.Result{Text: "Windows (topmost first):\n" + listWindows(ws) + "\n" + text, Meta: Meta{Action: "tree"}}, nil
		},
	})
}

// snapshot reads the tree of a window (default the focused one) and keeps it for refs.
func (b *box) snapshot(ctx context.Context, d *desktop.Desktop, ws []desktop.Window, window string) (string, error) {
	var target *desktop.Window
	for i := range ws {
		if (window == "" && ws[i].Focused) || (window != "" && fmt.Sprintf("%#x", ws[i].ID) == normID(window)) {
			target = &ws[i]
		}
	}
	if target == nil {
		if window != "" {
			return "", fmt.Errorf("no window %s: list them with desktop_windows", window)
		}
		return "No window has the focus; name one with window.", nil
	}
	bus, err := b.bus(ctx)
	if err != nil {
		return fmt.Sprintf("No accessibility tree: %v. Use desktop_screenshot and coordinates instead.", err), nil
	}
	tree, err := bus.Snapshot(ctx, target.PID, target.Title)
	if errors.Is(err, atspi.ErrNoApp) {
		return fmt.Sprintf("%s (%s) exposes no accessibility tree. Use desktop_screenshot and coordinates instead.", target.Label(), target.Title), nil
	}
	if err != nil {
		return "", err
	}
	b.mu.Lock()
	b.a11y, b.a11yClass = tree, target.Label()
	b.mu.Unlock()
	return fmt.Sprintf("Accessibility tree of %s %q (press or set_text an element by its ref with desktop_input):\n%s", target.Label(), target.Title, tree), nil
}

func normID(s string) string {
	id, err := parseID(s)
	if err != nil {
		return strings.TrimSpace(s)
	}
	return fmt.Sprintf("%#x", id)
}

// bus connects to the accessibility bus once per turn.
func (b *box) bus(ctx context.Context) (*atspi.Bus, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.a11yBus != nil {
		return b.a11yBus, nil
	}
	bus, err := atspi.Connect(ctx)
	if err != nil {
		return nil, err
	}
	b.a11yBus = bus
	return bus, nil
}

// byRef runs press or set_text on an element of the last tree.
func (b *box) byRef(ctx context.Context, p inputParams) (tools.Result, error) {
	b.mu.Lock()
	tree, class, bus := b.a11y, b.a11yClass, b.a11yBus
	b.mu.Unlock()
	if tree == nil || bus == nil {
		return tools.Errorf("no accessibility snapshot yet: call desktop_tree first"), nil
	}
	var err error
	if p.Action == "set_text" {
		err = bus.SetText(ctx, tree, p.Ref, p.Text)
	} else {
		err = bus.Press(ctx, tree, p.Ref)
	}
	if err != nil {
		return failed(ctx, err)
	}
	return tools.Result{Text: fmt.Sprintf("Done: %s %s on %s. Call desktop_tree to see the effect.", p.Action, p.Ref, class),
		Meta: Meta{Action: p.Action, Window: class}}, nil
}
