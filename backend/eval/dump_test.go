package eval

import (
	"context"
	"os"
	"testing"
)

func TestDumpEval(t *testing.T) {
	if os.Getenv("EVAL_DUMP") == "" {
		t.Skip("set EVAL_DUMP")
	}
	r, err := EvalPDF(context.Background(), os.Getenv("EVAL_DUMP"), PDFOptions{Runs: 1})
	if err != nil {
		t.Fatal(err)
	}
	r.WriteText(os.Stdout)
}
