package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadDefaultThenSaveAndHandEdit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f := Open(dir)
	c, err := f.Load()
	if err != nil || len(c.Providers) != 1 || c.Providers[0].Type != TypeOllama {
		t.Fatalf("default = %+v, %v", c, err)
	}
	c.Providers = append(c.Providers, Provider{Name: " openrouter ", Type: "OpenAI", BaseURL: "https://openrouter.ai/api/v1/"})
	c.Models.Main = "qwen3:8b"
	c.Fallback = []string{"openrouter/deepseek/deepseek-chat", " "}
	saved, err := f.Save(c)
	if err != nil {
		t.Fatal(err)
	}
	if p := saved.Providers[1]; p.Name != "openrouter" || p.Type != TypeOpenAI || p.BaseURL != "https://openrouter.ai/api/v1" || len(saved.Fallback) != 1 {
		t.Fatalf("normalized = %+v", saved)
	}
	got, err := f.Load()
	if err != nil || got.Models.Main != "qwen3:8b" || len(got.Providers) != 2 {
		t.Fatalf("reload = %+v, %v", got, err)
	}
	// A hand edit is picked up without a restart.
	b, _ := os.ReadFile(f.Path())
	os.WriteFile(f.Path(), []byte(strings.Replace(string(b), "qwen3:8b", "llama3.2:3b", 1)), 0o644)
	if got, _ := Open(dir).Load(); got.Models.Main != "llama3.2:3b" {
		t.Fatalf("hand edit not seen: %+v", got.Models)
	}
	if got, _ := f.Load(); got.Models.Main != "llama3.2:3b" {
		t.Fatalf("hand edit not seen by the open file: %+v", got.Models)
	}
}

func TestBrokenFileIsAnErrorAndKept(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "config.json")
	os.WriteFile(path, []byte(`{"providers": [`), 0o644)
	_, err := Open(dir).Load()
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != `{"providers": [` {
		t.Fatal("a broken file was overwritten")
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	ok := Default()
	for name, mutate := range map[string]func(*Config){
		"no providers":   func(c *Config) { c.Providers = nil },
		"bad type":       func(c *Config) { c.Providers[0].Type = "gemini" },
		"dup name":       func(c *Config) { c.Providers = append(c.Providers, c.Providers[0]) },
		"slash in name":  func(c *Config) { c.Providers[0].Name = "a/b" },
		"bad url":        func(c *Config) { c.Providers[0].BaseURL = "localhost:11434" },
		"bad thinking":   func(c *Config) { c.Thinking = "max" },
		"tiny ctx cap":   func(c *Config) { c.ContextWindowCap = 100 },
		"empty fallback": func(c *Config) { c.Fallback = []string{""} },
	} {
		c := ok
		c.Providers = append([]Provider(nil), ok.Providers...)
		mutate(&c)
		if c.Validate() == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestResolveAndRef(t *testing.T) {
	t.Parallel()
	c := Config{Providers: []Provider{{Name: "ollama", Type: TypeOllama}, {Name: "or", Type: TypeOpenAI}}}
	for ref, want := range map[string][2]string{
		"qwen3:8b":                  {"ollama", "qwen3:8b"},
		"hf.co/org/model:q4":        {"ollama", "hf.co/org/model:q4"},
		"or/deepseek/deepseek-chat": {"or", "deepseek/deepseek-chat"},
		"ollama/qwen3:8b":           {"ollama", "qwen3:8b"},
	} {
		p, m := c.Resolve(ref)
		if p.Name != want[0] || m != want[1] {
			t.Errorf("Resolve(%q) = %s, %s", ref, p.Name, m)
		}
	}
	if c.Ref("ollama", "x") != "x" || c.Ref("or", "x") != "or/x" {
		t.Fatal("Ref")
	}
}

func TestSecretsFile(t *testing.T) {
	t.Setenv("TOFU_KEYRING", "off")
	dir := t.TempDir()
	s := OpenSecrets(dir)
	if s.Backend() != filepath.Join(dir, "secrets.json") {
		t.Fatalf("backend = %s", s.Backend())
	}
	if err := s.SetKeys("or", []string{"sk-one, sk-two", " "}); err != nil {
		t.Fatal(err)
	}
	keys, err := OpenSecrets(dir).Keys("or")
	if err != nil || strings.Join(keys, "|") != "sk-one|sk-two" {
		t.Fatalf("keys = %v, %v", keys, err)
	}
	st, _ := os.Stat(filepath.Join(dir, "secrets.json"))
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("secrets file mode %v", st.Mode().Perm())
	}
	s.SetKeys("or", nil)
	if keys, _ := s.Keys("or"); len(keys) != 0 {
		t.Fatalf("keys after delete: %v", keys)
	}
	if Mask("sk-abcdefgh1234") != "sk-…1234" {
		t.Fatal(Mask("sk-abcdefgh1234"))
	}
}

func TestPriceCost(t *testing.T) {
	t.Parallel()
	p := Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}
	// 10k input of which 8k read from cache and 1k written to it, 500 output.
	got := p.Cost(10000, 500, 8000, 1000)
	want := (1000*3 + 500*15 + 8000*0.3 + 1000*3.75) / 1e6
	if got != want {
		t.Fatalf("cost = %v, want %v", got, want)
	}
}
