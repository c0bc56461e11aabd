package desk

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/desktop"
	"github.com/tofu-research/tofu/backend/tools"
)

type screenshotParams struct {
	Window string `json:"window,omitempty" description:"window id from desktop_windows; default the whole screen"`
	Region []int  `json:"region,omitempty" description:"x, y, width, height on the screen"`
}

func (b *box) screenshot() tools.Tool {
	return tools.Define(tools.Def[screenshotParams]{
		Name: "desktop_screenshot", Description: doc("desktop_screenshot"), Purpose: "screenshot the desktop", ReadOnly: true,
		Example: `{}`,
		Run: func(ctx context.Context, call tools.Call, p screenshotParams) (tools.Result, error) {
			d, err := b.desk(ctx)
			if err != nil {
				return failed(ctx, err)
			}
			var shot desktop.Shot
			what := "the screen"
			switch {
			case p.Window != "":
				id, err := parseID(p.Window)
				if err != nil {
					return tools.Errorf(err.Error()), nil
				}
				if shot, err = d.WindowShot(id); err != nil {
					return failed(ctx, err)
				}
				what = "window " + p.Window
			case len(p.Region) == 4:
				if shot, err = d.Region(desktop.Rect{X: p.Region[0], Y: p.Region[1], W: p.Region[2], H: p.Region[3]}); err != nil {
					return failed(ctx, err)
				}
				what = fmt.Sprintf("the region %v", p.Region)
			case len(p.Region) != 0:
				return tools.Errorf("region is [x, y, width, height]"), nil
			default:
				if shot, err = d.Screenshot(); err != nil {
					return failed(ctx, err)
				}
			}
			shot = shot.Downscale(b.o.MaxWidth, 0)
			img, err := encodePNG(shot)
			if err != nil {
				return tools.Result{}, err
			}
			key := b.remember(call.ID, shot, img)
			f := shot.Frame
			text := fmt.Sprintf("Screenshot of %s, %dx%d pixels. Give x and y to desktop_input in this image's pixels.", what, f.W, f.H)
			meta := Meta{Action: "screenshot", Screenshot: key, Frame: &f}
			thumbnail(d, &meta)
			return tools.Result{Text: text, Images: [][]byte{img}, Meta: meta}, nil
		},
	})
}

type windowsParams struct {
	Action string `json:"action,omitempty" enum:"list,focus,raise,move,close" description:"default list"`
	Window string `json:"window,omitempty" description:"window id, for the other actions"`
	X      *int   `json:"x,omitempty" description:"move: new left edge (screen pixels)"`
	Y      *int   `json:"y,omitempty" description:"move: new top edge"`
	Width  *int   `json:"width,omitempty" description:"move: new width"`
	Height *int   `json:"height,omitempty" description:"move: new height"`
}

func (b *box) windows() tools.Tool {
	return tools.Define(tools.Def[windowsParams]{
		Name: "desktop_windows", Description: doc("desktop_windows"), Purpose: "list, focus, move windows",
		Example: `{"action":"focus","window":"0x1c00003"}`,
		Access: func(_ tools.Call, p windowsParams) []tools.Access {
			if p.Action == "" || p.Action == "list" {
				return nil
			}
			return b.windowAccess(p.Window)
		},
		Run: func(ctx context.Context, _ tools.Call, p windowsParams) (tools.Result, error) {
			d, err := b.desk(ctx)
			if err != nil {
				return failed(ctx, err)
			}
			if p.Action == "" || p.Action == "list" {
				ws, err := d.Windows()
				if err != nil {
					return failed(ctx, err)
				}
				return tools.Result{Text: listWindows(ws), Meta: Meta{Action: "list"}}, nil
			}
			id, err := parseID(p.Window)
			if err != nil {
				return tools.Errorf(err.Error()), nil
			}
			switch p.Action {
			case "focus":
				err = d.Focus(id)
			case "raise":
				err = d.Raise(id)
			case "close":
				err = d.CloseWindow(id)
			case "move":
				err = d.MoveResize(id, orKeep(p.X), orKeep(p.Y), orKeep(p.Width), orKeep(p.Height))
			default:
				return tools.Errorf(fmt.Sprintf("unknown action %q: list, focus, raise, move or close", p.Action)), nil
			}
			if err != nil {
				return failed(ctx, err)
			}
			return tools.Result{Text: "Done: " + p.Action + " " + p.Window, Meta: Meta{Action: p.Action, Window: p.Window}}, nil
		},
	})
}

func orKeep(v *int) int {
	if v == nil {
		return -1
	}
	return *v
}

