package skills

import (
	"archive/zip"
	"bytes"
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
