package cli

import (
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/forward"
)

// A conversation whose calls were all checked, or sent nothing to check, passes; the count
// says how many requests were sent (it claimed every call verified).
func TestPrintVerifyCountsOnlyTheRequestsSent(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	a := forward.TraceAnswer{Calls: 5, Verified: 2, Checked: []string{"nothing to check: calls 3–5, refused before they were sent"}}
	if err := printVerify(&out, a); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.HasPrefix(got, "2 of 5 model calls verified: every request sent matches") || !strings.Contains(got, "refused before") {
		t.Fatalf("printed %q", got)
	}
}
