package coding

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	_ "image/gif" // image.DecodeConfig of read_files' images
	_ "image/jpeg"
	_ "image/png"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/tofu-research/tofu/backend/tools"
)

// Limits of read_files, from ToFu's read_files (read_tools.py, config.py): one call replaces
// many round trips, and the budgets keep one call from flooding the context.
const (
	MaxReadEntries = 20       // entries per call
	ReadBatchChars = 200_000  // output characters per call
	WholeFileChars = 40_000   // a file this small is shown whole when no range is given
	MaxFileChars   = 100_000  // output characters per entry
	MaxLineChars   = 2_000    // a longer line is cut (minified code, data)
	MaxTextBytes   = 16 << 20 // a text file larger than this is refused: grep it instead
	MaxImageBytes  = 5 << 20  // what vision APIs accept
	MaxDirEntries  = 200      // entries listed for a directory
)

// ReadParams are read_files' arguments.
type ReadParams struct {
	Reads []ReadEntry `json:"reads"`
}

// ReadEntry is one file or line range to read.
type ReadEntry struct {
	Path  string `json:"path" alias:"file,file_path,filename"`
	Start int    `json:"start,omitempty" alias:"start_line,from,offset"`
	End   int    `json:"end,omitempty" alias:"end_line,to"`
}

// ReadMeta is read_files' Result.Meta: one entry per read.
type ReadMeta struct {
	Entries []ReadEntryMeta `json:"entries"`
}

// ReadEntryMeta says what one read returned.
type ReadEntryMeta struct {
	Path      string `json:"path"`
	Start     int    `json:"start,omitempty"`
	End       int    `json:"end,omitempty"`
	Lines     int    `json:"lines,omitempty"` // total lines of the file
	Truncated bool   `json:"truncated,omitempty"`
	Error     string `json:"error,omitempty"`
}

// NewReadFiles returns the read_files tool.
func NewReadFiles() tools.Tool {
	return tools.Define(tools.Def[ReadParams]{
		Name:        "read_files",
		Description: doc("read_files"),
		ReadOnly:    true,
		Example:     `{"reads":[{"path":"main.go"},{"path":"util.go","start":40,"end":80}]}`,
		Run:         runReadFiles,
		Access: func(_ tools.Call, p ReadParams) []tools.Access {
			var acc []tools.Access
			for _, r := range p.Reads {
				acc = append(acc, tools.Access{Kind: tools.AccessRead, Path: r.Path})
			}
			return acc
		},
	})
}

func runReadFiles(ctx context.Context, call tools.Call, p ReadParams) (tools.Result, error) {
	if len(p.Reads) == 0 {
		return tools.Errorf(`reads is empty: give at least one {"path": …}`), nil
	}
	if len(p.Reads) > MaxReadEntries {
		return tools.Errorf(fmt.Sprintf("%d reads in one call; the limit is %d: split them", len(p.Reads), MaxReadEntries)), nil
	}
	var out strings.Builder
	var meta ReadMeta
	var images [][]byte
	failed := 0
	budget := ReadBatchChars
	for _, e := range p.Reads {
		if err := ctx.Err(); err != nil {
			return tools.Result{}, err
		}
		if out.Len() > 0 {
			out.WriteByte('\n')
		}
		abs := tools.AbsPath(call.Workspace, e.Path)
		shown := tools.Rel(call.Workspace, abs)
		em := ReadEntryMeta{Path: abs}
		if budget <= 0 {
			em.Error = "skipped"
			fmt.Fprintf(&out, "== %s: skipped, this call's output limit (%d chars) is used up; read it in another call ==\n", shown, ReadBatchChars)
			meta.Entries = append(meta.Entries, em)
			failed++
			continue
		}
		text, img, err := readEntry(ctx, abs, shown, e, min(budget, MaxFileChars), &em)
		if err != "" {
			em.Error = err
			failed++
			fmt.Fprintf(&out, "== %s: %s ==\n", shown, err)
		} else {
			out.WriteString(text)
			budget -= len(text)
		}
		if img != nil {
			images = append(images, img)
		}
		meta.Entries = append(meta.Entries, em)
	}
	return tools.Result{Text: out.String(), IsError: failed == len(p.Reads), Images: images, Meta: meta}, nil
}

