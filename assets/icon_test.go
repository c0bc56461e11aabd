package assets

import (
	"bytes"
	"image/color"
	"image/png"
	"testing"
)

// The window's icon is decoded on the window's thread before WebKit starts its processes, so
// its size is part of the first paint (docs/PERFORMANCE.md): at most 256 px a side, 8 bits a
// channel (the 512 px, 16-bit original took ~9 ms there).
func TestIconIsSmall(t *testing.T) {
	cfg, err := png.DecodeConfig(bytes.NewReader(Icon()))
	if err != nil {
		t.Fatalf("the icon is not a PNG: %v", err)
	}
	if cfg.Width > 256 || cfg.Height > 256 || cfg.Width != cfg.Height {
		t.Errorf("icon %d×%d px, want a square of at most 256", cfg.Width, cfg.Height)
	}
	if cfg.ColorModel != color.NRGBAModel {
		t.Errorf("icon colour model %T, want 8-bit RGBA", cfg.ColorModel)
	}
}
