package skills

import (
	"errors"
)

// Panel is the Settings view's skills section: what the agent sees, and installing a dropped
// zip or folder into the global folder (nothing in it runs). The window's SkillsService (app)
// is Panel bound to the user interface: every exported method is callable from the page.
type Panel struct {
	global string // "" : no config directory
}

// NewPanel shows the skills of the global folder global ("" : none).
func NewPanel(global string) *Panel { return &Panel{global: global} }

// List returns the skills of workspace ("" : global only) and the global ones.
func (s *Panel) List(workspace string) ([]Skill, error) {
	out := Discover(workspace, s.global)
	if out == nil {
		out = []Skill{}
	}
	return out, nil
}

// Install unpacks a zipped skill (data: the zip's bytes) into the global folder.
func (s *Panel) Install(name string, data []byte) (Skill, error) {
	if s.global == "" {
		return Skill{}, errors.New("skills cannot be installed: Tofu has no config folder")
	}
	_ = name // the zip's own SKILL.md names the skill; the file name is only for messages
	return InstallZip(s.global, data)
}

// InstallFolder installs a skill folder dropped in the window or chosen with the folder
// picker: files are the folder's, with their paths inside it (the window read them). The
// same checks as a zip's apply.
func (s *Panel) InstallFolder(files []File) (Skill, error) {
	if s.global == "" {
		return Skill{}, errors.New("skills cannot be installed: Tofu has no config folder")
	}
	return InstallFiles(s.global, files)
}
