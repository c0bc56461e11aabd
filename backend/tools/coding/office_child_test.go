package coding

import (
	"context"
	"errors"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/child"
	"github.com/tofu-research/tofu/backend/testtools"
)

// An Office file is read in a child: a workbook that takes memory to read (100 cells naming
// one shared string of 1 MB: the reader builds 64 MB of text before its own bound refuses it)
// is refused by that bound within the default limits, and, given 16 MB, its child dies alone
// and the model reads why. An encrypted file's error crosses as its sentinel.
func TestOfficeReaderInAChild(t *testing.T) {
	t.Parallel()
	big := filepath.Join(t.TempDir(), "big.xlsx")
	writeZip(t, big, xlsxParts(sharedStringAmplification()))
	ctx := context.Background()
	if _, err := officeTextInChild(ctx, "xlsx", big); !errors.Is(err, errCorruptOffice) || !strings.Contains(err.Error(), "its text passes 64.0 MB") {
		t.Fatalf("within the default limits: %v, want the reader's own bound", err)
	}
	if runtime.GOOS == "linux" && !testtools.Race {
		_, err := officeTextLimited(ctx, "xlsx", big, child.Limits{Memory: 16 << 20, CPU: time.Minute})
		if !errors.Is(err, errTooLargeOffice) {
			t.Fatalf("with 16 MB: %v, want the child dead past its memory", err)
		}
		if got := documentError("Excel file", err); got != "the Excel file goes past the reader's limits: reading it needed more than 16 MB of memory (it cannot be read)" {
			t.Errorf("the model reads %q", got)
		}
	}
}
