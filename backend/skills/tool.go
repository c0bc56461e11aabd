package skills

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tofu-research/tofu/backend/tools"
)

type skillParams struct {
	Name string `json:"name"`
}

// Tool loads a skill's instructions by name. A workspace skill's SKILL.md is a read the
// approval service sees like any file of the workspace; a global skill lives in Tofu's config
// folder, which the policy guards as a secret place (asking at every read), so loading one is
// Tofu reading its own installed instructions, not an access of the model. Nothing of a skill
// runs: its scripts are files the model may read or run with run_command, under the usual
// approvals.
func Tool(all []Skill, global string) tools.Tool {
	byName := map[string]Skill{}
	for _, s := range all {
		byName[s.Name] = s
	}
	return tools.Define(tools.Def[skillParams]{
		Name:        "skill",
		Description: "Load a skill's instructions (skills are listed in the system prompt).",
		ReadOnly:    true,
		Example:     `{"name":"pdf-forms"}`,
		Access: func(_ tools.Call, p skillParams) []tools.Access {
			if s, ok := byName[p.Name]; ok && (global == "" || s.Source != global) {
				return []tools.Access{{Kind: tools.AccessRead, Path: filepath.Join(s.Dir, "SKILL.md")}}
			}
			return nil
		},
		Run: func(_ context.Context, _ tools.Call, p skillParams) (tools.Result, error) {
			s, ok := byName[p.Name]
			if !ok {
				var names []string
				for n := range byName {
					names = append(names, n)
				}
				return tools.Errorf(fmt.Sprintf("No skill %q. Skills: %s.", p.Name, strings.Join(names, ", "))), nil
			}
			if s.Missing != "" {
				return tools.Errorf(fmt.Sprintf("Skill %s cannot be used here: %s.", s.Name, s.Missing)), nil
			}
			body, files, err := Body(s)
			if err != nil {
				return tools.Errorf(err.Error()), nil
			}
			text := fmt.Sprintf("Skill %s (folder %s):\n\n%s", s.Name, s.Dir, body)
			if len(files) > 0 {
				text += "\n\nFiles in the skill's folder: " + strings.Join(files, ", ")
			}
			return tools.Result{Text: text, Meta: map[string]string{"skill": s.Name}}, nil
		},
	})
}
