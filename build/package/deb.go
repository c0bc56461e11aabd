package main

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/goreleaser/nfpm/v2"
	"github.com/goreleaser/nfpm/v2/deb"
	"github.com/goreleaser/nfpm/v2/files"
)

// The menu entry and the maintainer scripts, shipped as they are written here.
var (
	//go:embed tofu.desktop
	desktopEntry []byte
	//go:embed postinst
	postinst []byte
	//go:embed postrm
	postrm []byte
)

// libDir holds the three programs: tofu-window is not a command to type (tofu execs it, and it
// takes no arguments), so tofu is on the PATH as a link, and tofu-pdf (the fast extractor, and
// the child in which the app reads PDFs: backend/child finds it beside tofu) too (Debian's
// place for a package's private programs is /usr/lib/<package>).
const libDir = "/usr/lib/tofu"

// Recommended, not needed: xdg-utils opens links in the browser; ripgrep is the grep tool's
// faster engine (a built-in one is used without it).
var recommends = []string{"xdg-utils", "ripgrep"}

var debVersion = regexp.MustCompile(`^[0-9][A-Za-z0-9.+~]*$`)

func checkVersion(v string) error {
	if v == "" {
		return fmt.Errorf("-version is required (make package passes one)")
	}
	if !debVersion.MatchString(v) {
		return fmt.Errorf("version %q is not a Debian version: it must start with a digit and hold only letters, digits and . + ~", v)
	}
	return nil
}

// buildDeb writes tofu_VERSION_ARCH.deb into o.out and returns its path. stage is a scratch
// folder for the files nfpm reads from disk.
func buildDeb(o options, stage string, icons []icon) (string, error) {
	window := filepath.Join(o.bin, "tofu-window")
	depends, err := dependsOf(window, "bubblewrap") // bubblewrap: the sandbox of every agent command
	if err != nil {
		return "", err
	}
	scripts := map[string][]byte{"tofu.desktop": desktopEntry, "postinst": postinst, "postrm": postrm}
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(stage, name), body, 0o755); err != nil {
			return "", err
		}
	}
	contents := files.Contents{
		program(filepath.Join(o.bin, "tofu"), libDir+"/tofu"),
		program(window, libDir+"/tofu-window"),
		program(filepath.Join(o.bin, "tofu-pdf"), libDir+"/tofu-pdf"),
		{Type: files.TypeSymlink, Source: libDir + "/tofu", Destination: "/usr/bin/tofu"},
		{Type: files.TypeSymlink, Source: libDir + "/tofu-pdf", Destination: "/usr/bin/tofu-pdf"},
		regular(filepath.Join(stage, "tofu.desktop"), "/usr/share/applications/tofu.desktop"),
		regular(o.license, "/usr/share/doc/tofu/copyright"),
	}
	for _, ic := range icons {
		contents = append(contents, regular(ic.path, ic.dest()))
	}
	info := nfpm.WithDefaults(&nfpm.Info{
		Name:          "tofu",
		Arch:          o.arch,
		Platform:      "linux",
		Version:       o.version,
		VersionSchema: "none",
		Section:       "science",
		Priority:      "optional",
		Maintainer:    "Tofu developers <tofu@localhost>",
		Description: "Research assistant and white-box agent harness, offline\n" +
			"Tofu reads papers (PDF import, grounded questions with page citations, reports,\n" +
			"translation) and runs coding agents on local models through Ollama, with every\n" +
			"conversation kept as an event log on this machine. Nothing leaves the machine\n" +
			"unless a remote provider or web access is configured.",
		Homepage: "https://github.com/tofu-research/tofu",
		License:  "see /usr/share/doc/tofu/copyright",
		MTime:    time.Unix(0, 0).UTC(),
		Overridables: nfpm.Overridables{
			Depends:    depends,
			Recommends: recommends,
			Contents:   contents,
			Scripts: nfpm.Scripts{
				PostInstall: filepath.Join(stage, "postinst"),
				PostRemove:  filepath.Join(stage, "postrm"),
			},
			Deb: nfpm.Deb{Compression: "zstd"},
		},
	})
	if err := nfpm.PrepareForPackager(info, "deb"); err != nil {
		return "", fmt.Errorf("prepare the package: %w", err)
	}
	path := filepath.Join(o.out, deb.Default.ConventionalFileName(info))
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	if err := deb.Default.Package(info, f); err != nil {
		f.Close()
		os.Remove(path)
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return path, f.Close()
}

func program(src, dst string) *files.Content {
	return &files.Content{Source: src, Destination: dst, FileInfo: &files.ContentFileInfo{Mode: 0o755}}
}

func regular(src, dst string) *files.Content {
	return &files.Content{Source: src, Destination: dst, FileInfo: &files.ContentFileInfo{Mode: 0o644}}
}
