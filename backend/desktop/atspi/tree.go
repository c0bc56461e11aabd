package atspi

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Node is one object of an app's accessibility tree.
type Node struct {
	Ref    string   `json:"ref,omitempty"` // e3: what Press and SetText take
	Role   string   `json:"role"`
	Name   string   `json:"name,omitempty"`
	States []string `json:"states,omitempty"`
	Text   string   `json:"text,omitempty"` // an editable field's contents
	Depth  int      `json:"depth"`
	at     node
	acts   bool
}

// Tree is a snapshot of one window's tree.
type Tree struct {
	App   string `json:"app"`
	Nodes []Node `json:"nodes"`
	// Truncated says the walk stopped at the node limit.
	Truncated bool `json:"truncated,omitempty"`
}

// maxNodes bounds a snapshot: a text view past a few hundred lines costs more tokens than
// the screenshot it replaces.
const maxNodes = 400

// States worth showing, by their bit in AT-SPI's state set.
var stateNames = map[int]string{1: "active", 4: "checked", 7: "editable", 10: "expanded", 12: "focused",
	16: "modal", 20: "pressed", 23: "selected", 36: "invalid", 39: "default", 43: "read-only"}

const (
	stEnabled   = 8
	stFocusable = 11
	stSensitive = 24
	stShowing   = 25
)

// ErrNoApp means the window's app exposes no accessibility tree.
var ErrNoApp = fmt.Errorf("the app exposes no accessibility tree (AT-SPI)")

// Snapshot reads the tree of the window titled title of the app with process pid (title ""
// or not found: the app's active window).
func (b *Bus) Snapshot(ctx context.Context, pid int, title string) (*Tree, error) {
	apps, err := b.children(ctx, node{registry, rootPath})
	if err != nil {
		return nil, fmt.Errorf("list the accessible apps: %w", err)
	}
	var app *node
	for i := range apps {
		if int(b.pid(ctx, apps[i].Dest)) == pid {
			app = &apps[i]
			break
		}
	}
	if app == nil {
		return nil, fmt.Errorf("%w: process %d is not on the accessibility bus", ErrNoApp, pid)
	}
	wins, err := b.children(ctx, *app)
	if err != nil || len(wins) == 0 {
		return nil, fmt.Errorf("%w: process %d lists no windows", ErrNoApp, pid)
	}
	win := wins[0]
	for _, w := range wins {
		if title != "" && b.str(ctx, w, "Name") == title {
			win = w
			break
		}
		if st, _ := b.states(ctx, w); st[1] {
			win = w
		}
	}
	t := &Tree{App: b.str(ctx, *app, "Name")}
	b.walk(ctx, t, win, 0)
	for i := range t.Nodes {
		if t.Nodes[i].acts {
			t.Nodes[i].Ref = fmt.Sprintf("e%d", i+1)
		}
	}
	return t, ctx.Err()
}

func (b *Bus) walk(ctx context.Context, t *Tree, n node, depth int) {
	if len(t.Nodes) >= maxNodes {
		t.Truncated = true
		return
	}
	if ctx.Err() != nil {
		return
	}
	st, err := b.states(ctx, n)
	if err != nil || (depth > 0 && !st[stShowing]) {
		return // gone, or hidden (a closed menu, another tab)
	}
	var role string
	if err := b.obj(n).CallWithContext(ctx, ifaceAcc+".GetRoleName", 0).Store(&role); err != nil {
		return
	}
	name := b.str(ctx, n, "Name")
	var ifaces []string
	_ = b.obj(n).CallWithContext(ctx, ifaceAcc+".GetInterfaces", 0).Store(&ifaces)
	kids, _ := b.children(ctx, n)
	// Unnamed containers add a line and no meaning: their children take their place.
	structural := name == "" && (role == "filler" || role == "panel" || role == "unknown") && depth > 0
	if !structural {
		nd := Node{Role: role, Name: name, Depth: depth, at: n}
		for bit, s := range stateNames {
			if st[bit] {
				nd.States = append(nd.States, s)
			}
		}
		if !st[stEnabled] || !st[stSensitive] {
			nd.States = append(nd.States, "disabled")
		}
		slices.Sort(nd.States)
		nd.acts = slices.Contains(ifaces, ifaceAction) || slices.Contains(ifaces, ifaceEdit) || st[stFocusable]
		if slices.Contains(ifaces, ifaceEdit) {
			var s string
			if b.obj(n).CallWithContext(ctx, ifaceText+".GetText", 0, int32(0), int32(-1)).Store(&s) == nil {
				nd.Text = s
			}
		}
		t.Nodes = append(t.Nodes, nd)
		depth++
	}
	for _, k := range kids {
		b.walk(ctx, t, k, depth)
	}
}

