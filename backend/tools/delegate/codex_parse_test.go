package delegate

import (
	"strings"
	"testing"
)

// codexFailedRun and codexCommandRun are Codex 0.169.0's --json output, as captured against
// the scripted model: a model the server does not serve (a warning item, then the failure),
// and a run of echo with commands on.
const codexFailedRun = `{"type":"thread.started","thread_id":"01a230c4-b2d7-7040-8a20-553909c170a4"}
{"type":"item.completed","item":{"id":"item_0","type":"error","message":"Model metadata for ` + "`nosuch`" + ` not found. Defaulting to fallback metadata; this can degrade performance and cause issues."}}
{"type":"turn.started"}
{"type":"error","message":"unexpected status 404 Not Found: The model ` + "`nosuch`" + ` does not exist or you do not have access to it., url: http://127.0.0.1:37611/v1/responses"}
{"type":"turn.failed","error":{"message":"unexpected status 404 Not Found: The model ` + "`nosuch`" + ` does not exist"}}`

const codexCommandRun = `{"type":"thread.started","thread_id":"01a230c4-a5cf-7450-a097-3bf4518117b2"}
{"type":"turn.started"}
{"type":"item.started","item":{"id":"item_0","type":"command_execution","command":"/bin/bash -lc 'echo hi'","aggregated_output":"","exit_code":null,"status":"in_progress"}}
{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"/bin/bash -lc 'echo hi'","aggregated_output":"hi\n","exit_code":0,"status":"completed"}}
{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"Ran it."}}
{"type":"turn.completed","usage":{"input_tokens":14734,"cached_input_tokens":0,"cache_write_input_tokens":0,"output_tokens":19,"reasoning_output_tokens":0}}`

func foldCodex(out string) *run {
	r := &run{}
	for _, line := range strings.Split(out, "\n") {
		for _, ev := range parseCodex([]byte(line)) {
			r.add(ev)
		}
	}
	return r
}

func TestParseCodex(t *testing.T) {
	t.Parallel()
	r := foldCodex(codexCommandRun)
	if r.session != "01a230c4-a5cf-7450-a097-3bf4518117b2" || r.final != "Ran it." || r.isError || r.turns != 1 ||
		len(r.steps) != 1 || r.steps[0] != `command {"command":"/bin/bash -lc 'echo hi'"}` {
		t.Errorf("a command run: %+v", r)
	}
	r = foldCodex(codexFailedRun)
	if !r.isError || !strings.Contains(r.final, "404 Not Found") || r.session == "" || len(r.steps) != 0 {
		t.Errorf("a failed run: %+v", r)
	}
	// The warning alone does not fail a run.
	r = foldCodex(strings.SplitN(codexFailedRun, "\n", 3)[1] + "\n" + `{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"fine"}}`)
	if r.isError || r.final != "fine" {
		t.Errorf("a warning: %+v", r)
	}
}
