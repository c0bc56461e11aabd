package store

// EventSwarm records the progress of a swarm of sub-agents started by one spawn_agents call
// (Swarm), in the log of the session that called it. Continue rebuilds the swarm from these
// events: an agent recorded done is never run again.
const EventSwarm EventType = "swarm" // Swarm

// SwarmKind says what a swarm event records (Swarm.Kind).
type SwarmKind string

const (
	SwarmKindGraph     SwarmKind = "graph"     // agents were added (the first call, or a master round)
	SwarmKindAgent     SwarmKind = "agent"     // one agent changed state
	SwarmKindRound     SwarmKind = "round"     // a master round decided (Text: its note)
	SwarmKindMerge     SwarmKind = "merge"     // a coder's worktree was merged back (Text: the report)
	SwarmKindSynthesis SwarmKind = "synthesis" // the final answer, the spawn_agents result (Text)
)

// SwarmRole is what a sub-agent is for: it sets the agent's instructions, its tools (a
// reviewer is read-only) and its model tier.
type SwarmRole string

const (
	SwarmPlanner    SwarmRole = "planner"
	SwarmResearcher SwarmRole = "researcher"
	SwarmCoder      SwarmRole = "coder"
	SwarmAnalyst    SwarmRole = "analyst"
	SwarmReviewer   SwarmRole = "reviewer"
	SwarmWriter     SwarmRole = "writer"
	SwarmGeneral    SwarmRole = "general"
	SwarmMaster     SwarmRole = "master" // the round that reviews the dashboard and synthesizes
)

// SwarmState is where one agent of a swarm is.
type SwarmState string

const (
	SwarmPending  SwarmState = "pending"  // waiting for its dependencies or a free slot
	SwarmRunning  SwarmState = "running"  // its child session's turn runs
	SwarmWaiting  SwarmState = "waiting"  // its turn waits for the user's approval (Asking)
	SwarmDone     SwarmState = "done"     // finished; Result holds what it found
	SwarmFailed   SwarmState = "failed"   // an attempt failed (retried while attempts remain)
	SwarmSkipped  SwarmState = "skipped"  // a dependency failed for good: it never ran
	SwarmStopped  SwarmState = "stopped"  // interrupted; Continue runs it again
	SwarmRetrying SwarmState = "retrying" // failed, and about to run again
)

// Swarm is one event of a swarm: the graph as it grows, each agent's state changes, the master
// rounds and the synthesis. CallID names the spawn_agents call the swarm answers.
type Swarm struct {
	CallID string    `json:"call_id"`
	Kind   SwarmKind `json:"kind"`
	Round  int       `json:"round"` // 1 for the agents of the call, then one per master round
	// Agents (graph) are the agents added; their Index continues the swarm's numbering.
	Agents []SwarmAgent `json:"agents,omitempty"`
	// Agent (agent) is one agent's new state.
	Agent *SwarmStatus `json:"agent,omitempty"`
	// Text is the master's note (round), the merge report (merge) or the synthesis.
	Text     string `json:"text,omitempty"`
	Parallel int    `json:"parallel,omitempty"` // graph: the parallel limit the swarm runs with
}

// SwarmAgent is one agent of a swarm's graph as it was asked for.
type SwarmAgent struct {
	Index     int       `json:"index"`
	Objective string    `json:"objective"`
	Context   string    `json:"context,omitempty"`
	Role      SwarmRole `json:"role"`
	DependsOn []int     `json:"depends_on,omitempty"` // indices of agents of the same swarm
	Model     string    `json:"model,omitempty"`      // the model its role's tier chose
}

// SwarmStatus is one agent's state change.
type SwarmStatus struct {
	Index   int        `json:"index"`
	State   SwarmState `json:"state"`
	Session string     `json:"session,omitempty"` // the child session its turns run in
	Attempt int        `json:"attempt"`           // 1-based
	// Result (done) is the agent's final answer in full; dependents read it compressed.
	Result string `json:"result,omitempty"`
	Error  string `json:"error,omitempty"` // failed, skipped: why
	// Asking (waiting) is what the approval is about: the exact command or path.
	Asking     string `json:"asking,omitempty"`
	Tokens     int    `json:"tokens,omitempty"`
	DurationMS int64  `json:"duration_ms,omitempty"`
	// Worktree and Base (a coder in git) are the attempt's worktree and the snapshot commit it
	// started from: Continue after an interrupt or a crash goes on in that worktree.
	Worktree string `json:"worktree,omitempty"`
	Base     string `json:"base,omitempty"`
}
