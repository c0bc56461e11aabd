package lang

import (
	"strings"
	"testing"
)

func TestProtectFindsEachKind(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, text, want, kind string }{
		{"fence", "看这个：\n\n```go\nfmt.Println(\"你好\")\n```\n\n然后", "```go\nfmt.Println(\"你好\")\n```", "code"},
		{"unclosed fence", "voici\n~~~\nx := 1\n", "~~~\nx := 1", "code"},
		{"inline code", "appelle `os.Exit(1)` ici", "`os.Exit(1)`", "code"},
		{"url", "siehe https://example.org/a?b=c#d, bitte", "https://example.org/a?b=c#d", "url"},
		{"path", "el archivo /usr/lib/python3/x.py falla", "/usr/lib/python3/x.py", "path"},
		{"relative path", "修改 astropy/io/ascii/rst.py 文件", "astropy/io/ascii/rst.py", "path"},
		{"windows path", "abre C:\\Users\\me\\notes.txt ahora", "C:\\Users\\me\\notes.txt", "path"},
		{"file name", "lee setup.cfg primero", "setup.cfg", "path"},
		{"dotted identifier", "utilise np.float16 partout", "np.float16", "identifier"},
		{"snake case", "la variable header_rows manque", "header_rows", "identifier"},
		{"camel case", "llama a getUserName y sigue", "getUserName", "identifier"},
		{"flag", "con la opción --ignore-patterns activa", "--ignore-patterns", "identifier"},
		{"number with unit", "espera 350 ms y 1.5GB", "350 ms", "number"},
		{"percent", "sube un 12,5% hoy", "12,5%", "number"},
		{"version", "desde 5.4.1 falla", "5.4.1", "number"},
		{"inline math", "soit $f(x) = \\sqrt{x}$ donc", "$f(x) = \\sqrt{x}$", "math"},
		{"display math", "so $$\\int_0^1 x\\,dx$$ ist", "$$\\int_0^1 x\\,dx$$", "math"},
		{"latex env", "\\begin{align}a&=b\\end{align} fin", "\\begin{align}a&=b\\end{align}", "math"},
		{"marked", "traduis mais <nt>Tofu Desk</nt> reste", "Tofu Desk", "marked"},
		{"lookalike", "la nota [[T9]] existe", "[[T9]]", "lookalike"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := Protect(c.text)
			for _, s := range m.Spans {
				if s.Text == c.want {
					if s.Kind != c.kind {
						t.Errorf("%q protected as %s, want %s", c.want, s.Kind, c.kind)
					}
					return
				}
			}
			t.Errorf("%q not protected whole; spans %+v, masked %q", c.want, m.Spans, m.Text)
		})
	}
}

func TestProtectLeavesProse(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		"Please support header rows in the output, e.g. names and units.",
		"如果以下内容可以正常工作就太好了。",
		"Il fait beau aujourd'hui et nous irons à la plage.",
	} {
		if m := Protect(text); len(m.Spans) != 0 {
			t.Errorf("%q: spans %+v", text, m.Spans)
		}
	}
}

// The masked text with its placeholders put back is the text again (the <nt> tags aside).
func TestProtectRestoreIsIdentity(t *testing.T) {
	t.Parallel()
	texts := []string{
		"Run `go test ./...` in /work/main, see https://go.dev/doc and np.array([1,2]) at 3.5 GHz.",
		"```\r\nline [[T1]] inside\r\n```\r\n\r\n文本 `a` `b` ``c`` ~ --flag $x$",
		"[[ t 2 ]] and 【T3】 already here, with header_rows and 10 MB.",
	}
	for _, text := range texts {
		m := Protect(text)
		got, err := Restore(m.Text, m.Spans)
		if err != nil || got != text {
			t.Errorf("round trip of %q: got %q, %v", text, got, err)
		}
	}
}

func TestRestoreMangledPlaceholders(t *testing.T) {
	t.Parallel()
	spans := []Span{{Text: "`a`"}, {Text: "/b/c"}, {Text: "d_e"}}
	for _, form := range []string{
		"[[T1]] [[T2]] [[T3]]",
		"[[ T1 ]] [[t2]] [T3]",
		"［［Ｔ１］］ 【T2】 ⟦ t３ ⟧",
		"[[T_3]] [[T 2]] [[T1]]",    // moved
		"[[T1]][[T2]][[T3]] [[T1]]", // adjacent, repeated
	} {
		got, err := Restore(form, spans)
		if err != nil {
			t.Errorf("%q: %v", form, err)
			continue
		}
		for _, s := range spans {
			if !strings.Contains(got, s.Text) {
				t.Errorf("%q restored to %q: %q missing", form, got, s.Text)
			}
		}
		if strings.ContainsAny(got, "［【⟦[]") {
			t.Errorf("%q restored to %q: brackets left", form, got)
		}
	}
}

func TestRestoreReportsLostAndDropsInvented(t *testing.T) {
	t.Parallel()
	spans := []Span{{Text: "x"}, {Text: "y"}, {Text: "z"}}
	got, err := Restore("[[T2]] and [[T7]]", spans)
	lost, ok := err.(*LostError)
	if !ok || len(lost.IDs) != 2 || lost.IDs[0] != 1 || lost.IDs[1] != 3 {
		t.Fatalf("error %v, want placeholders 1 and 3 lost", err)
	}
	if got != "y and " {
		t.Errorf("got %q", got)
	}
}