// readEntry renders one entry, or returns a model-facing reason it cannot.
func readEntry(ctx context.Context, abs, shown string, e ReadEntry, limit int, em *ReadEntryMeta) (string, []byte, string) {
	fi, err := os.Stat(abs)
	if err != nil {
		if os.IsNotExist(err) {
			return "", nil, "not found" + nearby(abs)
		}
		return "", nil, "cannot read: " + trimErr(err)
	}
	if fi.IsDir() {
		return listDir(abs, shown)
	}
	if !fi.Mode().IsRegular() {
		return "", nil, "not a regular file"
	}
	if isImageName(abs) {
		return readImage(abs, shown, fi.Size())
	}
	if kind := documentKind(abs); kind != "" {
		if fi.Size() > MaxDocumentBytes {
			return "", nil, fmt.Sprintf("too large (%s; the limit for documents is %s)", humanBytes(fi.Size()), humanBytes(MaxDocumentBytes))
		}
		if kind == "pdf" {
			return readPDF(ctx, abs, shown, e, limit, em)
		}
		text, err := officeTextInChild(ctx, kind, abs)
		if err != nil {
			return "", nil, documentError(officeNames[kind], err)
		}
		return renderLines(text, shown+" ("+kind+" as text)", e, limit, em)
	}
	if fi.Size() > MaxTextBytes {
		return "", nil, fmt.Sprintf("too large (%s); use grep, or run_command with head/sed -n", humanBytes(fi.Size()))
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return "", nil, "cannot read: " + trimErr(err)
	}
	if isBinary(data) || !utf8.Valid(data[:validPrefix(data)]) {
		return "", nil, fmt.Sprintf("binary file (%s), not shown", humanBytes(int64(len(data))))
	}
	return renderLines(string(data), shown, e, limit, em)
}

