package wording

import (
	"testing"
	"unicode/utf8"
)

// Clip, ClipLine and ClipTail never cut a character in two, whatever n.
func TestClipKeepsCharactersWhole(t *testing.T) {
	s := "摘要：数据库压缩 — résumé"
	for n := 0; n <= len(s)+1; n++ {
		for name, got := range map[string]string{"Clip": Clip(s, n), "ClipLine": ClipLine(s, n), "ClipTail": ClipTail(s, n)} {
			if !utf8.ValidString(got) {
				t.Fatalf("%s(%d) = %q: invalid UTF-8", name, n, got)
			}
			if n < len(s) && len(got) > n+len("…") {
				t.Fatalf("%s(%d) = %q: longer than asked", name, n, got)
			}
		}
	}
	if got := Clip("hello world", 5); got != "hello…" {
		t.Errorf("Clip = %q", got)
	}
	if got := Clip("short", 10); got != "short" {
		t.Errorf("Clip of a fitting string = %q", got)
	}
	if got := ClipLine("a\n  b\tc d", 5); got != "a b c…" {
		t.Errorf("ClipLine = %q", got)
	}
	if got := ClipTail("hello world", 5); got != "…world" {
		t.Errorf("ClipTail = %q", got)
	}
}
