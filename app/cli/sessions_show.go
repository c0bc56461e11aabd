package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tofu-research/tofu/backend/forward"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/wording"
)

// newSessionsShowCmd is `tofu sessions show SESSION`: the conversation as the window shows it,
// the active branch, with the forks along it (< 2/3 >) and the seqs of the other versions.
func newSessionsShowCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show SESSION",
		Short: "Print a conversation's active branch, with its forks (edited messages, regenerated replies)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ans, err := deskCall(forward.DeskRequest{Op: forward.DeskShow, Session: args[0]})
			if err != nil {
				return err
			}
			return printBranch(cmd.OutOrStdout(), ans.Info, ans.Events, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"session","head","events":[the active path],"forks":[{at,alternatives,index}]}`)
	return cmd
}

// printBranch prints the active path of a session's log.
func printBranch(out io.Writer, info store.SessionInfo, events []store.Event, asJSON bool) error {
	tree := store.TreeOf(events)
	path := tree.Path(events)
	forks := tree.Forks()
	if asJSON {
		if path == nil {
			path = []store.Event{}
		}
		if forks == nil {
			forks = []store.Fork{}
		}
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"session": info, "head": tree.Head(), "events": path, "forks": forks})
	}
	// A fork is shown on the first message after it.
	pending := map[uint64]store.Fork{}
	for _, f := range forks {
		pending[f.At] = f
	}
	var open []store.Fork
	if f, ok := pending[0]; ok {
		open = append(open, f)
	}
	fmt.Fprintf(out, "%s  %s\n", info.ID, termLine(info.Title))
	for _, ev := range path {
		if who, text := messageLine(ev); who != "" {
			fmt.Fprintf(out, "\n#%d %s", ev.Seq, who)
			for _, f := range open {
				fmt.Fprintf(out, "  < %d/%d >  versions start at %s", f.Index+1, len(f.Alternatives), seqList(f.Alternatives))
			}
			open = nil
			fmt.Fprintf(out, "\n%s\n", indent(termText(text)))
		}
		if f, ok := pending[ev.Seq]; ok {
			open = append(open, f)
		}
	}
	return nil
}

// messageLine is who speaks in ev and what they say ("" for events that are not messages).
func messageLine(ev store.Event) (string, string) {
	switch ev.Type {
	case store.EventUser:
		var u store.UserMessage
		if ev.Decode(&u) == nil {
			return "user", u.Text
		}
	case store.EventAssistant:
		var a store.AssistantMessage
		if ev.Decode(&a) != nil || (a.Text == "" && len(a.ToolCalls) == 0) {
			return "", ""
		}
		text := a.Text
		for _, c := range a.ToolCalls {
			text += fmt.Sprintf("\n[%s %s]", c.Name, wording.Clip(string(c.Arguments), 120))
		}
		return "assistant", strings.TrimSpace(text)
	}
	return "", ""
}

func seqList(seqs []uint64) string {
	parts := make([]string, len(seqs))
	for i, s := range seqs {
		parts[i] = fmt.Sprintf("#%d", s)
	}
	return strings.Join(parts, ", ")
}

func indent(s string) string { return "    " + strings.ReplaceAll(s, "\n", "\n    ") }
