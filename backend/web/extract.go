package web

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	readability "codeberg.org/readeck/go-readability/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	mdbase "github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
)

// extractHTML finds the page's main content (readability, as Firefox's reader view) and
// writes it as Markdown with absolute links. A page readability finds nothing in (a search
// form, an app shell) is converted whole, without its scripts and styles.
func extractHTML(ctx context.Context, body []byte, base *url.URL, p *Page) error {
	if cut, ok := capElements(body, maxElements); ok {
		body, p.Truncated, p.Bytes = cut, true, int64(len(cut))
	}
	var main string
	if art, err := readability.FromReader(bytes.NewReader(body), base); err == nil && art.Node != nil {
		var b strings.Builder
		if err := art.RenderHTML(&b); err == nil {
			main = b.String()
		}
		p.Title = art.Title()
		var t strings.Builder
		if art.RenderText(&t) == nil {
			p.Text = strings.TrimSpace(t.String())
		}
	}
	if strings.TrimSpace(p.Text) == "" {
		doc, err := html.Parse(bytes.NewReader(body))
		if err != nil {
			return fmt.Errorf("parse the page: %w", err)
		}
		strip(doc)
		var b bytes.Buffer
		if err := html.Render(&b, doc); err != nil {
			return fmt.Errorf("render the page: %w", err)
		}
		main = b.String()
	}
	conv := converter.NewConverter(converter.WithPlugins(mdbase.NewBasePlugin(), commonmark.NewCommonmarkPlugin(), table.NewTablePlugin()))
	md, err := conv.ConvertString(main, converter.WithDomain(base.Scheme+"://"+base.Host), converter.WithContext(ctx))
	if err != nil {
		return fmt.Errorf("convert the page to Markdown: %w", err)
	}
	p.Markdown = blankRuns.ReplaceAllString(strings.TrimSpace(md), "\n\n")
	if p.Text == "" {
		p.Text = p.Markdown
	}
	if p.Title != "" && !strings.HasPrefix(p.Markdown, "# ") {
		p.Markdown = "# " + p.Title + "\n\n" + p.Markdown
	}
	return nil
}

var blankRuns = regexp.MustCompile(`\n{3,}`)

// maxElements bounds the elements of a page that are parsed: readability and the Markdown
// converter hold about 900 bytes an element at their peak, and a 5 MB page of 1,300,000 links
// took 12 s of CPU and 1.2 GB; five of them, as one web_fetch call may read, were a fatal
// out-of-memory. Real pages hold some thousands of elements, long articles some tens of
// thousands; the page is cut before the element past the bound, as it is past MaxBytes.
const maxElements = 100_000

// capElements returns body cut before its element past max, and whether it was cut.
func capElements(body []byte, max int) ([]byte, bool) {
	z := html.NewTokenizer(bytes.NewReader(body))
	n, off := 0, 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			return body, false
		case html.StartTagToken, html.SelfClosingTagToken:
			if n++; n > max {
				return body[:off], true
			}
		}
		off += len(z.Raw())
	}
}

// strip removes what is never content: scripts, styles, templates, forms' hidden parts.
func strip(n *html.Node) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.ElementNode {
			switch c.Data {
			case "script", "style", "noscript", "template", "iframe", "svg":
				n.RemoveChild(c)
				c = next
				continue
			}
		}
		strip(c)
		c = next
	}
}
