//go:build unix

package eval

import (
	"context"
	"fmt"
	"os"

	"github.com/tofu-research/tofu/backend/llm/ollama/realollama"
)

// localModel is the name the generated model is created under.
const localModel = "tofu-local:latest"

// startLocal starts one real `ollama serve` per OLLAMA_NUM_PARALLEL in parallels (the tests'
// server, realollama), each with the generated model, under a temporary folder; stop ends them
// and removes it.
func startLocal(ctx context.Context, bin string, parallels []int) (servers []*localServer, model string, stop func(), err error) {
	dir, err := os.MkdirTemp("", "tofu-eval-local-")
	if err != nil {
		return nil, "", nil, err
	}
	var started []*realollama.Server
	stop = func() {
		for _, s := range started {
			s.Kill()
		}
		os.RemoveAll(dir)
	}
	for i, n := range parallels {
		home := fmt.Sprintf("%s/server%d", dir, i)
		if err := os.MkdirAll(home, 0o755); err != nil {
			stop()
			return nil, "", nil, err
		}
		env := []string{"OLLAMA_DEBUG=1", fmt.Sprintf("OLLAMA_NUM_PARALLEL=%d", n), "OLLAMA_KEEP_ALIVE=30m", "OLLAMA_MAX_LOADED_MODELS=2"}
		if n > 1 {
			// Without it a request takes the free slot sharing the longest prefix with it, and
			// every prompt starts with the same few template tokens: a summary call takes the
			// main session's slot and wipes it, whatever the number of slots.
			env = append(env, "OLLAMA_MULTIUSER_CACHE=1")
		}
		srv, err := realollama.Launch(ctx, home, bin, env...)
		if srv != nil {
			started = append(started, srv)
		}
		if err != nil {
			stop()
			return nil, "", nil, err
		}
		if err := srv.Create(ctx, "tofu-local", realollama.PlainTemplate, realollama.EvalTinyModel); err != nil {
			stop()
			return nil, "", nil, err
		}
		ls, err := newLocalServer(srv.URL, n, func() (string, error) { return srv.Log(), nil })
		if err != nil {
			stop()
			return nil, "", nil, err
		}
		servers = append(servers, ls)
	}
	return servers, localModel, stop, nil
}
