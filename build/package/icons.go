package main

import (
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"

	"golang.org/x/image/draw"
)

// iconSizes are the hicolor sizes desktops look up for an application icon (menus 16-48,
// docks and launchers up to 256, HiDPI 512).
var iconSizes = []int{16, 22, 24, 32, 48, 64, 128, 256, 512}

// icon is the application icon at one size, written to path.
type icon struct {
	size int
	path string
}

// dest is where the icon theme looks for it.
func (i icon) dest() string {
	return fmt.Sprintf("/usr/share/icons/hicolor/%dx%d/apps/tofu.png", i.size, i.size)
}

// writeIcons scales the square PNG src to every size into dir.
func writeIcons(src, dir string) ([]icon, error) {
	f, err := os.Open(src)
	if err != nil {
		return nil, fmt.Errorf("read the icon: %w", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("read the icon %s: %w", src, err)
	}
	b := img.Bounds()
	if b.Dx() != b.Dy() || b.Dx() < iconSizes[len(iconSizes)-1] {
		return nil, fmt.Errorf("the icon %s is %dx%d: it must be square and at least %d pixels wide", src, b.Dx(), b.Dy(), iconSizes[len(iconSizes)-1])
	}
	var out []icon
	for _, n := range iconSizes {
		dst := image.NewNRGBA(image.Rect(0, 0, n, n))
		draw.CatmullRom.Scale(dst, dst.Bounds(), img, b, draw.Src, nil)
		path := filepath.Join(dir, fmt.Sprintf("tofu-%d.png", n))
		if err := writePNG(path, dst); err != nil {
			return nil, err
		}
		out = append(out, icon{size: n, path: path})
	}
	return out, nil
}

func writePNG(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(f, img); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}
