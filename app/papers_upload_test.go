package app

import (
	"encoding/json"
	"github.com/tofu-research/tofu/backend/paper/library"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// pattern is a request body of n bytes made on the fly, so a test can send hundreds of
// megabytes without holding them.
type pattern struct{ left int64 }

func (p *pattern) Read(b []byte) (int, error) {
	if p.left <= 0 {
		return 0, io.EOF
	}
	n := int(min(int64(len(b)), p.left))
	for i := range n {
		b[i] = "not a pdf, just bytes\n"[i%22]
	}
	p.left -= int64(n)
	return n, nil
}

// upload posts body (length -1: chunked) to /api/paper/import the way the UI does.
func upload(t *testing.T, url, token string, body io.Reader, length int64) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest("POST", url+"/api/paper/import?name=big.pdf", body)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = length
	req.Header.Set("Content-Type", "application/pdf")
	req.Header.Set("X-Tofu-Token", token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ Error string }
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, resp.Header, out.Error
}

// Many concurrent large uploads: each either streams to a temporary file and is imported
// (here refused as not a PDF) or is turned away with 503 while two run; memory allocated
// stays a small fraction of what was sent, and no temporary file is left behind.
// Not parallel: it measures the process's allocations.
func TestUploadsStreamToDiskWithBoundedMemory(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	_, ts, token := newHTTP(t)
	const uploads, size = 12, 48 << 20

	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	codes := make([]int, uploads)
	msgs := make([]string, uploads)
	var wg sync.WaitGroup
	for i := range uploads {
		wg.Go(func() {
			length := int64(size)
			if i%2 == 1 {
				length = -1 // chunked: the size is not known up front
			}
			codes[i], _, msgs[i] = upload(t, ts.URL, token, &pattern{left: size}, length)
		})
	}
	wg.Wait()
	runtime.ReadMemStats(&after)

	imported := 0
	for i, code := range codes {
		switch {
		case code == http.StatusBadRequest && strings.Contains(msgs[i], "not a PDF"):
			imported++
		case code == http.StatusServiceUnavailable && strings.Contains(msgs[i], "imports are already running"):
		default:
			t.Errorf("upload %d: %d %q", i, code, msgs[i])
		}
	}
	if imported == 0 {
		t.Error("no upload got through")
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d uploads of %d MB: %d read and imported, %d turned away; %.1f MB allocated in all, heap in use %.1f MB after",
		uploads, size>>20, imported, uploads-imported, float64(alloc)/(1<<20), float64(after.HeapInuse)/(1<<20))
	// Reading a single body into memory would allocate at least its size.
	if alloc > size/2 {
		t.Errorf("%d MB allocated while %d uploads of %d MB ran: bodies are held in memory", alloc>>20, uploads, size>>20)
	}
	left, _ := filepath.Glob(filepath.Join(cache, "tofu", "uploads", "*"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// With two imports running, an upload is turned away at once with 503, Retry-After and a
// message; when one finishes the next upload goes through.
func TestUploadWaitsForNoMoreThanTwoImports(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	f, ts, token := newHTTP(t)
	var releases []func()
	for range library.MaxImports {
		release, ok := library.Slots(f.app.Papers.Shelf).TryAcquire()
		if !ok {
			t.Fatal("no free import slot at start")
		}
		releases = append(releases, release)
	}
	code, h, msg := upload(t, ts.URL, token, &pattern{left: 1 << 20}, 1<<20)
	if code != http.StatusServiceUnavailable || h.Get("Retry-After") == "" || !strings.Contains(msg, "2 imports are already running") {
		t.Fatalf("upload while two imports run: %d retry-after=%q %q", code, h.Get("Retry-After"), msg)
	}
	// An import from the window or the CLI waits for a slot instead (a person paces those).
	done := make(chan error, 1)
	go func() {
		_, err := f.app.Papers.Import("waits.pdf", []byte("not a pdf"))
		done <- err
	}()
	releases[0]()
	if err := <-done; err == nil || !strings.Contains(err.Error(), "not a PDF") {
		t.Fatalf("waiting import: %v", err)
	}
	code, _, msg = upload(t, ts.URL, token, &pattern{left: 1 << 20}, 1<<20)
	if code != http.StatusBadRequest || !strings.Contains(msg, "not a PDF") {
		t.Fatalf("upload after a slot freed: %d %q", code, msg)
	}
	releases[1]()
}

// Over 512 MB the answer is 413 with a message: at once when the length is declared, after
// 512 MB when the body is chunked.
func TestUploadOverTheLimitIs413(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	_, ts, token := newHTTP(t)
	for _, length := range []int64{512<<20 + 1, -1} {
		code, _, msg := upload(t, ts.URL, token, &pattern{left: 512<<20 + 1}, length)
		if code != http.StatusRequestEntityTooLarge || !strings.Contains(msg, "larger than 512 MB") {
			t.Errorf("length %d: %d %q", length, code, msg)
		}
	}
	if _, err := os.Stat(filepath.Join(os.Getenv("XDG_CACHE_HOME"), "tofu", "uploads")); err == nil {
		left, _ := filepath.Glob(filepath.Join(os.Getenv("XDG_CACHE_HOME"), "tofu", "uploads", "*"))
		if len(left) != 0 {
			t.Errorf("temporary files left: %v", left)
		}
	}
}
