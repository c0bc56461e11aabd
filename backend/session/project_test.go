package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestProjectFacts: the block said "python3, pip" while .venv/ held pytest and the system
// Python lacked it; the model found that by listing the root. The project's own environment
// and how its tests run are told, from its files alone.
func TestProjectFacts(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		files       map[string]string
		installedGo string
		want        string
	}{
		"venv with pytest": {
			files: map[string]string{".venv/bin/python": "", ".venv/bin/pytest": "", ".venv/pyvenv.cfg": "home = /usr/bin\nversion = 3.12.4\n",
				"pyproject.toml": "[project]\nname = \"x\"\n[tool.pytest.ini_options]\naddopts = \"-q\"\n"},
			want: "Project: .venv/ (virtualenv, Python 3.12, has pytest). Run the tests with .venv/bin/python -m pytest.",
		},
		"venv named venv, tox": {
			files: map[string]string{"venv/bin/python": "", "tox.ini": "[tox]\n"},
			want:  "Project: venv/ (virtualenv). Run the tests with venv/bin/python -m tox.",
		},
		"no venv, pytest in setup.cfg": {
			files: map[string]string{"setup.cfg": "[metadata]\n[tool:pytest]\n"},
			want:  "Project: Run the tests with python3 -m pytest.",
		},
		"node": {
			files: map[string]string{"node_modules/.bin/jest": "", "node_modules/.bin/rimraf": "", "package.json": `{"name":"x","scripts":{"test":"jest --ci"}}`},
			want:  `Project: node_modules/.bin (jest). Run the tests with npm test (runs "jest --ci").`,
		},
		"npm's placeholder test script": {
			files: map[string]string{"package.json": `{"scripts":{"test":"echo \"Error: no test specified\" && exit 1"}}`},
		},
		"go.mod newer than the installed Go": {
			files:       map[string]string{"go.mod": "module x\n\ngo 1.27.1\n"},
			installedGo: "1.26",
			want:        "Project: go.mod go 1.27.1 (installed 1.26 is older). Run the tests with go test ./....",
		},
		"go.mod and the same minor": {
			files:       map[string]string{"go.mod": "module x\n\ngo 1.26.3\n"},
			installedGo: "1.26",
			want:        "Project: go.mod go 1.26.3 (installed 1.26). Run the tests with go test ./....",
		},
		"go.mod without Go": {
			files: map[string]string{"go.mod": "module x\ngo 1.21\n"},
			want:  "Project: go.mod go 1.21 (no Go installed). Run the tests with go test ./....",
		},
		"nothing": {files: map[string]string{"README.md": "hi"}},
	} {
		ws := t.TempDir()
		for p, body := range c.files {
			p = filepath.Join(ws, p)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if got := projectFacts(ws, c.installedGo); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", name, got, c.want)
		}
		if c.want != "" && c.installedGo == "" && !strings.HasPrefix(c.want, "Project: go.mod") {
			if _, facts := probeEnvironment(context.Background(), ws, time.Now(), true, nil); !strings.HasSuffix(facts, "\n"+c.want) {
				t.Errorf("%s: the environment block does not end with the project's line:\n%s", name, facts)
			}
		}
	}
}
