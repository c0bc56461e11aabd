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
	data, err := os.ReadFile(filepath.Join(papersDir(b), "icml2024_altmeyer_agi_claims", "paper.pdf"))
	if err != nil {
		b.Fatal(err)
	}
	r := bytes.NewReader(data)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Extract(context.Background(), r, int64(len(data)), Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
