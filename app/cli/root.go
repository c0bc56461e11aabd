// Package cli is Tofu's command line: no arguments opens the window (the tofu-window program,
// which runs RunWindow), subcommands run headless (serve, chat, version, …). The commands that
// need the window's services wire package app; the others assemble backend/engine alone.
package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/tofu-research/tofu/app"
	"github.com/tofu-research/tofu/backend/engine"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools/procgroup"
)

// Version is set at build time with -ldflags "-X github.com/tofu-research/tofu/app/cli.Version=…".
var Version = "dev"

// Execute runs the command line. frontend holds the built front end (frontend/dist).
func Execute(frontend fs.FS) int {
	root := &cobra.Command{
		Use:           "tofu",
		Short:         "Tofu: a research assistant and white-box agent harness",
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return openWindow()
		},
	}
	root.AddCommand(
		newServeCmd(frontend),
		newChatCmd(),
		newVersionCmd(),
		newPaperCmd(),
		newOpenCmd(),
		newEvalCmd(),
		newDevCmd(),
		newRunCmd(),
		newMCPCmd(),
		newSessionsCmd(),
		newCheckpointsCmd(),
		newTraceCmd(),
		newMyDayCmd(),
		newScheduleCmd(),
		newSkillsCmd(),
		newDesktopCmd(),
		newWebCmd(),
		newSandboxCmd(),
		newBridgeCmd(),
	)
	return exitCode(root.Execute())
}

// exitCode says err on stderr and returns the process's exit status for it. An exitError
// without a message is a status alone (the window's, whose program said why itself).
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var x *exitError
	if errors.As(err, &x) && x.msg == "" {
		return x.code
	}
	fmt.Fprintln(os.Stderr, "tofu:", err)
	var e *llm.Error
	if errors.As(err, &e) && e.Hint != "" {
		fmt.Fprintln(os.Stderr, "hint:", e.Hint)
	}
	if e != nil && (e.Kind == llm.ErrUnreachable || e.Kind == llm.ErrNoModels) {
		fmt.Fprintln(os.Stderr, noModelTry)
	}
	if x != nil {
		return x.code
	}
	return 1
}

// noModelTry follows an error that there is no model to talk to: how to see Tofu work anyway.
const noModelTry = "To try Tofu without a model: `tofu dev fake-model` serves a scripted one (README, \"Trying it with no model\"); the window's first-run card has a demo."

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print Tofu's version",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintln(cmd.OutOrStdout(), "tofu", Version)
		},
	}
}

// openStore opens the database in the data directory, with a message that says what to do
// when another Tofu holds it, and the directory it is in.
func openStore() (*store.Store, string, error) {
	dir, err := store.DataDir()
	if err != nil {
		return nil, "", err
	}
	st, err := store.Open(dir)
	if errors.Is(err, store.ErrLocked) {
		return nil, "", fmt.Errorf("Tofu is already running (its database %s is open in another process); use that window, or quit it first", dir)
	}
	return st, dir, err
}

// takeCommands serves `tofu run` and `tofu chat` from the terminal while this Tofu runs;
// without its socket they say Tofu is running, and the instance runs on.
func takeCommands(dir string, a *app.App, st *store.Store, fan *app.Fanout) (stop func()) {
	stop, err := listenForCommands(dir, a, st, fan)
	if err != nil {
		fmt.Fprintf(os.Stderr, "tofu: commands from the terminal cannot reach this Tofu: %v\n", err)
		return func() {}
	}
	return stop
}

// openSettings opens the settings in the config directory ($XDG_CONFIG_HOME/tofu).
func openSettings() (*app.SettingsService, error) {
	core, err := engine.OpenSettings()
	if err != nil {
		return nil, err
	}
	return app.SettingsServiceFor(core), nil
}

// newApp wires the window's services the way the window, `tofu serve` and `tofu chat` do;
// nil factory: the gateway's.
func newApp(st *store.Store, emit app.Emitter, factory app.ProviderFactory) (*app.App, error) {
	settings, err := openSettings()
	if err != nil {
		return nil, err
	}
	sweepCommands()
	return app.New(st, emit, settings, factory), nil
}

// newEngine assembles the engine alone, for the commands that need none of the window's
// services (tofu run, paper, myday, mcp serve, eval tasks): the gateway's providers, and no
// user interface to hear its events.
func newEngine(st *store.Store) (*engine.Engine, error) {
	settings, err := engine.OpenSettings()
	if err != nil {
		return nil, err
	}
	sweepCommands()
	return engine.New(engine.Options{Store: st, Settings: settings}), nil
}

// sweepCommands stops the commands a killed Tofu left behind, before anything else runs
// (their sessions' logs are only read when those sessions run again).
func sweepCommands() {
	if _, err := procgroup.Sweep(); err != nil {
		fmt.Fprintf(os.Stderr, "tofu: stopping commands left by an earlier Tofu: %v\n", err)
	}
}