func listWindows(ws []desktop.Window) string {
	if len(ws) == 0 {
		return "No windows are open."
	}
	var sb strings.Builder
	for i := len(ws) - 1; i >= 0; i-- { // topmost first
		w := ws[i]
		fmt.Fprintf(&sb, "%#x %s %q pid %d at %d,%d %dx%d", w.ID, w.Class, w.Title, w.PID, w.Rect.X, w.Rect.Y, w.Rect.W, w.Rect.H)
		if w.Focused {
			sb.WriteString(" (focused)")
		}
		if w.Hidden {
			sb.WriteString(" (minimized)")
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

type inputParams struct {
	Action string `json:"action" enum:"click,double_click,right_click,middle_click,move,drag,scroll,type,key,press,set_text"`
	Ref    string `json:"ref,omitempty" description:"press, set_text: an element's ref from desktop_tree"`
	X      *int   `json:"x,omitempty" description:"in the last screenshot's pixels"`
	Y      *int   `json:"y,omitempty"`
	ToX    *int   `json:"to_x,omitempty" description:"drag: end point"`
	ToY    *int   `json:"to_y,omitempty"`
	Text   string `json:"text,omitempty" description:"type, set_text: the text"`
	Keys   string `json:"keys,omitempty" description:"key: a combination like ctrl+s, alt+F4, Return"`
	Amount int    `json:"amount,omitempty" description:"scroll: notches, negative is up"`
}

func (b *box) input() tools.Tool {
	return tools.Define(tools.Def[inputParams]{
		Name: "desktop_input", Description: doc("desktop_input"), Purpose: "mouse and keyboard",
		Example: `{"action":"click","x":120,"y":45}`,
		Access: func(_ tools.Call, p inputParams) []tools.Access {
			if p.Action == "press" || p.Action == "set_text" {
				b.mu.Lock()
				class := b.a11yClass
				b.mu.Unlock()
				if class == "" {
					class = "unknown"
				}
				return []tools.Access{{Kind: tools.AccessDesktop, Target: "input:" + class}}
			}
			if p.X != nil && p.Y != nil && p.Action != "type" && p.Action != "key" {
				sx, sy, _, _ := b.toScreen(*p.X, *p.Y)
				return []tools.Access{{Kind: tools.AccessDesktop, Target: "input:" + b.classAt(sx, sy)}}
			}
			return []tools.Access{{Kind: tools.AccessDesktop, Target: "input:" + b.focusedClass()}}
		},
		Run: func(ctx context.Context, _ tools.Call, p inputParams) (tools.Result, error) {
			d, err := b.desk(ctx)
			if err != nil {
				return failed(ctx, err)
			}
			if p.Action == "press" || p.Action == "set_text" {
				return b.byRef(ctx, p)
			}
			return b.act(ctx, d, p)
		},
	})
}

// act runs one input action.
func (b *box) act(ctx context.Context, d *desktop.Desktop, p inputParams) (tools.Result, error) {
	meta := Meta{Action: p.Action}
	point := func() (int, int, error) {
		if p.X == nil || p.Y == nil {
			return 0, 0, fmt.Errorf("%s needs x and y (in the last screenshot's pixels)", p.Action)
		}
		sx, sy, f, key := b.toScreen(*p.X, *p.Y)
		meta.X, meta.Y, meta.ImageX, meta.ImageY, meta.Frame, meta.Screenshot = &sx, &sy, p.X, p.Y, f, key
		meta.Window = b.classAt(sx, sy)
		return sx, sy, nil
	}
	var err error
	var sx, sy int
	switch p.Action {
	case "click", "double_click", "right_click", "middle_click", "move", "scroll", "drag":
		if sx, sy, err = point(); err != nil {
			return tools.Errorf(err.Error()), nil
		}
	}
	switch p.Action {
	case "click":
		err = d.Click(sx, sy, desktop.ButtonLeft, 1)
	case "double_click":
		err = d.Click(sx, sy, desktop.ButtonLeft, 2)
	case "right_click":
		err = d.Click(sx, sy, desktop.ButtonRight, 1)
	case "middle_click":
		err = d.Click(sx, sy, desktop.ButtonMiddle, 1)
	case "move":
		err = d.Move(sx, sy)
	case "scroll":
		err = d.Scroll(sx, sy, 0, p.Amount)
	case "drag":
		if p.ToX == nil || p.ToY == nil {
			return tools.Errorf("drag needs to_x and to_y"), nil
		}
		tx, ty, _, _ := b.toScreen(*p.ToX, *p.ToY)
		err = d.Drag(ctx, sx, sy, tx, ty)
	case "type":
		meta.Window = b.focusedClass()
		err = d.Type(ctx, p.Text)
	case "key":
		meta.Window = b.focusedClass()
		err = d.Key(ctx, p.Keys)
	default:
		return tools.Errorf(fmt.Sprintf("unknown action %q", p.Action)), nil
	}
	if err != nil {
		return failed(ctx, err)
	}
	if meta.X != nil {
		thumbnail(d, &meta)
	}
	text := "Done: " + p.Action
	if meta.X != nil {
		text += fmt.Sprintf(" at %d,%d", *p.X, *p.Y)
	}
	if meta.Window != "" {
		text += " on " + meta.Window
	}
	return tools.Result{Text: text + ". Take a screenshot to see the effect.", Meta: meta}, nil
}

// classAt is the class of the topmost window under a screen point ("desktop" for none).
func (b *box) classAt(x, y int) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	d, err := b.o.Desktop.Get(ctx)
	if err != nil {
		return "unknown"
	}
	ws, err := d.Windows()
	if err != nil {
		return "unknown"
	}
	for i := len(ws) - 1; i >= 0; i-- {
		r := ws[i].Rect
		if !ws[i].Hidden && x >= r.X && y >= r.Y && x < r.X+r.W && y < r.Y+r.H {
			return ws[i].Label()
		}
	}
	return "desktop"
}

// focusedClass is the class of the window keys go to.
func (b *box) focusedClass() string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	d, err := b.o.Desktop.Get(ctx)
	if err != nil {
		return "unknown"
	}
	id, err := d.Active()
	if err != nil || id == 0 {
		return "desktop"
	}
	w, err := d.Window(id)
	if err != nil {
		return "unknown"
	}
	return w.Label()
}

func (b *box) windowAccess(window string) []tools.Access {
	class := "unknown"
	if id, err := parseID(window); err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if d, err := b.o.Desktop.Get(ctx); err == nil {
			if w, err := d.Window(id); err == nil {
				class = w.Label()
			}
		}
	}
	return []tools.Access{{Kind: tools.AccessDesktop, Target: "input:" + class}}
}

