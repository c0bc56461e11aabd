package servicests

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The committed file is what the services have now: a method added, renamed or removed in Go
// and not regenerated fails here (and, through the types, the front end's build).
func TestGeneratedFileIsCurrent(t *testing.T) {
	got, err := os.ReadFile(filepath.Join("..", "..", Path))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != Generate() {
		t.Fatalf("%s is stale: run `go run ./app/cmd/gen-services` (make frontend does)", Path)
	}
}

// The methods are the ones Wails binds: exported, of the pointer the App holds.
func TestMethodsOfABoundService(t *testing.T) {
	m := Methods()["ModelService"]
	if !slices.Contains(m, "Status") || slices.Contains(m, "status") || slices.Contains(m, "publish") {
		t.Fatalf("ModelService methods: %v", m)
	}
	if len(Methods()) < 10 {
		t.Fatalf("only %d services", len(Methods()))
	}
	if !strings.Contains(Generate(), "ModelService: ") {
		t.Fatal("no ModelService line")
	}
}
