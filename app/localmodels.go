package app

import (
	"os/exec"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm/ollama/manage"
	"github.com/tofu-research/tofu/backend/tools/procgroup"
)

// TopicPull carries every step of every pull (manage.Progress), the last with its final state.
const TopicPull = manage.TopicPull

// LocalModelService is Settings' "Local models" (manage.Service): the user's actions on the
// Ollama server the settings name, which only the window's services may take.
type LocalModelService struct {
	*manage.Service
	spawner procgroup.Spawner // the `ollama serve` Tofu started
}

func newLocalModelService(settings *SettingsService, emit Emitter, changed func()) *LocalModelService {
	s := &LocalModelService{}
	s.Service = manage.NewService(manage.ServiceOptions{Emit: emit.Emit, Changed: changed,
		BaseURL: func() (string, error) {
			cfg, err := settings.config()
			if err != nil {
				return "", err
			}
			for _, p := range cfg.Providers {
				if p.Type == config.TypeOllama {
					return p.BaseURL, nil
				}
			}
			return "", nil
		},
		Spawn: func(cmd *exec.Cmd) error {
			procgroup.Prepare(cmd)
			cmd.Env = append(cmd.Env, procgroup.MarkerEnv+"="+procgroup.NewMarker(), procgroup.OwnerEnv+"="+procgroup.OwnerValue())
			return s.spawner.Start(cmd)
		}})
	return s
}

// close cancels the pulls and stops the server Tofu started.
func (s *LocalModelService) close() {
	manage.Close(s.Service)
	s.spawner.Close()
}
