package paper

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkExtractICML extracts the largest paper of the evaluation set (21 pages, 2 columns).
func BenchmarkExtractICML(b *testing.B) {
	benchExtract(b, "icml2024_altmeyer_agi_claims")
}

// BenchmarkExtract extracts each paper of the evaluation set in turn, in process: with
// -benchmem and -cpuprofile it shows where extraction's CPU and allocations go per paper.
func BenchmarkExtract(b *testing.B) {
	dir := papersDir(b)
	entries, err := os.ReadDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		b.Run(e.Name(), func(b *testing.B) { benchExtract(b, e.Name()) })
	}
}

func benchExtract(b *testing.B, id string) {
	data, err := os.ReadFile(filepath.Join(papersDir(b), id, "paper.pdf"))
	if err != nil {
		b.Fatal(err)
	}
	r := bytes.NewReader(data)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	// The process's CPU time per extraction (all goroutines, the GC's included) is reported
	// beside ns/op: on a loaded machine it is the steadier figure.
	cpu0 := processCPU()
	n := 0
	for b.Loop() {
		if _, err := Extract(context.Background(), r, int64(len(data)), Options{}); err != nil {
			b.Fatal(err)
		}
		n++
	}
	if cpu := processCPU() - cpu0; cpu > 0 && n > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(n), "cpu-ns/op")
	}
}
