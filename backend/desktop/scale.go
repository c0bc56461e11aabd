package desktop

import (
	"image"
	"runtime"
	"sync"
)

// Downscale returns the shot fitted inside maxW×maxH (keeping its aspect ratio; 0 means no
// limit on that side) with its frame updated, so points the model names in the small image
// map back to the screen. A shot that already fits is returned as it is.
func (s Shot) Downscale(maxW, maxH int) Shot {
	w, h := s.Image.Bounds().Dx(), s.Image.Bounds().Dy()
	scale := 1.0
	if maxW > 0 && w > maxW {
		scale = float64(maxW) / float64(w)
	}
	if maxH > 0 && float64(h)*scale > float64(maxH) {
		scale = float64(maxH) / float64(h)
	}
	if scale >= 1 {
		return s
	}
	nw, nh := max(1, int(float64(w)*scale+0.5)), max(1, int(float64(h)*scale+0.5))
	src := s.Image
	// Halving by 2×2 averages first keeps every source pixel counted (thin text strokes do not
	// vanish); the last step, at most 2×, is bilinear.
	for src.Bounds().Dx() >= 2*nw && src.Bounds().Dy() >= 2*nh {
		src = halve(src)
	}
	dst := bilinear(src, nw, nh)
	f := s.Frame
	f.Scale *= float64(nw) / float64(w)
	f.W, f.H = nw, nh
	return Shot{Image: dst, Frame: f}
}

// halve averages each 2×2 block.
func halve(src *image.RGBA) *image.RGBA {
	w, h := src.Bounds().Dx()/2, src.Bounds().Dy()/2
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	rows(h, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			r0 := src.Pix[(2*y)*src.Stride:]
			r1 := src.Pix[(2*y+1)*src.Stride:]
			out := dst.Pix[y*dst.Stride:]
			for x := 0; x < w; x++ {
				i, o := 8*x, 4*x
				for c := 0; c < 4; c++ {
					out[o+c] = uint8((uint32(r0[i+c]) + uint32(r0[i+4+c]) + uint32(r1[i+c]) + uint32(r1[i+4+c]) + 2) >> 2)
				}
			}
		}
	})
	return dst
}

// bilinear resamples src to w×h with 8-bit fixed-point weights, sampling at pixel centres.
func bilinear(src *image.RGBA, w, h int) *image.RGBA {
	sw, sh := src.Bounds().Dx(), src.Bounds().Dy()
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	taps := func(n, sn int) []tap {
		t := make([]tap, n)
		for i := range t {
			pos := (float64(i)+0.5)*float64(sn)/float64(n) - 0.5
			p0 := int(pos)
			if pos < 0 {
				pos, p0 = 0, 0
			}
			p1 := min(p0+1, sn-1)
			t[i] = tap{p0, p1, int((pos - float64(p0)) * 256)}
		}
		return t
	}
	xs, ys := taps(w, sw), taps(h, sh)
	rows(h, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			bilinearRow(src, dst, xs, ys[y], y)
		}
	})
	return dst
}

// tap is a destination pixel's two source pixels and the second one's weight (of 256).
type tap struct{ i0, i1, f int }

// bilinearRow fills row y of dst from the two source rows ty names.
func bilinearRow(src, dst *image.RGBA, xs []tap, ty tap, y int) {
	r0 := src.Pix[ty.i0*src.Stride:]
	r1 := src.Pix[ty.i1*src.Stride:]
	out := dst.Pix[y*dst.Stride:]
	fy := ty.f
	for x, tx := range xs {
		a, b := 4*tx.i0, 4*tx.i1
		fx := tx.f
		o := 4 * x
		for c := 0; c < 3; c++ {
			top := int(r0[a+c])*(256-fx) + int(r0[b+c])*fx
			bot := int(r1[a+c])*(256-fx) + int(r1[b+c])*fx
			out[o+c] = uint8((top*(256-fy) + bot*fy + 1<<15) >> 16)
		}
		out[o+3] = 0xff
	}
}

// rows splits n rows over the CPUs and runs f on each share, waiting for all.
func rows(n int, f func(y0, y1 int)) {
	workers := min(runtime.GOMAXPROCS(0), 8, max(1, n/64))
	var wg sync.WaitGroup
	for i := range workers {
		y0, y1 := n*i/workers, n*(i+1)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(y0, y1)
		}()
	}
	wg.Wait()
}
