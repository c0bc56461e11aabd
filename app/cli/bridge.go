package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/tofu-research/tofu/app"
)

func newBridgeCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bridge",
		Short: "The chat apps Tofu answers in (Matrix, Telegram, Slack): list, test, token",
		Long: "Bridges let you reach Tofu from a chat app: set one up in config.json's \"bridges\" (docs/BRIDGES.md),\n" +
			"keep its token with `tofu bridge token NAME`, check it with `tofu bridge test NAME`. Bridges that\n" +
			"are on run while the window or `tofu serve` is open.",
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List the bridges of the settings: platform, on or off, token kept, allowed users",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := bridgeSettings()
			if err != nil {
				return err
			}
			list, err := s.List()
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if len(list) == 0 {
				fmt.Fprintln(out, "No bridges are set up (docs/BRIDGES.md says how).")
				return nil
			}
			w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "NAME\tPLATFORM\tSTATE\tTOKEN\tALLOWED")
			for _, b := range list {
				state, token := "off", "missing"
				if b.On {
					state = "on"
				}
				if b.HasToken {
					token = "kept"
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", b.Name, b.Platform, state, token, strings.Join(b.Allowed, " "))
			}
			return w.Flush()
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "test NAME",
		Short: "Check a bridge's settings and token: asks the platform who the token belongs to",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := bridgeSettings()
			if err != nil {
				return err
			}
			who, err := s.Test(args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: the token works: Tofu speaks as %s.\n", args[0], who)
			return nil
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "token NAME",
		Short: "Keep a bridge's token in the keyring (read from standard input, one line: Slack's two tokens separated by a space; empty removes it)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := bridgeSettings()
			if err != nil {
				return err
			}
			if isTerminal(cmd.InOrStdin()) {
				fmt.Fprintf(cmd.ErrOrStderr(), "Paste the token of %s and press Enter: ", args[0])
			}
			line, err := bufio.NewReader(cmd.InOrStdin()).ReadString('\n')
			if err != nil && !errors.Is(err, io.EOF) {
				return err
			}
			if err := s.SetToken(args[0], strings.TrimSpace(line)); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: token kept.\n", args[0])
			return nil
		},
	})
	return cmd
}

func bridgeSettings() (*app.BridgeService, error) {
	settings, err := openSettings()
	if err != nil {
		return nil, err
	}
	return app.BridgeSettings(settings), nil
}

// startBridges runs the bridges that are on while Tofu is open (the window, tofu serve).
func startBridges(a *app.App) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := a.RunBridges(ctx); err != nil {
			fmt.Fprintf(os.Stderr, "tofu: the bridges stopped: %v\n", err)
		}
	}()
	return func() { cancel(); <-done }
}
