package memory

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode"
)

// Scopes of a record.
const (
	ScopeProject = "project" // the workspace's .tofu/memory/
	ScopeGlobal  = "global"  // Tofu's data folder: every workspace sees it
)

// Record is one memory: a Markdown file with front matter.
type Record struct {
	ID          string    `json:"id"` // scope + ":" + file name without .md
	Name        string    `json:"name"`
	Description string    `json:"description"`
	Tags        []string  `json:"tags,omitempty"`
	Scope       string    `json:"scope"`
	Enabled     bool      `json:"enabled"`
	Created     time.Time `json:"created"`
	Updated     time.Time `json:"updated"`
	Body        string    `json:"body"`
	Path        string    `json:"path"`
}

// Format writes the record as its file: front matter, a blank line, the body.
func (r Record) Format() string {
	var b strings.Builder
	b.WriteString("---\n")
	fmt.Fprintf(&b, "name: %s\n", scalar(r.Name))
	fmt.Fprintf(&b, "description: %s\n", scalar(r.Description))
	tags := make([]string, len(r.Tags))
	for i, t := range r.Tags {
		tags[i] = scalar(t)
	}
	fmt.Fprintf(&b, "tags: [%s]\n", strings.Join(tags, ", "))
	fmt.Fprintf(&b, "scope: %s\n", r.Scope)
	fmt.Fprintf(&b, "enabled: %t\n", r.Enabled)
	fmt.Fprintf(&b, "created: %s\n", r.Created.UTC().Format(time.RFC3339))
	fmt.Fprintf(&b, "updated: %s\n", r.Updated.UTC().Format(time.RFC3339))
	b.WriteString("---\n\n")
	b.WriteString(strings.TrimSpace(r.Body))
	b.WriteString("\n")
	return b.String()
}

// scalar writes a value bare when YAML reads it back as the same string, quoted otherwise.
func scalar(s string) string {
	plain := s != "" && !strings.ContainsAny(s, ":#[]{},\"'\n\\|>&*!%@`") &&
		!unicode.IsSpace(rune(s[0])) && !strings.HasSuffix(s, " ") &&
		!strings.HasPrefix(s, "-") && !strings.HasPrefix(s, "?")
	switch strings.ToLower(s) {
	case "true", "false", "yes", "no", "null", "~", "on", "off":
		plain = false
	}
	if plain {
		return s
	}
	q, _ := json.Marshal(s) // a JSON string is a YAML double-quoted scalar
	return string(q)
}

// Parse reads a record file. Front matter is the YAML subset Format writes (plain or
// double-quoted scalars, a flow list of tags; single quotes and block lists of tags are read
// too, as a user may write them); unknown keys are ignored. A file without front matter is a
// record whose body is the whole text.
func Parse(text string) (Record, error) {
	r := Record{Enabled: true}
	text = strings.TrimPrefix(text, "\ufeff")
	if !strings.HasPrefix(text, "---\n") && !strings.HasPrefix(text, "---\r\n") {
		r.Body = strings.TrimSpace(text)
		return r, nil
	}
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	sc.Scan() // ---
	lastKey, closed := "", false
	var body strings.Builder
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if closed {
			body.WriteString(line)
			body.WriteByte('\n')
			continue
		}
		if line == "---" {
			closed = true
			continue
		}
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "- ") && lastKey == "tags" {
			r.Tags = append(r.Tags, unquote(strings.TrimSpace(trimmed[2:])))
			continue
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok || trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		lastKey = key
		var err error
		switch key {
		case "name":
			r.Name = unquote(val)
		case "description":
			r.Description = unquote(val)
		case "tags":
			r.Tags = flowList(val)
		case "scope":
			r.Scope = unquote(val)
		case "enabled":
			r.Enabled = !(strings.EqualFold(val, "false") || strings.EqualFold(val, "no") || strings.EqualFold(val, "off"))
		case "created":
			r.Created, err = parseTime(val)
		case "updated":
			r.Updated, err = parseTime(val)
		}
		if err != nil {
			return r, fmt.Errorf("front matter %s: %w", key, err)
		}
	}
	if !closed {
		return r, fmt.Errorf("front matter is not closed with ---")
	}
	r.Body = strings.TrimSpace(body.String())
	return r, sc.Err()
}

func parseTime(v string) (time.Time, error) {
	v = unquote(v)
	if v == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a date", v)
}

func unquote(v string) string {
	v = strings.TrimSpace(v)
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') {
		if end := strings.LastIndexByte(v, v[0]); end > 0 {
			v = v[:end+1] // a comment may follow the closing quote
		}
	}
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		var s string
		if json.Unmarshal([]byte(v), &s) == nil {
			return s
		}
	}
	if len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'' {
		return strings.ReplaceAll(v[1:len(v)-1], "''", "'")
	}
	if i := strings.Index(v, " #"); i >= 0 {
		v = strings.TrimSpace(v[:i])
	}
	return v
}

// flowList reads [a, "b, c", d]; a bare value is a list of one.
func flowList(v string) []string {
	v = strings.TrimSpace(v)
	if v == "" {
		return nil
	}
	if !strings.HasPrefix(v, "[") || !strings.HasSuffix(v, "]") {
		return []string{unquote(v)}
	}
	v = v[1 : len(v)-1]
	var out []string
	var cur strings.Builder
	quote := rune(0)
	escaped := false
	flush := func() {
		if s := unquote(cur.String()); s != "" {
			out = append(out, s)
		}
		cur.Reset()
	}
	for _, c := range v {
		switch {
		case escaped:
			escaped = false
		case quote == '"' && c == '\\':
			escaped = true
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == '"' || c == '\''):
			quote = c
		case quote == 0 && c == ',':
			flush()
			continue
		}
		cur.WriteRune(c)
	}
	flush()
	return out
}
