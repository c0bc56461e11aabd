package main

import (
	"debug/elf"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestDependsMapsLibrariesToPackages(t *testing.T) {
	libs := []string{"libglib-2.0.so.0", "libwebkit2gtk-4.1.so.0", "libgtk-3.so.0", "libgdk-3.so.0", "libgio-2.0.so.0", "libc.so.6"}
	syms := []elf.ImportedSymbol{
		{Name: "a", Version: "GLIBC_2.2.5"}, {Name: "b", Version: "GLIBC_2.34"}, {Name: "c", Version: "GLIBC_2.4"},
	}
	got, err := depends("tofu-window", libs, syms, []string{"bubblewrap"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"libc6 (>= 2.34)", "libglib2.0-0", "libgtk-3-0", "libwebkit2gtk-4.1-0", "bubblewrap"}
	if !slices.Equal(got, want) {
		t.Fatalf("depends = %q, want %q", got, want)
	}
}

func TestDependsRefusesAnUnknownLibrary(t *testing.T) {
	_, err := depends("tofu-window", []string{"libgtk-3.so.0", "libayatana-appindicator3.so.1"}, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "libayatana-appindicator3.so.1") || !strings.Contains(err.Error(), "packageOf") {
		t.Fatalf("err = %v, want one naming the library and the table", err)
	}
}

func TestVersionMustBeDebian(t *testing.T) {
	for _, v := range []string{"0.0.660+g8bede64", "1.2.3", "2.0~rc1"} {
		if err := checkVersion(v); err != nil {
			t.Errorf("checkVersion(%q) = %v", v, err)
		}
	}
	for _, v := range []string{"", "v1.0", "8bede64-dirty", "1.0 beta"} {
		if err := checkVersion(v); err == nil {
			t.Errorf("checkVersion(%q) accepted it", v)
		}
	}
}

func TestIconsAtEveryHicolorSize(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "icon.png")
	img := image.NewRGBA(image.Rect(0, 0, 512, 512))
	for y := range 512 {
		for x := range 512 {
			if x >= 256 {
				img.Set(x, y, color.RGBA{200, 40, 40, 255})
			}
		}
	}
	if err := writePNG(src, img); err != nil {
		t.Fatal(err)
	}
	icons, err := writeIcons(src, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(icons) != len(iconSizes) {
		t.Fatalf("%d icons, want %d", len(icons), len(iconSizes))
	}
	for _, ic := range icons {
		f, err := os.Open(ic.path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if b := got.Bounds(); b.Dx() != ic.size || b.Dy() != ic.size {
			t.Errorf("icon %d is %dx%d", ic.size, b.Dx(), b.Dy())
		}
		// Scaled, not cropped: the left half stays transparent, the right half red.
		if _, _, _, a := got.At(0, ic.size/2).RGBA(); a != 0 {
			t.Errorf("icon %d: left edge not transparent", ic.size)
		}
		if r, _, _, a := got.At(ic.size-1, ic.size/2).RGBA(); a == 0 || r>>8 < 150 {
			t.Errorf("icon %d: right edge not red", ic.size)
		}
		if !strings.HasPrefix(ic.dest(), "/usr/share/icons/hicolor/") || !strings.HasSuffix(ic.dest(), "/apps/tofu.png") {
			t.Errorf("icon %d goes to %s", ic.size, ic.dest())
		}
	}
	small := filepath.Join(dir, "small.png")
	if err := writePNG(small, image.NewRGBA(image.Rect(0, 0, 64, 64))); err != nil {
		t.Fatal(err)
	}
	if _, err := writeIcons(small, dir); err == nil || !strings.Contains(err.Error(), "at least 512") {
		t.Fatalf("a 64-pixel icon: err = %v", err)
	}
}
