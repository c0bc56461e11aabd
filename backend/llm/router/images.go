package router

import (
	"context"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
)

// forModel is req as a target's model can take it: a model that does not take images (a
// conversation switched from a vision model to a text-only one, a fallback without vision)
// gets each earlier image as a note (llm.ImageOmitted) instead of an image part.
func (c *call) forModel(t *target, req llm.Request) llm.Request {
	if !llm.HasImages(req.Messages) || c.r.seesImages(c.ctx, t, req.Model) {
		return req
	}
	req.Messages = llm.OmitImages(req.Messages)
	return req
}

// visionKey is a model on a target, for Router.vision.
type visionKey struct {
	t     *target
	model string
}

// seesImages says whether model on t takes images: the provider's capabilities when it lists
// the model with some, else the known vision families (llm.SeesImages). Asked once per target
// and model; an answer from a failed listing is not kept.
func (r *Router) seesImages(ctx context.Context, t *target, model string) bool {
	key := visionKey{t, model}
	r.mu.Lock()
	v, ok := r.vision[key]
	r.mu.Unlock()
	if ok {
		return v
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	models, err := r.anyProvider(t).Models(ctx)
	info := llm.ModelInfo{Name: model}
	plain := func(s string) string { return strings.TrimSuffix(s, ":latest") }
	for _, m := range models {
		if plain(m.Name) == plain(model) {
			info = m
			break
		}
	}
	v = llm.SeesImages(info)
	if err == nil {
		r.mu.Lock()
		if r.vision == nil {
			r.vision = map[visionKey]bool{}
		}
		r.vision[key] = v
		r.mu.Unlock()
	}
	return v
}
