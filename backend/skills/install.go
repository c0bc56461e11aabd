package skills

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
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
	files := make([]source, 0, len(zr.File))
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, "/") {
			continue
		}
		files = append(files, source{name: f.Name, regular: f.Mode().IsRegular(), exec: f.Mode()&0o111 != 0,
			size: int64(f.UncompressedSize64), open: f.Open})
	}
	return install(global, files, "the zip", "")
}

// InstallDir installs the skill in the folder dir (SKILL.md at its root, or in its one
// subfolder) into the global folder, under the same rules as a zip: regular files only — a
// link, even one pointing inside, is refused, so nothing outside dir is ever copied — at most
// maxInstallFiles files and maxInstallBytes bytes, a SKILL.md with a description.
func InstallDir(global, dir string) (Skill, error) {
	fi, err := os.Lstat(dir)
	if err != nil {
		return Skill{}, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return Skill{}, fmt.Errorf("%s is a link: give the folder it points to", dir)
	}
	if !fi.IsDir() {
		return Skill{}, fmt.Errorf("%s is not a folder", dir)
	}
	var files []source
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		if d.Type()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is a link (links are refused: the skill would copy what it points to)", name)
		}
		if d.IsDir() {
			return nil
		}
		if len(files) >= maxInstallFiles {
			return fmt.Errorf("the folder holds more than %d files; a skill may hold %d", maxInstallFiles, maxInstallFiles)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		files = append(files, source{name: name, regular: info.Mode().IsRegular(), exec: info.Mode()&0o111 != 0,
			size: info.Size(), open: func() (io.ReadCloser, error) { return openRegular(p) }})
		return nil
	})
	if err != nil {
		return Skill{}, err
	}
	return install(global, files, "the folder", filepath.Base(dir))
}

// File is one file of a skill folder dropped in the window: its path inside the dropped
// folder (slashes) and its bytes.
type File struct {
	Path string `json:"path"`
	Data []byte `json:"data"`
}

// InstallFiles installs a skill from the files of a folder dropped in the window (the browser
// read them; a link it followed arrives as a plain file), under the same rules as a zip.
func InstallFiles(global string, files []File) (Skill, error) {
	srcs := make([]source, 0, len(files))
	for _, f := range files {
		data := f.Data
		srcs = append(srcs, source{name: strings.TrimPrefix(f.Path, "/"), regular: true, size: int64(len(data)),
			open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }})
	}
	return install(global, srcs, "the folder", "")
}

// source is one file of a skill to install, from a zip or a folder.
type source struct {
	name    string // slash path inside the zip or folder
	regular bool
	exec    bool
	size    int64
	open    func() (io.ReadCloser, error)
}

// openRegular opens a file, refusing a link put in its place since the walk saw it: what
// was opened must be the regular file Lstat sees at that path.
func openRegular(p string) (io.ReadCloser, error) {
	before, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil || !before.Mode().IsRegular() || !os.SameFile(before, fi) {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file (links are refused)", p)
	}
	return f, nil
}

// install copies files (what holds SKILL.md: at the root or in one top folder) into the
// global folder. fallback names a skill whose SKILL.md gives no name when it sits at the root.
func install(global string, files []source, what, fallback string) (Skill, error) {
	if len(files) > maxInstallFiles {
		return Skill{}, fmt.Errorf("%s holds %d files; a skill may hold %d", what, len(files), maxInstallFiles)
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.name
	}
	prefix, err := skillRoot(names, what)
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
	for _, f := range files {
		if !f.regular {
			return Skill{}, fmt.Errorf("%s is not a regular file (links are refused)", f.name)
		}
		if bad := path.Clean(f.name); path.IsAbs(bad) || bad == ".." || strings.HasPrefix(bad, "../") || strings.Contains(f.name, "\\") {
			return Skill{}, fmt.Errorf("%s leaves the skill's folder", f.name)
		}
		if !strings.HasPrefix(f.name, prefix) {
			continue // beside the skill's folder in the zip: not part of it
		}
		clean := path.Clean(strings.TrimPrefix(f.name, prefix))
		if clean == "." {
			continue
		}
		if clean == ".." || strings.HasPrefix(clean, "../") || path.IsAbs(clean) {
			return Skill{}, fmt.Errorf("%s leaves the skill's folder", f.name)
		}
		total += f.size
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
		s.Name = fallback
		if prefix != "" {
			s.Name = strings.TrimSuffix(path.Base(strings.TrimSuffix(prefix, "/")), "/")
		}
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

// skillRoot is where SKILL.md is: the root ("") or the one top folder ("name/").
func skillRoot(names []string, what string) (string, error) {
	for _, n := range names {
		if n == "SKILL.md" {
			return "", nil
		}
	}
	for _, n := range names {
		dir, rest, ok := strings.Cut(n, "/")
		if ok && rest == "SKILL.md" {
			return dir + "/", nil
		}
	}
	return "", fmt.Errorf("%s has no SKILL.md at its root or in its top folder", what)
}

func extract(f source, dest string) error {
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return err
	}
	rc, err := f.open()
	if err != nil {
		return fmt.Errorf("%s: %w", f.name, err)
	}
	defer rc.Close()
	mode := os.FileMode(0o644)
	if f.exec {
		mode = 0o755
	}
	out, err := os.OpenFile(dest, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return fmt.Errorf("%s: %w", f.name, err)
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
