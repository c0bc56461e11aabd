package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/skills"
)

func newSkillsCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "skills", Short: "Agent Skills: list them, install one from a folder or a zip"}
	global := func() (string, error) {
		dir, err := config.Dir()
		if err != nil {
			return "", err
		}
		return filepath.Join(dir, "skills"), nil
	}
	var cwd string
	list := &cobra.Command{
		Use:   "list",
		Short: "List the skills the agent sees in a workspace (--cwd) and globally",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			g, err := global()
			if err != nil {
				return err
			}
			found := skills.Discover(cwd, g)
			out := cmd.OutOrStdout()
			if len(found) == 0 {
				fmt.Fprintln(out, "No skills.")
			}
			for _, s := range found {
				state := ""
				if s.Missing != "" {
					state = "  (unusable: " + s.Missing + ")"
				}
				fmt.Fprintf(out, "%s  %s%s\n    %s\n", termLine(s.Name), termLine(s.Description), termLine(state), termLine(s.Dir))
			}
			return nil
		},
	}
	list.Flags().StringVar(&cwd, "cwd", "", "workspace whose .tofu/skills and .claude/skills count too")
	install := &cobra.Command{
		Use:     "add DIR|FILE.zip",
		Aliases: []string{"install"},
		Short:   "Install a skill from a folder or a zip into the global skills folder (nothing in it runs; links are refused)",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			g, err := global()
			if err != nil {
				return err
			}
			var s skills.Skill
			if fi, err := os.Stat(args[0]); err == nil && fi.IsDir() { // InstallDir refuses a linked folder
				s, err = skills.InstallDir(g, args[0])
				if err != nil {
					return err
				}
			} else {
				data, err := os.ReadFile(args[0])
				if err != nil {
					return err
				}
				if s, err = skills.InstallZip(g, data); err != nil {
					return err
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Installed %s in %s\n", termLine(s.Name), termLine(s.Dir))
			if s.Missing != "" {
				fmt.Fprintf(cmd.OutOrStdout(), "Not usable here: %s\n", termLine(s.Missing))
			}
			return nil
		},
	}
	cmd.AddCommand(list, install)
	return cmd
}
