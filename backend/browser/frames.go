package browser

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// Cross-origin frames. The top document's script cannot read them, so each is snapshotted in
// its own document, through rod's frame page (the browser runs without site-per-process, so
// such frames live in the tab's renderer and share its session: their elements' boxes are in
// the tab's coordinates, and the tab's mouse and keyboard reach them). A frame's refs start
// with "f" and its number in the tab ("f2e5"); the number stays with the frame for as long as
// it exists, as refs stay with their elements.

// frame is a cross-origin frame of a tab: which frame (0: the tab's own document) holds its
// iframe element, and that element's ref there.
type frame struct {
	id     proto.PageFrameID
	parent int
	ref    string
}

// frameSnapshot snapshots the cross-origin frame whose iframe element is ref in the document
// of page p (whose own refs start with prefix).
func (t *Tab) frameSnapshot(ctx context.Context, p *rod.Page, prefix, ref string, depth int) (*Snapshot, error) {
	fp, err := frameIn(ctx, p, ref)
	if err != nil {
		return nil, err
	}
	// Only web pages: a file:// frame is a local file, which only a browser_navigate the user
	// approved may show (file URLs are each their own origin, so every file frame lands here).
	scheme, err := fp.Context(ctx).Eval(`() => location.protocol`)
	if err != nil {
		return nil, err
	}
	if s := scheme.Value.Str(); s != "http:" && s != "https:" {
		return nil, fmt.Errorf("a %s frame is not shown", s)
	}
	n := t.frameNumber(fp.FrameID, frameOfRef(prefix), ref)
	return t.snapshotOf(ctx, fp, "f"+strconv.Itoa(n), depth)
}

// frameIn is the page of the frame whose iframe element is ref in page p's document.
func frameIn(ctx context.Context, p *rod.Page, ref string) (*rod.Page, error) {
	el, err := elementIn(ctx, p, ref)
	if err != nil {
		return nil, err
	}
	fp, err := el.Frame()
	if err != nil {
		return nil, fmt.Errorf("open the frame: %w", err)
	}
	return fp, nil
}

// frameNumber is the number of the frame id in the tab, given on first sight.
func (t *Tab) frameNumber(id proto.PageFrameID, parent int, ref string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, f := range t.frames {
		if f.id == id {
			t.frames[i].parent, t.frames[i].ref = parent, ref
			return i + 1
		}
	}
	t.frames = append(t.frames, frame{id: id, parent: parent, ref: ref})
	return len(t.frames)
}

// frameOfRef is the number of the frame a ref belongs to (0: the tab's own document).
func frameOfRef(ref string) int {
	if !strings.HasPrefix(ref, "f") {
		return 0
	}
	digits, _, _ := strings.Cut(ref[1:], "e")
	n, err := strconv.Atoi(digits)
	if err != nil {
		return -1
	}
	return n
}

// pageOf is the page of frame n of the tab (0: the tab's own), found again from the tab down
// through the iframe elements, so a frame that went away is a stale ref, not a hang.
func (t *Tab) pageOf(ctx context.Context, n int) (*rod.Page, error) {
	if n == 0 {
		return t.page.Context(ctx), nil
	}
	t.mu.Lock()
	if n < 0 || n > len(t.frames) {
		t.mu.Unlock()
		return nil, fmt.Errorf("no frame %d", n)
	}
	f := t.frames[n-1]
	t.mu.Unlock()
	if f.parent == n || f.parent > len(t.frames) {
		return nil, fmt.Errorf("frame %d has no parent", n)
	}
	parent, err := t.pageOf(ctx, f.parent)
	if err != nil {
		return nil, err
	}
	return frameIn(ctx, parent, f.ref)
}
