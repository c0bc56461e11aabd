package app

import "github.com/tofu-research/tofu/backend/skills"

// SkillsService is the Settings view's skills section (skills.Panel).
type SkillsService struct{ *skills.Panel }
