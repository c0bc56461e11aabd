package permission

// SuiteCommands are the commands ModeSuite allows besides the built-in allow-list: the usual
// ways to build and test a project (docs/EVAL-TASKS.md lists them). Each is a rule pattern
// ("go test *" also matches "go test"). They run code the workspace names, which in a task's
// throwaway workspace is the task's code and the agent's edits: the profile keeps the agent in
// that workspace, it is not a sandbox against the code it writes.
var SuiteCommands = []string{
	"go test *", "go build *", "go vet *",
	"pytest *", "python -m pytest *", "python3 -m pytest *",
	"npm test *", "npm run test *", "yarn test *",
	"make test *", "make check *",
	"cargo test *", "cargo build *", "cargo check *",
}

// suiteConfig is cfg under ModeSuite: writes inside the workspace allowed, and SuiteCommands
// allowed after the settings' own rules for commands (which come first, so a rule the user
// wrote still decides; deny rules win wherever they are).
func suiteConfig(cfg Config) Config {
	cfg.AllowWorkspaceWrites = true
	rules := map[string]Rules{}
	for k, rs := range cfg.Rules {
		rules[k] = rs
	}
	exec := append(Rules{}, rules["exec"]...)
	for _, c := range SuiteCommands {
		exec = exec.Add(Rule{Pattern: c, Action: Allow})
	}
	rules["exec"] = exec
	cfg.Rules = rules
	return cfg
}
