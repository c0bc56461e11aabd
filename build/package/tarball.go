package main

import (
	"archive/tar"
	"compress/gzip"
	_ "embed"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

//go:embed install-desktop.sh
var installDesktop []byte

// buildTarball writes tofu-VERSION-linux-ARCH.tar.gz: one folder holding tofu beside
// tofu-window and tofu-pdf (run it from there: tofu finds the window and the PDF extractor
// beside itself), the menu entry and
// icons, and install-desktop.sh, which adds the entry to the user's own menu (and removes it
// with --remove). GTK and WebKit are not inside: they come from the system, as for the package.
func buildTarball(o options, icons []icon) (string, error) {
	top := "tofu-" + o.version
	path := filepath.Join(o.out, fmt.Sprintf("%s-linux-%s.tar.gz", top, o.arch))
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	add := func(name string, mode int64, r io.Reader, size int64) error {
		h := &tar.Header{Name: top + "/" + name, Mode: mode, Size: size, ModTime: time.Unix(0, 0), Format: tar.FormatPAX}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		_, err := io.Copy(tw, r)
		return err
	}
	addFile := func(name string, mode int64, src string) error {
		s, err := os.Open(src)
		if err != nil {
			return err
		}
		defer s.Close()
		fi, err := s.Stat()
		if err != nil {
			return err
		}
		return add(name, mode, s, fi.Size())
	}
	addBytes := func(name string, mode int64, b []byte) error {
		return add(name, mode, strings.NewReader(string(b)), int64(len(b)))
	}
	err = addFile("tofu", 0o755, filepath.Join(o.bin, "tofu"))
	if err == nil {
		err = addFile("tofu-window", 0o755, filepath.Join(o.bin, "tofu-window"))
	}
	if err == nil {
		err = addFile("tofu-pdf", 0o755, filepath.Join(o.bin, "tofu-pdf"))
	}
	if err == nil {
		err = addBytes("share/applications/tofu.desktop", 0o644, desktopEntry)
	}
	for _, ic := range icons {
		if err == nil {
			err = addFile("share/icons/hicolor/"+strings.TrimPrefix(ic.dest(), "/usr/share/icons/hicolor/"), 0o644, ic.path)
		}
	}
	if err == nil {
		err = addBytes("install-desktop.sh", 0o755, installDesktop)
	}
	if err == nil {
		err = addFile("LICENSE", 0o644, o.license)
	}
	for _, c := range []io.Closer{tw, gz, f} {
		if cerr := c.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		os.Remove(path)
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return path, nil
}
