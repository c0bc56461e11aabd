package session

import (
	"context"
	"time"

	"github.com/tofu-research/tofu/backend/attach"
	"github.com/tofu-research/tofu/backend/store"
)

// CheckAttachments refuses attachments the model a message would go to cannot take (an image
// for a model without vision, files past half its window), before the message is recorded,
// so the user keeps the draft and the attachments and can choose another model. model ""
// is the settings' main model. The models are asked of the providers (a few seconds at most);
// when none answers, the known vision families decide.
func (r *Runner) CheckAttachments(ctx context.Context, model string, atts []store.Attachment) error {
	if len(atts) == 0 {
		return nil
	}
	model = r.modelOf(Request{Model: model})
	if model == "" {
		return nil // Start says that no model is picked
	}
	p, _, err := r.o.Provider()
	if err != nil {
		return attach.Check(model, 0, nil, atts)
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	models, _ := p.Models(ctx)
	return attach.Check(model, r.Window(ctx, model), models, atts)
}
