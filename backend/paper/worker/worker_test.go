package worker

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/child"
	"github.com/tofu-research/tofu/backend/paper"
	"github.com/tofu-research/tofu/backend/paper/papertest"
	"github.com/tofu-research/tofu/backend/shareddata"

	"github.com/tofu-research/tofu/backend/testtools"
)

// A paper extracted in a child is the paper extracted here: the same text, metadata and
// sections, with the progress of every page.
func TestExtractInAChild(t *testing.T) {
	t.Parallel()
	path := filepath.Join(shareddata.Require(t, "papers"), "naacl2006_shinyama", "paper.pdf")
	want, err := paper.OpenContext(context.Background(), path, paper.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var done, total int
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	got, err := Extract(context.Background(), f, st.Size(), paper.Options{Progress: func(d, n int) { done, total = d, n }})
	if err != nil {
		t.Fatal(err)
	}
	if got.Text() != want.Text() || got.Meta.Title != want.Meta.Title || len(got.Sections) != len(want.Sections) || len(got.Chunks()) != len(want.Chunks()) {
		t.Fatalf("the child's document differs: title %q, %d sections, %d chunks; want %q, %d, %d",
			got.Meta.Title, len(got.Sections), len(got.Chunks()), want.Meta.Title, len(want.Sections), len(want.Chunks()))
	}
	if done != len(want.Pages) || total != len(want.Pages) {
		t.Fatalf("progress ended at %d of %d, want %d of %d", done, total, len(want.Pages), len(want.Pages))
	}
	pages, err := Open(context.Background(), path, paper.Options{Pages: paper.PageRange{{From: 2, To: 2}}})
	if err != nil || len(pages.Pages) != 1 || pages.Pages[0].Number != 2 {
		t.Fatalf("page 2 alone: %v", err)
	}
}

// The extraction's errors cross the boundary as paper's: errors.Is finds the sentinel, and the
// text is the same as here.
func TestErrorsCrossTheBoundary(t *testing.T) {
	t.Parallel()
	for _, data := range [][]byte{
		[]byte("%PDF-1.4\nnot a PDF at all\n"),
		[]byte("plain text"),
	} {
		_, want := paper.Extract(context.Background(), bytes.NewReader(data), int64(len(data)), paper.Options{})
		_, got := Extract(context.Background(), bytes.NewReader(data), int64(len(data)), paper.Options{})
		if !errors.Is(got, paper.ErrCorrupt) || got.Error() != want.Error() {
			t.Errorf("%q: %v, want %v", data, got, want)
		}
	}
	var b bytes.Buffer
	if err := papertest.ClaimedObjects(&b, "size"); err != nil {
		t.Fatal(err)
	}
	_, err := Extract(context.Background(), bytes.NewReader(b.Bytes()), int64(b.Len()), paper.Options{})
	if !errors.Is(err, paper.ErrTooLarge) || !errors.Is(err, paper.ErrCorrupt) {
		t.Errorf("a file past a bound: %v, want ErrTooLarge (an ErrCorrupt too)", err)
	}
}

// A child that goes past its memory dies alone: the extraction is refused as too large and
// this process goes on. The file is real work: its fonts sit in 36 object streams of 1.9 MB,
// of which the library keeps 60 MB inflated.
func TestAChildPastItsMemoryDiesAlone(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := papertest.ObjStmRereads(&b, 36, 1, 1900<<10, false); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := Extract(ctx, bytes.NewReader(b.Bytes()), int64(b.Len()), paper.Options{}); err != nil {
		t.Fatalf("within the default bounds: %v", err)
	}
	// The child bounds its memory on Linux; a 16 MB address space leaves the race detector no
	// room, so this part runs in make test-go's run without -race.
	if runtime.GOOS == "linux" && !testtools.Race {
		_, err := ExtractLimited(ctx, bytes.NewReader(b.Bytes()), int64(b.Len()), paper.Options{}, child.Limits{Memory: 16 << 20, CPU: time.Minute})
		if !errors.Is(err, paper.ErrTooLarge) || !strings.Contains(err.Error(), "extracting it needed more than 16 MB of memory") {
			t.Fatalf("with 16 MB: %v, want the memory bound", err)
		}
	}
}

// Cancelled, the child is killed and the caller gets the cancellation.
func TestCancelKillsTheChild(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := papertest.Dense(&b, 200); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := Extract(ctx, bytes.NewReader(b.Bytes()), int64(b.Len()), paper.Options{Progress: func(int, int) { cancel() }})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled at the first page: %v", err)
	}
}

// BenchmarkChild is the cost of the boundary: a paper extracted here and in a child.
func BenchmarkChild(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(shareddata.Require(b, "papers"), "naacl2006_shinyama", "paper.pdf"))
	if err != nil {
		b.Fatal(err)
	}
	for _, run := range []struct {
		name    string
		extract func(context.Context, *bytes.Reader, int64, paper.Options) (*paper.Document, error)
	}{
		{"here", func(ctx context.Context, r *bytes.Reader, n int64, o paper.Options) (*paper.Document, error) {
			return paper.Extract(ctx, r, n, o)
		}},
		{"child", func(ctx context.Context, r *bytes.Reader, n int64, o paper.Options) (*paper.Document, error) {
			return Extract(ctx, r, n, o)
		}},
	} {
		b.Run(run.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := run.extract(context.Background(), bytes.NewReader(data), int64(len(data)), paper.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
