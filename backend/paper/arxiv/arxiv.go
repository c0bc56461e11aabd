// Package arxiv downloads papers from arXiv. It is the only part of the paper reader that uses
// the network, and the app calls it only when the user has turned web access on. It is apart
// from backend/paper so that the extractor (and tofu-pdf, which links only it) carries no HTTP
// client.
package arxiv

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Client downloads papers from arXiv.
type Client struct {
	// PDFBase serves /pdf/<id> (default https://arxiv.org); APIBase is the Atom query API
	// (default https://export.arxiv.org/api/query). Tests point both at a local server.
	PDFBase, APIBase string
	HTTP             *http.Client
}

// Meta is what arXiv says about a paper.
type Meta struct {
	ID       string   `json:"id"`
	Title    string   `json:"title"`
	Authors  []string `json:"authors"`
	Year     int      `json:"year"`
	Abstract string   `json:"abstract"`
}

// ErrOffline means arXiv could not be reached.
var ErrOffline = errors.New("arXiv cannot be reached")

func (a Client) client() *http.Client {
	if a.HTTP != nil {
		return a.HTTP
	}
	return &http.Client{Timeout: 60 * time.Second}
}

// Fetch downloads the PDF of id and its metadata (best effort: a failed metadata query leaves
// meta with the id only).
func (a Client) Fetch(ctx context.Context, id string) ([]byte, Meta, error) {
	pdfBase, apiBase := a.PDFBase, a.APIBase
	if pdfBase == "" {
		pdfBase = "https://arxiv.org"
	}
	if apiBase == "" {
		apiBase = "https://export.arxiv.org/api/query"
	}
	meta := Meta{ID: id}
	pdf, err := a.get(ctx, strings.TrimRight(pdfBase, "/")+"/pdf/"+id, 200<<20)
	if err != nil {
		return nil, meta, err
	}
	if !strings.HasPrefix(string(pdf[:min(len(pdf), 5)]), "%PDF") {
		return nil, meta, fmt.Errorf("arXiv did not send a PDF for %s (is the id right?)", id)
	}
	if atom, err := a.get(ctx, apiBase+"?id_list="+id, 1<<20); err == nil {
		parseAtom(atom, &meta)
	}
	return pdf, meta, nil
}

func (a Client) get(ctx context.Context, url string, limit int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "Tofu (research assistant)")
	resp, err := a.client().Do(req)
	if err != nil {
		var dns *net.DNSError
		var op *net.OpError
		if errors.As(err, &dns) || errors.As(err, &op) {
			return nil, fmt.Errorf("%w (%v): check the connection, or drop the PDF file instead", ErrOffline, err)
		}
		return nil, fmt.Errorf("download %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil, fmt.Errorf("arXiv has no paper at %s", url)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("arXiv answered %s for %s", resp.Status, url)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("download %s: %w", url, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s is larger than %d MB", url, limit>>20)
	}
	return b, nil
}

func parseAtom(b []byte, meta *Meta) {
	var feed struct {
		Entries []struct {
			Title     string `xml:"title"`
			Summary   string `xml:"summary"`
			Published string `xml:"published"`
			Authors   []struct {
				Name string `xml:"name"`
			} `xml:"author"`
		} `xml:"entry"`
	}
	if xml.Unmarshal(b, &feed) != nil || len(feed.Entries) == 0 {
		return
	}
	e := feed.Entries[0]
	meta.Title = strings.Join(strings.Fields(e.Title), " ")
	meta.Abstract = strings.Join(strings.Fields(e.Summary), " ")
	for _, a := range e.Authors {
		meta.Authors = append(meta.Authors, strings.TrimSpace(a.Name))
	}
	if len(e.Published) >= 4 {
		meta.Year, _ = strconv.Atoi(e.Published[:4])
	}
}