type clipboardParams struct {
	Action    string `json:"action" enum:"read,write"`
	Text      string `json:"text,omitempty" description:"write: the text"`
	Selection string `json:"selection,omitempty" enum:"clipboard,primary" description:"default clipboard"`
}

func (b *box) clipboard() tools.Tool {
	return tools.Define(tools.Def[clipboardParams]{
		Name: "desktop_clipboard", Description: doc("desktop_clipboard"), Purpose: "read, write the clipboard",
		Example: `{"action":"read"}`,
		Access: func(_ tools.Call, p clipboardParams) []tools.Access {
			if p.Action == "write" {
				return []tools.Access{{Kind: tools.AccessDesktop, Target: "clipboard:write"}}
			}
			return []tools.Access{{Kind: tools.AccessDesktop, Target: "clipboard:read"}}
		},
		Run: func(ctx context.Context, _ tools.Call, p clipboardParams) (tools.Result, error) {
			d, err := b.desk(ctx)
			if err != nil {
				return failed(ctx, err)
			}
			sel := p.Selection
			if sel == "" {
				sel = desktop.SelClipboard
			}
			switch p.Action {
			case "write":
				if _, err := d.WriteClipboard(sel, p.Text); err != nil {
					return failed(ctx, err)
				}
				return tools.Result{Text: fmt.Sprintf("The %s holds your %d characters.", sel, len([]rune(p.Text))), Meta: Meta{Action: "clipboard_write"}}, nil
			case "read":
				rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
				defer cancel()
				text, err := d.ReadClipboard(rctx, sel)
				if err != nil {
					return failed(ctx, err)
				}
				if text == "" {
					text = "(the " + sel + " is empty)"
				}
				return tools.Result{Text: text, Meta: Meta{Action: "clipboard_read"}}, nil
			}
			return tools.Errorf("action is read or write"), nil
		},
	})
}

type openParams struct {
	Target string   `json:"target,omitempty" description:"a file path or URL to open with the desktop's default app"`
	App    []string `json:"app,omitempty" description:"a program and its arguments to launch instead"`
}

func (b *box) open() tools.Tool {
	return tools.Define(tools.Def[openParams]{
		Name: "desktop_open", Description: doc("desktop_open"), Purpose: "open a file, URL or app",
		Example: `{"target":"https://example.com"}`,
		Access: func(call tools.Call, p openParams) []tools.Access {
			what := p.Target
			if len(p.App) > 0 {
				what = strings.Join(p.App, " ")
			}
			return []tools.Access{{Kind: tools.AccessDesktop, Target: "launch:" + what}}
		},
		Run: func(ctx context.Context, call tools.Call, p openParams) (tools.Result, error) {
			argv := p.App
			if len(argv) == 0 {
				if p.Target == "" {
					return tools.Errorf("give target (a file or URL) or app (a program and its arguments)"), nil
				}
				target := p.Target
				if !strings.Contains(target, "://") {
					target = tools.AbsPath(call.Workspace, target)
				}
				argv = []string{"xdg-open", target}
			}
			if _, err := b.desk(ctx); err != nil {
				return failed(ctx, err)
			}
			launch := b.o.Launch
			if launch == nil {
				launch = detached
			}
			if err := launch(argv); err != nil {
				return tools.Errorf(fmt.Sprintf("could not start %s: %v", argv[0], err)), nil
			}
			return tools.Result{Text: "Started: " + strings.Join(argv, " ") + ". List the windows or take a screenshot to see it.", Meta: Meta{Action: "open"}}, nil
		},
	})
}

// parseID reads a window id as desktop_windows prints it (hex) or in decimal.
func parseID(s string) (uint32, error) {
	n, err := strconv.ParseUint(strings.TrimSpace(s), 0, 32)
	if err != nil {
		return 0, fmt.Errorf("window %q: give the id desktop_windows lists, like 0x1c00003", s)
	}
	return uint32(n), nil
}
