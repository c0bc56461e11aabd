package skills

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Install bounds: a skill is instructions and a few scripts, not a data set.
const (
	maxInstallFiles = 500
	maxInstallBytes = 50 << 20
)

// InstallZip installs the skill in a zip into the global folder and returns it. The zip holds
// one skill: SKILL.md at its root or in a single top folder. Nothing in it runs: files are
// copied (regular files only, no links, no paths leaving the folder, executable bits kept for
// scripts the model may run later under approvals). An installed skill of the same name is
// replaced.
func InstallZip(global string, data []byte) (Skill, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return Skill{}, fmt.Errorf("not a zip file: %w", err)
	}
	if len(zr.File) > maxInstallFiles {
		return Skill{}, fmt.Errorf("the zip holds %d files; a skill may hold %d", len(zr.File), maxInstallFiles)
	}
	prefix, err := skillRoot(zr.File)
	if err != nil {
		return Skill{}, err
	}
	if err := os.MkdirAll(global, 0o755); err != nil {
		return Skill{}, fmt.Errorf("skills folder: %w", err)
	}
	// Unpacked beside its destination, then renamed into place: a half-copied skill is never
	// discovered (Discover skips dot folders).
	tmp, err := os.MkdirTemp(global, ".install-*")
	if err != nil {
		return Skill{}, fmt.Errorf("skills folder: %w", err)
	}
	defer os.RemoveAll(tmp)
	var total int64
	for _, f := range zr.File {
		name := strings.TrimPrefix(f.Name, prefix)
		if name == "" || strings.HasSuffix(f.Name, "/") {
			continue
		}
		if !f.Mode().IsRegular() {
			return Skill{}, fmt.Errorf("%s is not a regular file (links are refused)", f.Name)
		}
		clean := path.Clean(name)
		if path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
			return Skill{}, fmt.Errorf("%s leaves the skill's folder", f.Name)
		}
		total += int64(f.UncompressedSize64)
		if total > maxInstallBytes {
			return Skill{}, fmt.Errorf("the skill is over %d MB unpacked", maxInstallBytes>>20)
		}
		if err := extract(f, filepath.Join(tmp, filepath.FromSlash(clean))); err != nil {
			return Skill{}, err
		}
	}
	s, err := load(tmp)
	if err != nil {
		return Skill{}, fmt.Errorf("SKILL.md: %w", err)
	}
	if s.Description == "" {
		return Skill{}, errors.New("SKILL.md has no description: the model would not know when to use it")
	}
	if s.Name == filepath.Base(tmp) {
		s.Name = strings.TrimSuffix(path.Base(strings.TrimSuffix(prefix, "/")), "/")
	}
	dirName := slugName(s.Name)
	if dirName == "" {
		return Skill{}, fmt.Errorf("skill name %q has no letters", s.Name)
	}
	dest := filepath.Join(global, dirName)
	if err := os.RemoveAll(dest); err != nil {
		return Skill{}, fmt.Errorf("replace skill %s: %w", s.Name, err)
	}
	if err := os.Rename(tmp, dest); err != nil {
		return Skill{}, fmt.Errorf("install skill %s: %w", s.Name, err)
	}
	s.Dir, s.Source = dest, global
	s.Missing = missing(s)
	return s, nil
}

// skillRoot is where SKILL.md is: the zip's root ("") or its one top folder ("name/").
func skillRoot(files []*zip.File) (string, error) {
	for _, f := range files {
		if f.Name == "SKILL.md" {
			return "", nil
		}
	}
	for _, f := range files {
		dir, rest, ok := strings.Cut(f.Name, "/")
		if ok && rest == "SKILL.md" {
			return dir + "/", nil
		}
	}
	return "", errors.New("the zip has no SKILL.md at its root or in its top folder")
}

func extract(f *zip.File, dest string) error {
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return err
	}
	rc, err := f.Open()
	if err != nil {
		return fmt.Errorf("%s: %w", f.Name, err)
	}
	defer rc.Close()
	mode := os.FileMode(0o644)
	if f.Mode()&0o111 != 0 {
		mode = 0o755
	}
	out, err := os.OpenFile(dest, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return fmt.Errorf("%s: %w", f.Name, err)
	}
	_, err = io.Copy(out, io.LimitReader(rc, maxInstallBytes+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// slugName is a folder name for a skill: letters, digits, '-' and '_'.
func slugName(name string) string {
	return strings.Trim(strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			return r
		case r > 127 && (r != 0xFFFD):
			return r
		}
		return '-'
	}, name), "-")
}
