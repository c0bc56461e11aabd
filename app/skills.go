package app

import (
	"errors"

	"github.com/tofu-research/tofu/backend/skills"
)

// SkillsService is the Settings view's skills section: what the agent sees, and installing a
// dropped zip into the global folder (nothing in it runs).
type SkillsService struct {
	global string // "" : no config directory
}

// List returns the skills of workspace ("" : global only) and the global ones.
func (s *SkillsService) List(workspace string) ([]skills.Skill, error) {
	out := skills.Discover(workspace, s.global)
	if out == nil {
		out = []skills.Skill{}
	}
	return out, nil
}

// Install unpacks a zipped skill (data: the zip's bytes) into the global folder.
func (s *SkillsService) Install(name string, data []byte) (skills.Skill, error) {
	if s.global == "" {
		return skills.Skill{}, errors.New("skills cannot be installed: Tofu has no config folder")
	}
	_ = name // the zip's own SKILL.md names the skill; the file name is only for messages
	return skills.InstallZip(s.global, data)
}

// InstallFolder installs a skill folder dropped in the window or chosen with the folder
// picker: files are the folder's, with their paths inside it (the window read them). The
// same checks as a zip's apply.
func (s *SkillsService) InstallFolder(files []skills.File) (skills.Skill, error) {
	if s.global == "" {
		return skills.Skill{}, errors.New("skills cannot be installed: Tofu has no config folder")
	}
	return skills.InstallFiles(s.global, files)
}
