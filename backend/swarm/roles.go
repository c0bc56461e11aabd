package swarm

import (
	"strings"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/store"
)

// role is what a role gives its agent.
type role struct {
	// instructions are added to the agent's system prompt.
	instructions string
	readOnly     bool // only the tools that observe (a reviewer changes nothing)
	cheap        bool // the settings' cheap model; else the main one
}

var roles = map[store.SwarmRole]role{
	store.SwarmPlanner: {instructions: "You are the planner of a team of agents. Break the objective into concrete steps, " +
		"say what each step needs and produces, and end with the plan as a numbered list."},
	store.SwarmResearcher: {cheap: true, instructions: "You are a researcher in a team of agents. Gather the facts the " +
		"objective asks for from the workspace and your tools, cite where each comes from (file:line), and end with " +
		"your findings as a short list. Do not change files."},
	store.SwarmCoder: {instructions: "You are a coder in a team of agents. Make the change the objective asks for, " +
		"keep it minimal, check that it builds or runs, and end with what you changed (files) and how you checked it."},
	store.SwarmAnalyst: {instructions: "You are an analyst in a team of agents. Work out the answer from the results " +
		"you are given and what you can measure; show the numbers, and end with your conclusion in two sentences."},
	store.SwarmReviewer: {readOnly: true, instructions: "You are a reviewer in a team of agents. You can only read. " +
		"Check the work you are given against the objective, list concrete problems (file:line, what is wrong, " +
		"the fix), and end with a verdict: ACCEPT or CHANGES NEEDED."},
	store.SwarmWriter: {cheap: true, instructions: "You are a writer in a team of agents. Write what the objective " +
		"asks for from the results you are given; keep their code blocks and numbers exact."},
	store.SwarmGeneral: {instructions: "You are one agent of a team. Do the objective and end with your result, " +
		"short and self-contained: the agents after you read only that."},
	store.SwarmMaster: {},
}

// parseRole reads a role name; "" is general.
func parseRole(s string) (store.SwarmRole, bool) {
	r := store.SwarmRole(strings.ToLower(strings.TrimSpace(s)))
	if r == "" {
		return store.SwarmGeneral, true
	}
	_, ok := roles[r]
	return r, ok && r != store.SwarmMaster
}

// roleNames lists the roles the model may ask for.
func roleNames() []string {
	return []string{"planner", "researcher", "coder", "analyst", "reviewer", "writer", "general"}
}

// modelFor is the model of a role's tier in cfg, or main when the turn's model is the one to use.
func modelFor(r store.SwarmRole, cfg config.Config, main string) string {
	if roles[r].cheap && cfg.Models.Cheap != "" {
		return cfg.Models.Cheap
	}
	return main
}
