package eval

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/tofu-research/tofu/backend/shareddata"
)

// The goal of the issue: every protected span of the MAPS tasks back byte-exact after the
// adversarial round trip, and each record's language detected as labelled.
func TestEvalTranslateOnMAPS(t *testing.T) {
	dir := shareddata.Require(t, "multilingual")
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no JSONL in %s: %v", dir, err)
	}
	rep, err := EvalTranslate(context.Background(), files, 600)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Records != 40 || rep.Labelled != rep.Records {
		t.Fatalf("%d records, %d labelled: want the 40 labelled MAPS tasks", rep.Records, rep.Labelled)
	}
	if rep.Correct != rep.Labelled || rep.Restored != rep.Spans || rep.Fallbacks != 0 {
		t.Errorf("detected %d/%d, restored %d/%d spans, %d fallbacks: %+v", rep.Correct, rep.Labelled, rep.Restored, rep.Spans, rep.Fallbacks, rep.Wrong)
	}
	if rep.Spans < 300 || rep.Retries == 0 || rep.Languages["en"] != 20 || rep.Languages["zh"] != 20 {
		t.Errorf("spans %d retries %d languages %v: the round trip exercised too little", rep.Spans, rep.Retries, rep.Languages)
	}
}
