// Package testtools finds the real programs tests drive (MCP servers, the MCP inspector, the
// coding agents), which `build/setup.sh test` installs under build/tools; a test that needs one
// fails when it is missing, saying how to install it. CodexHome points Codex at a scripted model.
package testtools

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns build/tools/node_modules of the repository the test runs in (TOFU_TOOLS
// overrides it), failing t when it is not there.
func Dir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("TOFU_TOOLS"); d != "" {
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			nm := filepath.Join(d, "build", "tools", "node_modules")
			if _, err := os.Stat(nm); err != nil {
				t.Fatalf("%s is missing: run build/setup.sh test (it installs the test tools)", nm)
			}
			return nm
		}
		if filepath.Dir(d) == d {
			t.Fatalf("no go.mod above %s", wd)
		}
	}
}

// Node returns the path of file inside the installed npm package pkg, failing t when it is
// missing.
func Node(t testing.TB, pkg, file string) string {
	t.Helper()
	p := filepath.Join(Dir(t), pkg, file)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s is missing: run build/setup.sh test (it installs the test tools)", p)
	}
	return p
}

// CodexHome makes a CODEX_HOME for the real Codex that points it at the Responses API at
// baseURL (the scripted model's /v1) serving model, its key read from TOFU_TEST_KEY, with no
// update check, retry or analytics, so nothing it does reaches OpenAI or the user's settings.
// tmp is a TMPDIR inside it: Codex puts the helpers its sandbox runs (codex-linux-sandbox)
// beside its home, but not under the temporary directory.
func CodexHome(t testing.TB, baseURL, model string) (home, tmp string) {
	t.Helper()
	home = t.TempDir()
	cfg := `model = "` + model + `"
model_provider = "tofu"
check_for_update_on_startup = false

[model_providers.tofu]
name = "Tofu scripted model"
base_url = "` + baseURL + `"
wire_api = "responses"
env_key = "TOFU_TEST_KEY"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false
`
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	tmp = filepath.Join(home, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	return home, tmp
}
