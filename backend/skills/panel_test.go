package skills

import (
	"archive/zip"
	"bytes"
	"testing"
)

func TestSkillsPanel(t *testing.T) {
	t.Parallel()
	s := NewPanel(t.TempDir())
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("SKILL.md")
	w.Write([]byte("---\nname: notes\ndescription: Take notes.\n---\n"))
	zw.Close()
	got, err := s.Install("notes.zip", buf.Bytes())
	if err != nil || got.Name != "notes" {
		t.Fatalf("install: %+v %v", got, err)
	}
	if list, _ := s.List(""); len(list) != 1 || list[0].Description != "Take notes." {
		t.Fatalf("list: %+v", list)
	}
	if _, err := NewPanel("").Install("x.zip", buf.Bytes()); err == nil {
		t.Fatal("installed without a config folder")
	}
	// A dropped folder arrives as its files.
	got, err = s.InstallFolder([]File{{Path: "/lint/SKILL.md", Data: []byte("---\ndescription: Lint.\n---\n")}})
	if err != nil || got.Name != "lint" {
		t.Fatalf("install a folder: %+v %v", got, err)
	}
	if _, err := s.InstallFolder([]File{{Path: "lint/SKILL.md", Data: []byte("---\ndescription: Lint.\n---\n")}, {Path: "lint/../../x", Data: []byte("x")}}); err == nil {
		t.Fatal("a path leaving the folder was installed")
	}
}
