package skills

import (
	"archive/zip"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type zipEntry struct {
	name, body string
	mode       os.FileMode
}

func makeZip(t *testing.T, entries ...zipEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		mode := e.mode
		if mode == 0 {
			mode = 0o644
		}
		h.SetMode(mode)
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(e.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestInstallZip(t *testing.T) {
	t.Parallel()
	global := filepath.Join(t.TempDir(), "skills")
	marker := filepath.Join(t.TempDir(), "ran")
	data := makeZip(t,
		zipEntry{name: "pdf-forms/SKILL.md", body: "---\nname: pdf-forms\ndescription: Fill PDF forms.\n---\nRun scripts/fill.sh.\n"},
		zipEntry{name: "pdf-forms/scripts/fill.sh", body: "#!/bin/sh\ntouch " + marker + "\n", mode: 0o755},
		zipEntry{name: "pdf-forms/references/spec.md", body: "spec"},
	)
	s, err := InstallZip(global, data)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "pdf-forms" || s.Dir != filepath.Join(global, "pdf-forms") {
		t.Fatalf("installed %+v", s)
	}
	if info, err := os.Stat(filepath.Join(s.Dir, "scripts", "fill.sh")); err != nil || info.Mode()&0o111 == 0 {
		t.Fatalf("script: %v %v", info, err)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatal("a bundled script ran at install")
	}
	if got := Discover("", global); len(got) != 1 || got[0].Name != "pdf-forms" {
		t.Fatalf("discovered %+v", got)
	}
	// Installing again replaces it; SKILL.md at the zip's root works too.
	if _, err := InstallZip(global, makeZip(t, zipEntry{name: "SKILL.md", body: "---\nname: pdf-forms\ndescription: v2\n---\n"})); err != nil {
		t.Fatal(err)
	}
	if got := Discover("", global); len(got) != 1 || got[0].Description != "v2" {
		t.Fatalf("after replace: %+v", got)
	}
	if _, err := os.Stat(filepath.Join(global, "pdf-forms", "scripts")); !os.IsNotExist(err) {
		t.Fatal("the old version's files are left")
	}
	bad := []struct {
		name string
		data []byte
		want string
	}{
		{"slip", makeZip(t, zipEntry{name: "SKILL.md", body: "---\nname: x\ndescription: d\n---\n"}, zipEntry{name: "../../evil.sh", body: "x"}), "leaves"},
		{"link", makeZip(t, zipEntry{name: "SKILL.md", body: "---\nname: x\ndescription: d\n---\n"}, zipEntry{name: "key", body: "/home/u/.ssh/id_rsa", mode: os.ModeSymlink | 0o777}), "links"},
		{"no skill", makeZip(t, zipEntry{name: "README.md", body: "x"}), "no SKILL.md"},
		{"no description", makeZip(t, zipEntry{name: "SKILL.md", body: "---\nname: x\n---\n"}), "no description"},
		{"not a zip", []byte("hello"), "not a zip"},
	}
	for _, b := range bad {
		if _, err := InstallZip(global, b.data); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s: %v, want an error with %q", b.name, err, b.want)
		}
	}
	entries, _ := os.ReadDir(global)
	if len(entries) != 1 {
		t.Fatalf("left in the skills folder: %v", entries)
	}
}

func writeSkillDir(t *testing.T, dir string) {
	t.Helper()
	for name, body := range map[string]string{
		"SKILL.md":           "---\nname: release\ndescription: Cut a release.\n---\nRun scripts/tag.sh.\n",
		"scripts/tag.sh":     "#!/bin/sh\nexit 0\n",
		"references/flow.md": "flow",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
}

// TestInstallDir installs a skill from a folder like a zip: files copied (the script's
// executable bit kept, nothing run), the folder's name when SKILL.md gives none.
func TestInstallDir(t *testing.T) {
	t.Parallel()
	global := filepath.Join(t.TempDir(), "skills")
	src := filepath.Join(t.TempDir(), "release-skill")
	writeSkillDir(t, src)
	s, err := InstallDir(global, src)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "release" || s.Dir != filepath.Join(global, "release") || s.Description != "Cut a release." {
		t.Fatalf("installed %+v", s)
	}
	if info, err := os.Stat(filepath.Join(s.Dir, "scripts", "tag.sh")); err != nil || info.Mode()&0o111 == 0 {
		t.Fatalf("script: %v %v", info, err)
	}
	if b, err := os.ReadFile(filepath.Join(s.Dir, "references", "flow.md")); err != nil || string(b) != "flow" {
		t.Fatalf("reference: %q %v", b, err)
	}
	// No name in the front matter: the folder's.
	unnamed := filepath.Join(t.TempDir(), "notes")
	if err := os.MkdirAll(unnamed, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(unnamed, "SKILL.md"), []byte("---\ndescription: Take notes.\n---\nbody\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err := InstallDir(global, unnamed); err != nil || s.Name != "notes" {
		t.Fatalf("unnamed: %+v %v", s, err)
	}
}

// TestInstallDirRefusesLinks: a link in the folder — to a file or a folder outside, or even
// inside — and a linked folder are refused, and nothing is installed (the attack cases
// skills/install-folder-*).
func TestInstallDirRefusesLinks(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("TOFU-CANARY"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := map[string]func(dir string) error{
		"file linked outside":   func(dir string) error { return os.Symlink(secret, filepath.Join(dir, "references", "secret.md")) },
		"folder linked outside": func(dir string) error { return os.Symlink(outside, filepath.Join(dir, "scripts", "more")) },
		"SKILL.md linked": func(dir string) error {
			os.Remove(filepath.Join(dir, "SKILL.md"))
			return os.Symlink(secret, filepath.Join(dir, "SKILL.md"))
		},
		"link inside": func(dir string) error { return os.Symlink("flow.md", filepath.Join(dir, "references", "again.md")) },
	}
	for name, plant := range cases {
		global := filepath.Join(t.TempDir(), "skills")
		src := filepath.Join(t.TempDir(), "release")
		writeSkillDir(t, src)
		if err := plant(src); err != nil {
			t.Fatal(err)
		}
		if s, err := InstallDir(global, src); err == nil || !strings.Contains(err.Error(), "link") {
			t.Errorf("%s: installed %+v, %v", name, s, err)
		}
		if entries, _ := os.ReadDir(global); len(entries) != 0 {
			t.Errorf("%s: left %v in the skills folder", name, entries)
		}
	}
	// The folder given is itself a link.
	src := filepath.Join(t.TempDir(), "real")
	writeSkillDir(t, src)
	link := filepath.Join(t.TempDir(), "linked")
	if err := os.Symlink(src, link); err != nil {
		t.Fatal(err)
	}
	if _, err := InstallDir(filepath.Join(t.TempDir(), "skills"), link); err == nil {
		t.Error("a linked folder was installed")
	}
}

// TestInstallDirLimits: the zip's bounds hold for a folder.
func TestInstallDirLimits(t *testing.T) {
	t.Parallel()
	global := filepath.Join(t.TempDir(), "skills")
	many := filepath.Join(t.TempDir(), "many")
	writeSkillDir(t, many)
	for i := range maxInstallFiles {
		if err := os.WriteFile(filepath.Join(many, fmt.Sprintf("f%d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := InstallDir(global, many); err == nil || !strings.Contains(err.Error(), "files") {
		t.Errorf("too many files: %v", err)
	}
	big := filepath.Join(t.TempDir(), "big")
	writeSkillDir(t, big)
	f, err := os.Create(filepath.Join(big, "blob.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(maxInstallBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := InstallDir(global, big); err == nil || !strings.Contains(err.Error(), "MB") {
		t.Errorf("too large: %v", err)
	}
	none := t.TempDir()
	if _, err := InstallDir(global, none); err == nil || !strings.Contains(err.Error(), "SKILL.md") {
		t.Errorf("no SKILL.md: %v", err)
	}
	nodesc := filepath.Join(t.TempDir(), "nodesc")
	writeSkillDir(t, nodesc)
	if err := os.WriteFile(filepath.Join(nodesc, "SKILL.md"), []byte("---\nname: x\n---\nbody\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := InstallDir(global, nodesc); err == nil || !strings.Contains(err.Error(), "description") {
		t.Errorf("no description: %v", err)
	}
	if entries, _ := os.ReadDir(global); len(entries) != 0 {
		t.Errorf("left %v in the skills folder", entries)
	}
}

// TestInstallFiles: a folder dropped in the window arrives as files with paths; the same
// checks apply (escaping paths refused, SKILL.md in the top folder found).
func TestInstallFiles(t *testing.T) {
	t.Parallel()
	global := filepath.Join(t.TempDir(), "skills")
	skill := []File{
		{Path: "/release/SKILL.md", Data: []byte("---\nname: release\ndescription: Cut a release.\n---\nbody\n")},
		{Path: "/release/references/flow.md", Data: []byte("flow")},
	}
	s, err := InstallFiles(global, skill)
	if err != nil || s.Name != "release" {
		t.Fatalf("installed %+v %v", s, err)
	}
	if b, err := os.ReadFile(filepath.Join(s.Dir, "references", "flow.md")); err != nil || string(b) != "flow" {
		t.Fatalf("reference: %q %v", b, err)
	}
	for _, bad := range []string{"/release/../../escape.md", "release/../other/x", "/../x", "release/a\\..\\..\\x"} {
		files := append(append([]File(nil), skill...), File{Path: bad, Data: []byte("x")})
		if _, err := InstallFiles(filepath.Join(t.TempDir(), "skills"), files); err == nil || !strings.Contains(err.Error(), "leaves") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
