package storewrites_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/tofu-research/tofu/backend/guardrails/storewrites"
)

// The cases are in testdata/src/a: writes of the store and of a consumer's interface for it,
// ignored, deferred, dropped with and without a reason, through a function of the package.
func TestStoreWrites(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), storewrites.Analyzer, "a")
}