// states reads a node's state set as a set of bits.
func (b *Bus) states(ctx context.Context, n node) (map[int]bool, error) {
	var words []uint32
	if err := b.obj(n).CallWithContext(ctx, ifaceAcc+".GetState", 0).Store(&words); err != nil {
		return nil, err
	}
	out := map[int]bool{}
	for i, w := range words {
		for bit := 0; bit < 32; bit++ {
			if w&(1<<bit) != 0 {
				out[i*32+bit] = true
			}
		}
	}
	return out, nil
}

// String is the tree as the model reads it: one line per node, indented, with its ref.
func (t *Tree) String() string {
	var sb strings.Builder
	for _, n := range t.Nodes {
		sb.WriteString(strings.Repeat("  ", n.Depth))
		sb.WriteString("- ")
		sb.WriteString(n.Role)
		if n.Name != "" {
			fmt.Fprintf(&sb, " %q", n.Name)
		}
		if n.Text != "" {
			fmt.Fprintf(&sb, " value=%q", n.Text)
		}
		if len(n.States) > 0 {
			sb.WriteString(" [" + strings.Join(n.States, ", ") + "]")
		}
		if n.Ref != "" {
			sb.WriteString(" ref=" + n.Ref)
		}
		sb.WriteByte('\n')
	}
	if t.Truncated {
		fmt.Fprintf(&sb, "(cut at %d nodes)\n", maxNodes)
	}
	return sb.String()
}

// find returns the node a ref names.
func (t *Tree) find(ref string) (Node, error) {
	for _, n := range t.Nodes {
		if n.Ref == ref && ref != "" {
			return n, nil
		}
	}
	return Node{}, fmt.Errorf("no element %s in the last accessibility snapshot: take a new one", ref)
}

// Press runs a node's main action (click, press, activate, toggle; else its first).
func (b *Bus) Press(ctx context.Context, t *Tree, ref string) error {
	n, err := t.find(ref)
	if err != nil {
		return err
	}
	v, err := b.prop(ctx, n.at, ifaceAction, "NActions")
	count, _ := v.Value().(int32)
	if err != nil || count == 0 {
		return fmt.Errorf("%s (%s %q) has no action to press; focus it or click it", ref, n.Role, n.Name)
	}
	idx := int32(0)
	for i := int32(0); i < count; i++ {
		var name string
		if b.obj(n.at).CallWithContext(ctx, ifaceAction+".GetName", 0, i).Store(&name) == nil {
			if name == "click" || name == "press" || name == "activate" || name == "toggle" {
				idx = i
				break
			}
		}
	}
	var ok bool
	if err := b.obj(n.at).CallWithContext(ctx, ifaceAction+".DoAction", 0, idx).Store(&ok); err != nil {
		return fmt.Errorf("press %s: %w", ref, err)
	}
	if !ok {
		return fmt.Errorf("%s refused the action", ref)
	}
	return nil
}

// SetText replaces an editable node's text.
func (b *Bus) SetText(ctx context.Context, t *Tree, ref, text string) error {
	n, err := t.find(ref)
	if err != nil {
		return err
	}
	var ok bool
	if err := b.obj(n.at).CallWithContext(ctx, ifaceEdit+".SetTextContents", 0, text).Store(&ok); err != nil {
		return fmt.Errorf("%s (%s %q) takes no text: %w", ref, n.Role, n.Name, err)
	}
	if !ok {
		return fmt.Errorf("%s refused the text", ref)
	}
	return nil
}

// Focus gives a node the keyboard focus.
func (b *Bus) Focus(ctx context.Context, t *Tree, ref string) error {
	n, err := t.find(ref)
	if err != nil {
		return err
	}
	var ok bool
	if err := b.obj(n.at).CallWithContext(ctx, ifaceComp+".GrabFocus", 0).Store(&ok); err != nil || !ok {
		return fmt.Errorf("%s cannot take the focus", ref)
	}
	return nil
}
