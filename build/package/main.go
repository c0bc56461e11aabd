// Command tofu-package builds Tofu's Debian package (`make package`) from the programs
// `make build` leaves in build/bin, with nfpm as a library: tofu, tofu-window and tofu-pdf in
// /usr/lib/tofu (tofu finds the window and the PDF extractor beside itself, symlinks resolved)
// with /usr/bin/tofu and /usr/bin/tofu-pdf linking there, the menu entry (which also opens PDFs: "Open with Tofu"), the icon at the
// hicolor sizes, and the libraries the window links declared as dependencies. With -tarball it
// also writes the portable tarball (docs/PACKAGING.md).
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
)

func main() {
	var o options
	flag.StringVar(&o.bin, "bin", "build/bin", "folder holding tofu, tofu-window and tofu-pdf (make build)")
	flag.StringVar(&o.icon, "icon", "build/appicon.png", "the application icon, a square PNG")
	flag.StringVar(&o.license, "license", "LICENSE", "the license, shipped as the copyright file")
	flag.StringVar(&o.version, "version", "", "the package version (Debian form, starting with a digit)")
	flag.StringVar(&o.arch, "arch", runtime.GOARCH, "the Go architecture the programs were built for")
	flag.StringVar(&o.out, "out", "build/dist", "folder to write the package into")
	flag.BoolVar(&o.tarball, "tarball", false, "also write the portable tarball")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "tofu-package: unexpected argument %q\n", flag.Arg(0))
		os.Exit(2)
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "tofu-package:", err)
		os.Exit(1)
	}
}

type options struct {
	bin, icon, license, version, arch, out string
	tarball                                bool
}

func run(o options) error {
	if err := checkVersion(o.version); err != nil {
		return err
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	stage, err := os.MkdirTemp("", "tofu-package-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(stage)
	icons, err := writeIcons(o.icon, stage)
	if err != nil {
		return err
	}
	deb, err := buildDeb(o, stage, icons)
	if err != nil {
		return err
	}
	fmt.Println(deb)
	if o.tarball {
		tgz, err := buildTarball(o, icons)
		if err != nil {
			return err
		}
		fmt.Println(tgz)
	}
	return nil
}
