package desktop_test

import (
	"slices"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/desktop"
	"github.com/tofu-research/tofu/backend/desktop/desktoptest"
)

// BenchmarkScreenshot1080 is a full HD screen to an RGBA image (PNG-ready) plus its copy
// downscaled to 1280 wide, as sent to a model.
func BenchmarkScreenshot1080(b *testing.B) {
	s := desktoptest.StartB(b, desktoptest.Options{Width: 1920, Height: 1080, NoWM: true})
	d, err := desktop.Open(b.Context(), s.Display)
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	var capture, scale time.Duration
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		shot, err := d.Screenshot()
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		shot.Downscale(1280, 0)
		capture += t1.Sub(t0)
		scale += time.Since(t1)
	}
	b.ReportMetric(float64(capture.Milliseconds())/float64(b.N), "capture-ms/op")
	b.ReportMetric(float64(scale.Milliseconds())/float64(b.N), "downscale-ms/op")
}

// BenchmarkInputLatency is the time from an input call to the server having processed it (a
// pointer move, then a key tap), reported as the median.
func BenchmarkInputLatency(b *testing.B) {
	s := desktoptest.StartB(b, desktoptest.Options{NoWM: true})
	d, err := desktop.Open(b.Context(), s.Display)
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	var lat []time.Duration
	i := 0
	for b.Loop() {
		t0 := time.Now()
		if i%2 == 0 {
			err = d.Move(100+i%200, 100)
		} else {
			err = d.Key(b.Context(), "shift")
		}
		if err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
		i++
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}
