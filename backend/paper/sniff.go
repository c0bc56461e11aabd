package paper

import (
	"bytes"
	"strings"
)

// notPDFReason says what a file without a PDF header looks like, from its first bytes: a
// user who dropped the wrong file learns which one it was. The signatures are those of the
// files people drop by mistake, as net/http's sniffer knows them (WHATWG MIME sniffing),
// written out here so that the extractor links no HTTP stack (tofu-pdf starts faster).
func notPDFReason(head []byte) string {
	for _, s := range signatures {
		if bytes.HasPrefix(head, s.magic) {
			return s.what
		}
	}
	trimmed := bytes.TrimLeft(head, "\t\n\x0c\r ")
	lower := strings.ToLower(string(trimmed[:min(len(trimmed), 16)]))
	for _, tag := range htmlTags {
		if strings.HasPrefix(lower, tag) && len(lower) > len(tag) && (lower[len(tag)] == ' ' || lower[len(tag)] == '>') {
			return "it is a web page (HTML), perhaps the page around the PDF's link"
		}
	}
	if strings.HasPrefix(lower, "<?xml") {
		return "it is an XML file"
	}
	if isText(head) {
		return "it is a text file"
	}
	return "it has no %PDF- header"
}

var signatures = []struct {
	magic []byte
	what  string
}{
	{[]byte("PK\x03\x04"), "it is a ZIP archive (a Word or PowerPoint file is one)"},
	{[]byte("\x1f\x8b\x08"), "it is a gzip archive (an arXiv source tarball is one)"},
	{[]byte("%!PS-Adobe-"), "it is PostScript"},
	{[]byte("\x89PNG\r\n\x1a\n"), "it is a PNG image"},
	{[]byte("\xff\xd8\xff"), "it is a JPEG image"},
	{[]byte("GIF87a"), "it is a GIF image"},
	{[]byte("GIF89a"), "it is a GIF image"},
	{[]byte("\xef\xbb\xbf"), "it is a text file"},
	{[]byte("\xfe\xff"), "it is a text file"},
	{[]byte("\xff\xfe"), "it is a text file"},
}

// htmlTags open an HTML document (lower case, without the character that ends the tag).
var htmlTags = []string{"<!doctype html", "<html", "<head", "<script", "<iframe", "<h1", "<div", "<font", "<table", "<a", "<style", "<title", "<b", "<body", "<br", "<p", "<!--"}

// isText: no byte that only binary files hold (the sniffer's rule).
func isText(head []byte) bool {
	for _, b := range head {
		if b <= 0x08 || b == 0x0B || 0x0E <= b && b <= 0x1A || 0x1C <= b && b <= 0x1F {
			return false
		}
	}
	return true
}
