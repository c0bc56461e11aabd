package manage

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/ollama"
)

// Plan is what a pull will take, said before it starts.
type Plan struct {
	Model string `json:"model"`
	// Bytes is the download: the manifest's layers and config.
	Bytes int64 `json:"bytes"`
	// Memory is this machine's RAM (0 when unknown).
	Memory int64 `json:"memory"`
	// TooLarge: the model needs more memory than the machine has (Note says by how much).
	TooLarge bool   `json:"too_large"`
	Note     string `json:"note,omitempty"`
}

// headroom is the memory a model needs per byte of its file: its weights, plus the context's
// KV cache and the runtime's buffers, which take about a fifth more at a modest context.
const headroom = 1.2

// PlanPull reads name's manifest from its registry, as Ollama will, and compares its size
// with the machine's memory. A registry that cannot be reached is an error: the pull would
// fail the same way.
func (m *Manager) PlanPull(ctx context.Context, name string) (Plan, error) {
	n, err := CheckName(name)
	if err != nil {
		return Plan{}, err
	}
	scheme := "https"
	if loopback(n.Host) {
		scheme = "http"
	}
	u := fmt.Sprintf("%s://%s/v2/%s/%s/manifests/%s", scheme, n.Host, n.Namespace, n.Model, n.Tag)
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return Plan{}, err
	}
	req.Header.Set("Accept", "application/vnd.docker.distribution.manifest.v2+json")
	resp, err := m.registry.Do(req)
	if err != nil {
		return Plan{}, pullError(name, n.Host, err.Error())
	}
	defer resp.Body.Close()
	p := Plan{Model: name, Memory: TotalMemory()}
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return Plan{}, pullError(name, n.Host, "manifest unknown")
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		p.Note = "The registry does not say the size without signing in; Ollama will ask it when pulling."
		return p, nil
	case resp.StatusCode != http.StatusOK:
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return Plan{}, &llm.Error{Kind: llm.ErrServer, Provider: ollama.ProviderName, StatusCode: resp.StatusCode,
			Message: fmt.Sprintf("the registry %s answered %s for %s: %s", n.Host, resp.Status, name, b)}
	}
	var man struct {
		Config struct{ Size int64 }   `json:"config"`
		Layers []struct{ Size int64 } `json:"layers"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&man); err != nil {
		return Plan{}, &llm.Error{Kind: llm.ErrServer, Provider: ollama.ProviderName, Message: "the registry's manifest of " + name + " is not valid: " + err.Error()}
	}
	p.Bytes = man.Config.Size
	for _, l := range man.Layers {
		p.Bytes += l.Size
	}
	if need := int64(float64(p.Bytes) * headroom); p.Memory > 0 && need > p.Memory {
		p.TooLarge = true
		p.Note = fmt.Sprintf("%s is a %s download and needs about %s of memory to run; this machine has %s. It would not load, or would crawl from swap.",
			name, HumanBytes(p.Bytes), HumanBytes(need), HumanBytes(p.Memory))
	}
	return p, nil
}

// HumanBytes writes a size in decimal units, as Ollama and the registry state sizes.
func HumanBytes(n int64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	f, i := float64(n), 0
	for f >= unit && i < 4 {
		f /= unit
		i++
	}
	return fmt.Sprintf("%.1f %s", f, [...]string{"B", "KB", "MB", "GB", "TB"}[i])
}
