package eval

import (
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// groundTruth reads a paper's reference text. The first kind present wins,
// so two extractions of the same paper are never counted twice: LaTeX source
// (every .tex file), then Markdown, then plain text (.txt, .ref), then TEI
// XML, then s2orc JSON. BibTeX files and files that are not UTF-8 are ignored.
func groundTruth(files []string) (text, kind string, err error) {
	byKind := map[string][]string{}
	for _, f := range files {
		// pLaTeX sources in EUC-JP or Shift-JIS cannot be compared; fall
		// through to the next kind for those papers.
		if data, err := os.ReadFile(f); err == nil && !utf8.Valid(data) {
			continue
		}
		byKind[gtKind(f)] = append(byKind[gtKind(f)], f)
	}
	for _, k := range []string{"latex", "markdown", "text", "tei", "json"} {
		fs := byKind[k]
		if len(fs) == 0 {
			continue
		}
		sort.Strings(fs)
		var b strings.Builder
		for _, f := range fs {
			data, err := os.ReadFile(f)
			if err != nil {
				return "", "", fmt.Errorf("read ground truth: %w", err)
			}
			t, err := convert(k, string(data))
			if err != nil {
				return "", "", fmt.Errorf("ground truth %s: %w", filepath.Base(f), err)
			}
			b.WriteString(t)
			b.WriteString("\n")
		}
		return b.String(), k, nil
	}
	return "", "", fmt.Errorf("no usable ground truth among %d files", len(files))
}

func gtKind(name string) string {
	switch n := strings.ToLower(name); {
	case strings.HasSuffix(n, ".tex"):
		return "latex"
	case strings.HasSuffix(n, ".md"):
		return "markdown"
	case strings.HasSuffix(n, ".txt"), strings.HasSuffix(n, ".ref"):
		return "text"
	case strings.HasSuffix(n, ".xml"):
		return "tei"
	case strings.HasSuffix(n, ".json"):
		return "json"
	}
	return "other"
}

func convert(kind, s string) (string, error) {
	switch kind {
	case "latex":
		return StripLaTeX(s), nil
	case "markdown":
		return StripMarkdown(s), nil
	case "tei":
		return stripXML(s), nil
	case "json":
		return jsonText(s)
	}
	return dehyphenate(s), nil
}

var (
	texComment  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)(^|[^\\])%.*$`) })
	texMath     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)\$\$.*?\$\$|\$[^$]*\$|\\\[.*?\\\]|\\\(.*?\\\)`) })
	texDropArgs = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\\(cite[a-z]*|[a-z]*ref|label|usepackage|documentclass|includegraphics|bibliographystyle|bibliography|input|include|url|newcommand|renewcommand|providecommand|DeclareMathOperator|newenvironment|setlength|setcounter|vspace|hspace|pagestyle|thispagestyle|addbibresource|newif|def\\[a-zA-Z@]+)\*?(\s*\[[^\]]*\])*(\s*\{(?:[^{}]|\{[^{}]*\})*\})*`)
	})
	texHref    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\\href\s*\{[^}]*\}`) })
	texEnvName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\\(begin|end)\s*\{[^}]*\}(\s*\[[^\]]*\])?`) })
	texCommand = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\\[a-zA-Z@]+\*?(\s*\[[^\]]*\])?|\\.`) })
	mathEnvs   = []string{"equation", "align", "eqnarray", "gather", "multline", "displaymath", "math", "tikzpicture", "verbatim"}
)

// StripLaTeX reduces LaTeX source to its running words: comments, math and
// commands go, the text inside text commands (\emph{…}, \section{…}) stays.
func StripLaTeX(s string) string {
	s = texComment().ReplaceAllString(s, "$1")
	if i := strings.Index(s, `\begin{document}`); i >= 0 {
		s = s[i:]
	}
	if i := strings.Index(s, `\end{document}`); i >= 0 {
		s = s[:i]
	}
	for _, env := range mathEnvs {
		re := regexp.MustCompile(`(?s)\\begin\{` + env + `\*?\}.*?\\end\{` + env + `\*?\}`)
		s = re.ReplaceAllString(s, " ")
	}
	s = texMath().ReplaceAllString(s, " ")
	s = texHref().ReplaceAllString(s, " ")
	s = texDropArgs().ReplaceAllString(s, " ")
	s = texEnvName().ReplaceAllString(s, " ")
	s = texCommand().ReplaceAllString(s, " ")
	return strings.NewReplacer("{", " ", "}", " ", "~", " ", "&", " ", "``", "\"", "''", "\"", "--", "–").Replace(s)
}

var (
	mdFront    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)^---\n(.*?)\n---\n`) })
	mdYAMLKey  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\s*-?\s*[a-zA-Z_-]+:\s*`) })
	mdComment  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)#.*$`) })
	mdLinkURL  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\]\([^)]*\)`) })
	mdCitation = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[?-?@[\w:.-]+[;\]]?`) })
	mdHTML     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<[^>]+>`) })
	mdImage    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`!\[[^\]]*\]\([^)]*\)`) })
)

// StripMarkdown keeps the words of a Markdown paper: front matter values
// (title, authors), headings and text, without URLs, citation keys or markup.
func StripMarkdown(s string) string {
	front := ""
	if m := mdFront().FindStringSubmatch(s); m != nil {
		front = mdComment().ReplaceAllString(m[1], "")
		for _, line := range strings.Split(front, "\n") {
			k := strings.TrimSpace(line)
			if strings.HasPrefix(k, "orcid:") || strings.HasPrefix(k, "bibliography:") ||
				strings.HasPrefix(k, "index:") || strings.HasPrefix(k, "- \\") || strings.Contains(k, "equal-contrib") || strings.Contains(k, "corresponding") {
				front = strings.Replace(front, line, "", 1)
			}
		}
		front = mdYAMLKey().ReplaceAllString(front, " ")
		s = s[len(m[0]):]
	}
	s = mdImage().ReplaceAllString(s, " ")
	s = mdLinkURL().ReplaceAllString(s, "]")
	s = mdCitation().ReplaceAllString(s, " ")
	s = mdHTML().ReplaceAllString(s, " ")
	s = texMath().ReplaceAllString(s, " ")
	return front + "\n" + s
}

var xmlTag = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)<[^>]*>`) })

func stripXML(s string) string {
	return html.UnescapeString(xmlTag().ReplaceAllString(s, " "))
}

// jsonText collects title, abstract, body and caption text of an s2orc
// doc2json file.
func jsonText(s string) (string, error) {
	var doc struct {
		Title    string `json:"title"`
		PDFParse struct {
			Abstract   []struct{ Text string }          `json:"abstract"`
			BodyText   []struct{ Text string }          `json:"body_text"`
			RefEntries map[string]struct{ Text string } `json:"ref_entries"`
		} `json:"pdf_parse"`
	}
	if err := json.Unmarshal([]byte(s), &doc); err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(doc.Title + "\n")
	for _, p := range doc.PDFParse.Abstract {
		b.WriteString(p.Text + "\n")
	}
	for _, p := range doc.PDFParse.BodyText {
		b.WriteString(p.Text + "\n")
	}
	for _, r := range doc.PDFParse.RefEntries {
		b.WriteString(r.Text + "\n")
	}
	return b.String(), nil
}

var hyphenBreak = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(\p{L})-\n(\p{Ll})`) })

// dehyphenate joins words another extractor left split at line ends.
func dehyphenate(s string) string {
	return hyphenBreak().ReplaceAllString(s, "$1$2")
}
