package compact

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// BlobStore keeps the full text of outputs moved out of the context. The app backs it with
// store.PutBlob; MemStore serves tests and replay. Put must be idempotent: a ref names one text.
type BlobStore interface {
	Put(ref, text string) error
}

// Ref returns the stable reference of a text: "r" and 12 hex digits of its SHA-256. The same
// output always gets the same ref, so placeholders and previews never change.
func Ref(text string) string {
	sum := sha256.Sum256([]byte(text))
	return "r" + hex.EncodeToString(sum[:6])
}

// BlobKey is the store key under which the app keeps a ref's text.
func BlobKey(ref string) string { return "result/" + ref }

// refLine is the stable line that names a stored output; refPattern finds it again.
const refLine = `[full output stored as ref %s: call read_result {"ref":"%s"} with "start"/"end" lines or "grep" to see more]`

var refPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`ref (r[0-9a-f]{12})\b`) })

// RefIn returns the ref a text names (an L0 preview or an L1 placeholder), or "".
func RefIn(text string) string {
	if m := refPattern().FindStringSubmatch(text); m != nil {
		return m[1]
	}
	return ""
}

// Budget applies L0 to one tool output: when text is within the budget of tool's kind (or L0 is
// off), kept is text and blob and ref are empty. Otherwise the full text is blob under ref and
// kept is what the model sees: a header, the head and the tail of the text cut at line breaks,
// and the line that tells the model how to reopen it with read_result. Pure and deterministic.
func (c Config) Budget(tool, text string) (kept, blob, ref string) {
	limit := c.L0.Budget(tool)
	if !c.L0.Enabled || limit <= 0 || len(text) <= limit {
		return text, "", ""
	}
	ref = Ref(text)
	return preview(tool, text, ref, c.L0), text, ref
}

// preview is what the model sees of a stored output: a header, the head and the tail of the
// text cut at line breaks, and the line that tells how to reopen it with read_result.
func preview(tool, text, ref string, c L0Config) string {
	head := cutLines(text, c.HeadChars, false)
	tail := cutLines(text[len(head):], c.TailChars, true)
	omitted := text[len(head) : len(text)-len(tail)]
	var b strings.Builder
	fmt.Fprintf(&b, "[%s output: %s chars, %s lines; showing the head and the tail]\n", tool,
		comma(len(text)), comma(lineCount(text)))
	b.WriteString(head)
	if !strings.HasSuffix(head, "\n") {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "[… %s lines, %s chars omitted …]\n", comma(strings.Count(omitted, "\n")), comma(len(omitted)))
	if tail != "" {
		b.WriteString(tail)
		if !strings.HasSuffix(tail, "\n") {
			b.WriteByte('\n')
		}
	}
	fmt.Fprintf(&b, refLine, ref, ref)
	return b.String()
}

// Enter is Budget plus the blob write: what the log should record as the tool's result.
func Enter(store BlobStore, c Config, tool, text string) (string, error) {
	kept, blob, ref := c.Budget(tool, text)
	if blob == "" {
		return kept, nil
	}
	if store == nil {
		return text, errors.New("compact: no blob store for an output over budget")
	}
	if err := store.Put(ref, blob); err != nil {
		return text, err // keep the output whole rather than lose it
	}
	return kept, nil
}

// cutLines returns at most n bytes of s from its start (or its end), cut at a line break when
// one is in the second half, else at a rune boundary.
func cutLines(s string, n int, fromEnd bool) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	if !fromEnd {
		p := s[:n]
		if i := strings.LastIndexByte(p, '\n'); i >= n/2 {
			return p[:i+1]
		}
		for len(p) > 0 && !utf8.ValidString(p) {
			p = p[:len(p)-1]
		}
		return p
	}
	p := s[len(s)-n:]
	if i := strings.IndexByte(p, '\n'); i >= 0 && i < n/2 {
		return p[i+1:]
	}
	for len(p) > 0 && !utf8.RuneStart(p[0]) {
		p = p[1:]
	}
	return p
}

func lineCount(s string) int {
	if s == "" {
		return 0
	}
	return strings.Count(strings.TrimSuffix(s, "\n"), "\n") + 1
}

// comma formats n with thousands separators.
func comma(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// MemStore is an in-memory BlobStore and ResultStore, for tests and replay.
type MemStore struct {
	mu sync.Mutex
	m  map[string]string
}

// NewMemStore returns an empty MemStore.
func NewMemStore() *MemStore { return &MemStore{m: map[string]string{}} }

// Put stores text under ref.
func (s *MemStore) Put(ref, text string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[ref] = text
	return nil
}

// Get returns the text under ref (tools.ResultStore).
func (s *MemStore) Get(ref string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.m[ref]
	if !ok {
		return "", fmt.Errorf("no result %q", ref)
	}
	return t, nil
}

// Len returns how many texts are stored.
func (s *MemStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}

// ResultStore implements tools.ResultStore (read_result's Get) over a Get function, e.g.
// ResultStore(func(ref string) ([]byte, error) { return st.BlobBytes(compact.BlobKey(ref)) }).
type ResultStore func(ref string) ([]byte, error)

// Get returns the text stored under ref.
func (f ResultStore) Get(ref string) (string, error) {
	b, err := f(strings.TrimSpace(ref))
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// BlobPut adapts a PutBlob-style function into a BlobStore that writes under BlobKey(ref), e.g.
// BlobPut(func(k, t string) error { _, err := st.PutBlob(k, strings.NewReader(t)); return err }).
type BlobPut func(key, text string) error

// Put writes text under BlobKey(ref).
func (f BlobPut) Put(ref, text string) error { return f(BlobKey(ref), text) }
