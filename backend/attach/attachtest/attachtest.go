// Package attachtest makes attachments for tests: a real PNG whose look a test can name.
package attachtest

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
)

// SquarePNG is a size×size PNG: a red square with a blue diagonal.
func SquarePNG(size int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, size, size))
	for x := range size {
		for y := range size {
			img.Set(x, y, color.RGBA{R: 220, A: 255})
		}
		img.Set(x, x, color.RGBA{B: 255, A: 255})
	}
	var b bytes.Buffer
	png.Encode(&b, img) // writing to memory does not fail
	return b.Bytes()
}
