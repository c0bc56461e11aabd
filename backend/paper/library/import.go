package library

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/paper"
	"github.com/tofu-research/tofu/backend/paper/worker"
)

// ImportEnd is the kind of the papers topic's message that an import ended, imported or not.
const ImportEnd = "import_end"

// Import extracts the PDF in r (size bytes, named name) and adds it to the library. The same
// file imported twice is the same paper: its id is the start of the file's SHA-256.
func (l *Library) Import(ctx context.Context, name string, r io.ReaderAt, size int64, password string) (Info, error) {
	if size == 0 {
		return Info{}, &paper.Error{Kind: paper.ErrCorrupt, Reason: name + " is empty", Hint: "choose another file"}
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(r, 0, size)); err != nil {
		return Info{}, fmt.Errorf("read %s: %w", name, err)
	}
	id := hex.EncodeToString(h.Sum(nil))[:16]
	if info, err := l.Info(id); err == nil {
		return info, nil // already in the library
	}
	// The end, whichever it is, follows the last progress message (and the new library): a
	// window that did not start this import (a forwarded `tofu paper add`) clears its
	// progress line on it.
	defer l.opts.Emit.Emit(TopicPapers, map[string]any{"kind": ImportEnd, "name": name})
	// In a child process: a file that takes the extractor down takes only the child.
	doc, err := worker.Extract(ctx, r, size, paper.Options{Password: password, Progress: func(done, total int) {
		l.opts.Emit.Emit(TopicPapers, map[string]any{"kind": "progress", "name": name, "done": done, "total": total})
	}})
	if err != nil {
		return Info{}, fmt.Errorf("%s: %w", name, err)
	}
	chunks := doc.Chunks()
	words := 0
	for _, c := range chunks {
		words += c.Words
	}
	title := strings.TrimSpace(doc.Meta.Title)
	if title == "" {
		title = strings.TrimSuffix(name, filepath.Ext(name))
	}
	info := Info{
		ID: id, Name: name, Title: title, Authors: doc.Meta.Authors, Year: doc.Meta.Year,
		Pages: len(doc.Pages), Size: size, Words: words, Chunks: len(chunks),
		Repaired: doc.Meta.Repaired, Added: time.Now().UTC(),
	}
	// Blobs first, the record last: a paper is listed only once everything it needs is stored.
	fail := func(err error) (Info, error) {
		for _, k := range []string{PDFKey(id), docKey(id), structKey(id)} {
			// Best effort: the import fails with err either way, and a blob left behind is
			// never listed (the record, written last, is missing).
			_ = l.store.DeleteBlob(k)
		}
		return Info{}, fmt.Errorf("save %s: %w", name, err)
	}
	if _, err := l.store.PutBlob(PDFKey(id), io.NewSectionReader(r, 0, size)); err != nil {
		return fail(err)
	}
	docJSON, err := json.Marshal(doc)
	if err != nil {
		return fail(err)
	}
	if _, err := l.store.PutBlob(docKey(id), bytes.NewReader(docJSON)); err != nil {
		return fail(err)
	}
	structJSON, err := json.Marshal(structure{Sections: doc.Sections, Chunks: chunks, ChunkVersion: paper.ChunkVersion})
	if err != nil {
		return fail(err)
	}
	if _, err := l.store.PutBlob(structKey(id), bytes.NewReader(structJSON)); err != nil {
		return fail(err)
	}
	if err := l.store.PutJSON(recordKey(id), info); err != nil {
		return fail(err)
	}
	l.announce()
	return info, nil
}

// ImportArxiv downloads a paper from arXiv by id or URL and adds it to the library, with its
// title, authors and year from arXiv. Whether web access is allowed is the caller's to check.
func (l *Library) ImportArxiv(ctx context.Context, ref string) (Info, error) {
	id, err := paper.ParseArxivID(ref)
	if err != nil {
		return Info{}, err
	}
	pdf, meta, err := l.opts.Arxiv.Fetch(ctx, id)
	if err != nil {
		return Info{}, err
	}
	info, err := l.Import(ctx, "arXiv-"+strings.ReplaceAll(id, "/", "_")+".pdf", bytes.NewReader(pdf), int64(len(pdf)), "")
	if err != nil || meta.Title == "" {
		return info, err
	}
	// arXiv's own metadata beats what the first page suggests.
	return l.update(info.ID, func(i *Info) {
		i.Title, i.Authors = meta.Title, meta.Authors
		if meta.Year > 0 {
			i.Year = meta.Year
		}
	})
}

// maxDownload bounds a PDF downloaded by ImportURL, as arXiv's downloads are bounded.
const maxDownload = 200 << 20

// ImportURL downloads the PDF at url and adds it to the library. Whether web access is
// allowed is the caller's to check; a network that cannot be reached is arxiv.ErrOffline's
// kind of error, with what to do instead.
func (l *Library) ImportURL(ctx context.Context, url string) (Info, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return Info{}, fmt.Errorf("%q is not a URL Tofu can download: %w", url, err)
	}
	req.Header.Set("User-Agent", "Tofu (research assistant)")
	client := l.opts.HTTP
	if client == nil {
		client = &http.Client{Timeout: 2 * time.Minute}
	}
	resp, err := client.Do(req)
	if err != nil {
		var dns *net.DNSError
		var op *net.OpError
		if errors.As(err, &dns) || errors.As(err, &op) {
			return Info{}, fmt.Errorf("%s cannot be reached (%v): check the connection, or download the PDF and add the file", req.URL.Host, err)
		}
		return Info{}, fmt.Errorf("download %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Info{}, fmt.Errorf("%s answered %s", url, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxDownload+1))
	if err != nil {
		return Info{}, fmt.Errorf("download %s: %w", url, err)
	}
	if len(data) > maxDownload {
		return Info{}, fmt.Errorf("%s is larger than %d MB", url, maxDownload>>20)
	}
	if !bytes.HasPrefix(data, []byte("%PDF")) {
		return Info{}, fmt.Errorf("%s is not a PDF (it starts %.20q): give the address of the PDF itself", url, data[:min(len(data), 20)])
	}
	name := path.Base(req.URL.Path)
	if name == "" || name == "/" || name == "." {
		name = req.URL.Host
	}
	if !strings.HasSuffix(strings.ToLower(name), ".pdf") {
		name += ".pdf"
	}
	return l.Import(ctx, name, bytes.NewReader(data), int64(len(data)), "")
}
