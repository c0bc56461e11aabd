package paper

import (
	"fmt"
	"reflect"

	"github.com/ledongthuc/pdf"
)

// pageRef is a page with the attributes it inherits (resources, media and crop box), gathered
// on the way down the tree. Reading them back up through /Parent, as before, re-parsed the
// parent's whole /Kids array for every page: quadratic on a flat tree of 20,000 pages. It
// also trusted /Parent, which a crafted file can point in a loop.
type pageRef struct {
	v         pdf.Value
	resources pdf.Value
	box       BBox
}

// Limits of the page tree's walk: deeper than any real tree (a balanced tree of a million
// pages is 10 levels), and a node count that bounds the work on a crafted one.
const (
	maxTreeDepth = 64
	maxTreeNodes = 1 << 20
)

// pageTree walks the page tree once, in document order (no tree: no pages). A tree that
// loops back on itself, reaches an intermediate node twice, is deeper than maxTreeDepth or
// larger than maxTreeNodes is an error naming the fault (before, it gave empty output). A
// page listed twice is kept twice, as viewers show it.
func pageTree(rd *pdf.Reader) ([]pageRef, error) {
	w := treeWalk{seen: map[objKey]bool{}}
	root := rd.Trailer().Key("Root").Key("Pages")
	if root.IsNull() {
		return nil, nil // no pages: the caller tries a repair
	}
	if err := w.walk(root, pageRef{}, pdf.Value{}, pdf.Value{}, objKey{}, 0); err != nil {
		return nil, err
	}
	return w.out, nil
}

type treeWalk struct {
	out   []pageRef
	seen  map[objKey]bool
	nodes int
}

// walk visits node v, whose inherited attributes are in, media and crop (the raw boxes, so a
// page's own crop box is checked against the media box it inherits).
func (w *treeWalk) walk(v pdf.Value, in pageRef, media, crop pdf.Value, parent objKey, depth int) error {
	w.nodes++
	if w.nodes > maxTreeNodes {
		return fmt.Errorf("the page tree has more than %d nodes", maxTreeNodes)
	}
	if depth > maxTreeDepth {
		return fmt.Errorf("the page tree is deeper than %d levels (a loop of /Kids?)", maxTreeDepth)
	}
	if r := v.Key("Resources"); !r.IsNull() {
		in.resources = r
	}
	if m := v.Key("MediaBox"); m.Len() == 4 {
		media = m
	}
	if c := v.Key("CropBox"); c.Len() == 4 {
		crop = c
	}
	kids := v.Key("Kids")
	if v.Key("Type").Name() == "Page" || (kids.IsNull() && !v.Key("Contents").IsNull()) {
		in.v = v
		in.box = boxOf(crop, media)
		w.out = append(w.out, in)
		return nil
	}
	// An intermediate node reached twice makes the tree a loop or a lattice whose paths
	// multiply; a kid written inline (not a reference) carries its parent's object number.
	key := keyOf(v)
	if key != parent && key != (objKey{}) {
		if w.seen[key] {
			return fmt.Errorf("the page tree reaches object %d twice (a loop in /Kids)", key.id)
		}
		w.seen[key] = true
	}
	for i := 0; i < kids.Len(); i++ {
		if err := w.walk(kids.Index(i), in, media, crop, key, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// boxOf is the visible area: the crop box when it is a real rectangle, else the media box,
// else US Letter.
func boxOf(crop, media pdf.Value) BBox {
	for _, box := range []pdf.Value{crop, media} {
		if box.Len() != 4 {
			continue
		}
		b := BBox{num(box.Index(0)), num(box.Index(1)), num(box.Index(2)), num(box.Index(3))}
		if b.X1 > b.X0 && b.Y1 > b.Y0 {
			return b
		}
	}
	return BBox{0, 0, 612, 792}
}

// objKey is the object number and generation a value was read from.
type objKey struct {
	id  uint64
	gen uint64
}

// keyOf reads the object reference a pdf.Value came from. ledongthuc/pdf does not export it,
// and a Value holding a dictionary cannot be a map key or compared, so it is read through
// reflection; a change of the library's layout gives the zero key (no loop detection, the
// depth and node limits still hold), never a panic.
func keyOf(v pdf.Value) (k objKey) {
	defer func() {
		if recover() != nil {
			k = objKey{}
		}
	}()
	ptr := reflect.ValueOf(v).FieldByName("ptr")
	if !ptr.IsValid() {
		return objKey{}
	}
	id, gen := ptr.FieldByName("id"), ptr.FieldByName("gen")
	if !id.IsValid() || !gen.IsValid() || !id.CanUint() || !gen.CanUint() {
		return objKey{}
	}
	return objKey{id.Uint(), gen.Uint()}
}
