package search

import (
	"slices"
	"strings"
	"testing"
)

func TestAnalyzerScripts(t *testing.T) {
	t.Parallel()
	an := NewAnalyzer()
	cases := []struct {
		name, text, lang string
		want, not        []string // terms that must and must not appear
	}{
		{"english stems and stopwords", "The Claims of running systems", "", []string{"claim", "run", "system"}, []string{"the", "of"}},
		{"possessive", "Knuth's algorithms", "en", []string{"knuth", "algorithm"}, []string{"knuths"}},
		{"french stems and elision", "Les systèmes d'exploitation de l'ordinateur", "", []string{"system", "exploit", "ordin"}, []string{"les", "l", "d"}},
		{"german", "Die Häuser und die Gärten sind groß", "", []string{"haus", "gart", "gross"}, []string{"die", "und"}},
		{"accents fold after stemming", "résumé", "en", []string{"resum"}, nil},
		{"russian by script", "Системы поиска", "", []string{"систем", "поиск"}, nil},
		{"chinese bigrams and unigrams", "机器学习", "", []string{"机器", "器学", "学习", "机", "习"}, []string{"机器学习"}},
		{"japanese kana and kanji", "メモリを検索する", "", []string{"メモ", "モリ", "検索"}, nil},
		{"korean", "메모리 검색", "", []string{"메모", "모리", "검색"}, nil},
		{"thai runs keep their marks", "ภาษาไทย", "", []string{"ภา", "ษา"}, nil},
		{"full-width folds to ascii", "ＡＢＣ　ｄｅｆ", "en", []string{"abc", "def"}, nil},
		{"snake case", "parse_config_file", "en", []string{"pars", "config", "file", "parseconfigfile"}, nil},
		{"camel case", "parseConfigFile HTTPServer", "en", []string{"pars", "config", "file", "parseconfigfile", "http", "server", "httpserver"}, nil},
		{"dotted name", "os.path", "en", []string{"os", "path", "ospath"}, nil},
		{"numbers stay whole", "3.14 2024-05-01 sha256", "en", []string{"3.14", "2024", "sha256"}, []string{"314"}},
		{"arabic diacritics and alef forms", "الْكِتَابُ أحمد", "", []string{"كتاب", "احمد"}, nil},
		{"arabic stopwords", "في البيت", "", nil, []string{"في"}},
		{"greek accents", "Αθήνα", "", []string{"αθηνα"}, nil},
		{"latin words in chinese text are english", "内存 records", "", []string{"record", "内存"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := an.Terms(tc.text, tc.lang)
			for _, w := range tc.want {
				if !slices.Contains(got, w) {
					t.Errorf("Terms(%q) = %q, missing %q", tc.text, got, w)
				}
			}
			for _, w := range tc.not {
				if slices.Contains(got, w) {
					t.Errorf("Terms(%q) = %q, has %q", tc.text, got, w)
				}
			}
		})
	}
}

func TestDetect(t *testing.T) {
	t.Parallel()
	an := NewAnalyzer()
	cases := map[string]string{
		"What is the state of the art in retrieval?":                     "en",
		"Quels sont les systèmes que nous utilisons pour la recherche ?": "fr",
		"Wie funktioniert die Suche in diesem System?":                   "de",
		"¿Cuál es el mejor sistema para la búsqueda?":                    "es",
		"Как работает поиск?":                                            "ru",
		"检索系统如何工作":                                                       "cjk",
		"検索はどのように動作しますか":                                                 "cjk",
		"كيف يعمل البحث":                                                 "ar",
		"Xylophone":                                                      "",
	}
	for text, want := range cases {
		if got := an.Detect(text); got != want {
			t.Errorf("Detect(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestSplitIdentifier(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"parse_config": "parse config",
		"parseConfig":  "parse Config",
		"HTTPServer":   "HTTP Server",
		"getHTTPUrl":   "get HTTP Url",
		"os.path.join": "os path join",
		"__init__":     "init",
		"plain":        "plain",
		"sha256Sum":    "sha256 Sum",
	}
	for in, want := range cases {
		if got := strings.Join(splitIdentifier(in), " "); got != want {
			t.Errorf("splitIdentifier(%q) = %q, want %q", in, got, want)
		}
	}
}
