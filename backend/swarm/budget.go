package swarm

import "context"

// The texts the swarm writes into a request (an agent's brief with its inputs, the master's
// dashboard and results) are budgeted in shares of the context window of the model that reads
// them, as Tofu runs it (the provider's model info: Ollama's num_ctx, a hosted model's
// context length). A fixed number overflows a small local model or starves a large one (a
// writer with six long inputs overflowed an 8k model until a fixed 3,000-token cap, which
// gave a 128k model the same 500 tokens of each input). What the shares leave is the agent's
// system prompt and tools (about 1,500 tokens), the reply the provider reserves (Ollama: a
// quarter of the window at most) and the agent's own work, which its context manager
// compacts near the window.
const (
	// unknownWindow stands for a window no provider reports (an OpenAI-compatible server that
	// says nothing): between the 8k of a small local model and the 32k Tofu runs local models
	// with by default, so a wrong guess neither overflows much nor starves much.
	unknownWindow = 16384
	// minWindow keeps the shares useful on a window too small to run an agent anyway.
	minWindow = 4096
)

// budget is the token shares of one reader's window.
type budget struct{ window int }

func budgetOf(window int) budget {
	if window <= 0 {
		window = unknownWindow
	}
	return budget{window: max(window, minWindow)}
}

// inputs bounds all of an agent's dependencies' results together (the master's results
// too): a quarter of the window.
func (b budget) inputs() int { return b.window / 4 }

// result bounds one dependency's result: an eighth, so that one long result leaves room for
// the others and is still compressed to its gist.
func (b budget) result() int { return b.window / 8 }

// share is what each of n results gets: the result bound, or an equal share of the inputs.
func (b budget) share(n int) int { return min(b.result(), b.inputs()/max(n, 1)) }

// note bounds a text the model wrote for the reader that is not a result: an objective, its
// context, the task the master reads. A sixteenth each.
func (b budget) note() int { return b.window / 16 }

// dashboard bounds the master's table of agents: an eighth (the key findings shorten to fit).
func (b budget) dashboard() int { return b.window / 8 }

// budgetFor is the budget of model's window, asked of the turn runner (cached there per model).
func (r *run) budgetFor(ctx context.Context, model string) budget {
	return budgetOf(r.s.o.Turns.Window(ctx, model))
}