// renderLines shows the lines of text e asks for, numbered, within limit.
func renderLines(text, shown string, e ReadEntry, limit int, em *ReadEntryMeta) (string, []byte, string) {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	lines := strings.Split(text, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	n := len(lines)
	em.Lines = n
	if n == 0 {
		return fmt.Sprintf("== %s (empty) ==\n", shown), nil, ""
	}
	start, end := e.Start, e.End
	ranged := start > 0 || end > 0
	if start <= 0 {
		start = 1
	}
	if end <= 0 || end > n {
		end = n
	}
	if start > n {
		return "", nil, fmt.Sprintf("start %d is past the end (the file has %d lines)", start, n)
	}
	if end < start {
		return "", nil, fmt.Sprintf("end %d is before start %d", end, start)
	}
	if !ranged && len(text) > WholeFileChars {
		limit = min(limit, WholeFileChars)
	}
	var body strings.Builder
	last := start - 1
	for i := start; i <= end; i++ {
		line := lines[i-1]
		if len(line) > MaxLineChars {
			line = line[:utf8Floor(line, MaxLineChars)] + fmt.Sprintf("… [line cut, %d chars]", len(lines[i-1]))
		}
		if body.Len()+len(line)+8 > limit && i > start {
			break
		}
		fmt.Fprintf(&body, "%d\t%s\n", i, line)
		last = i
	}
	em.Start, em.End = start, last
	var head string
	switch {
	case start == 1 && last == n:
		head = fmt.Sprintf("== %s (%d lines) ==\n", shown, n)
	default:
		head = fmt.Sprintf("== %s lines %d-%d of %d ==\n", shown, start, last, n)
	}
	tail := ""
	if last < end {
		em.Truncated = true
		tail = fmt.Sprintf("[cut at line %d (output limit); continue with start=%d, or grep]\n", last, last+1)
	}
	return head + body.String() + tail, nil, ""
}

func listDir(abs, shown string) (string, []byte, string) {
	ents, err := os.ReadDir(abs)
	if err != nil {
		return "", nil, "cannot list directory: " + trimErr(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "== %s/ is a directory (%d entries) ==\n", strings.TrimSuffix(shown, "/"), len(ents))
	for i, d := range ents {
		if i == MaxDirEntries {
			fmt.Fprintf(&b, "[%d more; use find_files]\n", len(ents)-i)
			break
		}
		b.WriteString(d.Name())
		if d.IsDir() {
			b.WriteByte('/')
		}
		b.WriteByte('\n')
	}
	return b.String(), nil, ""
}

func isImageName(p string) bool {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".png", ".jpg", ".jpeg", ".gif", ".webp":
		return true
	}
	return false
}

func readImage(abs, shown string, size int64) (string, []byte, string) {
	if size > MaxImageBytes {
		return "", nil, fmt.Sprintf("image too large (%s; the limit is %s)", humanBytes(size), humanBytes(MaxImageBytes))
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return "", nil, "cannot read: " + trimErr(err)
	}
	dims := ""
	if cfg, format, err := image.DecodeConfig(bytes.NewReader(data)); err == nil {
		dims = fmt.Sprintf("%s %d×%d, ", strings.ToUpper(format), cfg.Width, cfg.Height)
	} else if !bytes.Contains(data[:min(len(data), 16)], []byte("WEBP")) {
		return "", nil, "not a valid image"
	}
	return fmt.Sprintf("== %s: image (%s%s) attached ==\n", shown, dims, humanBytes(size)), data, ""
}

// nearby suggests files next to a missing one with a similar name.
func nearby(abs string) string {
	dir, base := filepath.Split(abs)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Sprintf(" (the directory %s does not exist either)", filepath.Base(dir))
	}
	var close []string
	ext := filepath.Ext(base)
	stem := strings.ToLower(strings.TrimSuffix(base, ext))
	for _, d := range ents {
		n := strings.ToLower(d.Name())
		if strings.TrimSuffix(n, filepath.Ext(n)) == stem || editDistance(n, strings.ToLower(base)) <= 2 {
			name := d.Name()
			if d.IsDir() && ext != "" {
				name = packageFile(filepath.Join(dir, name), name, ext)
			}
			close = append(close, name)
		}
	}
	sort.Strings(close)
	if len(close) == 0 {
		return ""
	}
	if len(close) > 5 {
		close = close[:5]
	}
	return "; did you mean " + strings.Join(close, ", ") + "?"
}

// packageFile is the file a missing x.ext most likely meant when a directory x stands there
// (a package that became a folder: schedule.py → schedule/__init__.py): its package file of
// the same extension, else the directory itself.
func packageFile(abs, name, ext string) string {
	for _, f := range []string{"__init__" + ext, "index" + ext, "mod" + ext, name + ext, "main" + ext, "lib" + ext} {
		if fi, err := os.Stat(filepath.Join(abs, f)); err == nil && fi.Mode().IsRegular() {
			return name + "/" + f
		}
	}
	return name
}

func editDistance(a, b string) int {
	if d := len(a) - len(b); d > 2 || d < -2 {
		return 3 // far apart: not worth the full computation
	}
	return tools.Levenshtein(a, b)
}

// validPrefix is how much of data to check for UTF-8: the first 8 KB, not splitting a rune.
func validPrefix(data []byte) int {
	n := min(len(data), 8192)
	if n == len(data) {
		return n
	}
	for n > 0 && !utf8.RuneStart(data[n]) {
		n--
	}
	return n
}

// utf8Floor returns the largest index ≤ n that does not split a rune of s.
func utf8Floor(s string, n int) int {
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// trimErr drops the path an *os.PathError repeats.
func trimErr(err error) string {
	if pe, ok := errors.AsType[*os.PathError](err); ok {
		return pe.Err.Error()
	}
	return err.Error()
}
