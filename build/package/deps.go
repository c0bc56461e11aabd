package main

import (
	"debug/elf"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// packageOf names the Debian package of each library the window may link, by a name valid on
// both Debian 12 and Ubuntu 24.04: Ubuntu's time_t transition renamed some (libgtk-3-0t64,
// libglib2.0-0t64), and the new packages Provide the old names. A library missing here fails
// the build, so a new one is declared, not forgotten.
var packageOf = map[string]string{
	"libc.so.6":                     "libc6",
	"libm.so.6":                     "libc6",
	"libpthread.so.0":               "libc6",
	"libdl.so.2":                    "libc6",
	"libglib-2.0.so.0":              "libglib2.0-0",
	"libgio-2.0.so.0":               "libglib2.0-0",
	"libgobject-2.0.so.0":           "libglib2.0-0",
	"libgtk-3.so.0":                 "libgtk-3-0",
	"libgdk-3.so.0":                 "libgtk-3-0",
	"libgdk_pixbuf-2.0.so.0":        "libgdk-pixbuf-2.0-0",
	"libsoup-3.0.so.0":              "libsoup-3.0-0",
	"libwebkit2gtk-4.1.so.0":        "libwebkit2gtk-4.1-0",
	"libjavascriptcoregtk-4.1.so.0": "libjavascriptcoregtk-4.1-0",
}

// dependsOf is the Depends line for the program at path: the package of every library it links
// (libc6 with the newest glibc symbol version it uses), then extra.
func dependsOf(path string, extra ...string) ([]string, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read the window program: %w (make build builds it)", err)
	}
	defer f.Close()
	libs, err := f.ImportedLibraries()
	if err != nil {
		return nil, fmt.Errorf("read %s's libraries: %w", path, err)
	}
	syms, err := f.ImportedSymbols()
	if err != nil {
		return nil, fmt.Errorf("read %s's symbols: %w", path, err)
	}
	return depends(path, libs, syms, extra)
}

func depends(path string, libs []string, syms []elf.ImportedSymbol, extra []string) ([]string, error) {
	var out []string
	for _, lib := range libs {
		pkg, ok := packageOf[lib]
		if !ok {
			return nil, fmt.Errorf("%s links %s, whose package is not known: add it to packageOf (cmd/tofu-package/deps.go)", path, lib)
		}
		if pkg == "libc6" {
			if v := newestGlibc(syms); v != "" {
				pkg += " (>= " + v + ")"
			}
		}
		if !slices.Contains(out, pkg) {
			out = append(out, pkg)
		}
	}
	slices.Sort(out)
	return append(out, extra...), nil
}

// newestGlibc is the newest GLIBC_x.y version among the symbols ("" when none is versioned).
func newestGlibc(syms []elf.ImportedSymbol) string {
	best, bestKey := "", [2]int{}
	for _, s := range syms {
		v, ok := strings.CutPrefix(s.Version, "GLIBC_")
		if !ok {
			continue
		}
		major, minor, _ := strings.Cut(v, ".")
		a, err1 := strconv.Atoi(major)
		b, err2 := strconv.Atoi(strings.SplitN(minor, ".", 2)[0])
		if err1 != nil || err2 != nil {
			continue
		}
		if k := [2]int{a, b}; best == "" || k[0] > bestKey[0] || (k[0] == bestKey[0] && k[1] > bestKey[1]) {
			best, bestKey = v, k
		}
	}
	return best
}
