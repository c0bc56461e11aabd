// Package images is the generate_image tool: a picture from an OpenAI-compatible images API,
// saved into the workspace (or Tofu's blobs without one) and shown in the conversation.
package images

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image"
	_ "image/jpeg" // decoders for what a provider may return
	_ "image/png"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/tools"
)

// Provider is the configured images API.
type Provider struct {
	BaseURL string // e.g. https://api.openai.com or http://127.0.0.1:8080
	Model   string
	Key     string
	Client  *http.Client // nil: a client with a 2-minute timeout
}

// Blobs keeps an image when the conversation has no workspace.
type Blobs interface {
	PutBlob(key string, r io.Reader) (int64, error)
}

type params struct {
	Prompt string `json:"prompt" description:"what to draw"`
	Size   string `json:"size,omitempty" description:"e.g. 1024x1024 (default)"`
	Path   string `json:"path,omitempty" description:"where to save it in the workspace, .png (default images/<prompt>.png)"`
}

const maxImage = 20 << 20

// Add adds generate_image to reg, deferred and unlisted (tool_search finds it): the first
// request does not grow.
func Add(reg *tools.Registry, p Provider, blobs Blobs) error {
	if p.Client == nil {
		p.Client = &http.Client{Timeout: 2 * time.Minute}
	}
	err := reg.Add(tools.Define(tools.Def[params]{
		Name:        "generate_image",
		Description: "Generate an image from a text prompt with the configured images provider. It is saved into the workspace (path, default images/<prompt>.png) or Tofu's storage without one, and shown in the conversation.",
		Example:     `{"prompt":"a watercolor tofu block on a plate"}`,
		Access: func(c tools.Call, a params) []tools.Access {
			acc := []tools.Access{{Kind: tools.AccessNetwork, Target: p.BaseURL}}
			if c.Workspace != "" {
				acc = append(acc, tools.Access{Kind: tools.AccessWrite, Path: target(c.Workspace, a)})
			}
			return acc
		},
		Run: func(ctx context.Context, c tools.Call, a params) (tools.Result, error) {
			if strings.TrimSpace(a.Prompt) == "" {
				return tools.Result{Text: "prompt is empty: say what to draw", IsError: true}, nil
			}
			img, err := p.generate(ctx, a)
			if err != nil {
				return tools.Result{Text: "The images provider failed: " + Explain(err), IsError: true}, nil
			}
			where, err := save(c.Workspace, a, img, blobs)
			if err != nil {
				return tools.Result{}, err
			}
			return tools.Result{Text: fmt.Sprintf("Generated a %d-byte image, saved to %s.", len(img), where), Images: [][]byte{img}}, nil
		},
	}))
	if err != nil {
		return err
	}
	reg.DeferUnlisted("generate_image")
	return nil
}

// generate asks the provider for one image as base64 and checks that it is one.
func (p Provider) generate(ctx context.Context, a params) ([]byte, error) {
	size := a.Size
	if size == "" {
		size = "1024x1024"
	}
	body, _ := json.Marshal(map[string]any{"model": p.Model, "prompt": a.Prompt, "n": 1, "size": size, "response_format": "b64_json"})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(p.BaseURL, "/")+"/v1/images/generations", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if p.Key != "" {
		req.Header.Set("Authorization", "Bearer "+p.Key)
	}
	resp, err := p.send(ctx, req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxImage*2))
	if err != nil {
		return nil, fmt.Errorf("read the answer: %w", err)
	}
	var out struct {
		Data []struct {
			B64 string `json:"b64_json"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || len(out.Data) == 0 || out.Data[0].B64 == "" {
		return nil, fmt.Errorf("the answer has no b64_json image")
	}
	img, err := base64.StdEncoding.DecodeString(out.Data[0].B64)
	if err != nil {
		return nil, fmt.Errorf("b64_json: %w", err)
	}
	if _, _, err := image.DecodeConfig(bytes.NewReader(img)); err != nil {
		return nil, fmt.Errorf("the answer is not an image: %w", err)
	}
	return img, nil
}

var nonWord = regexp.MustCompile(`[^a-z0-9]+`)

// target is the workspace-relative path the image goes to.
func target(ws string, a params) string {
	if a.Path != "" {
		return a.Path
	}
	slug := strings.Trim(nonWord.ReplaceAllString(strings.ToLower(a.Prompt), "-"), "-")
	if len(slug) > 40 {
		slug = strings.Trim(slug[:40], "-")
	}
	if slug == "" {
		slug = "image"
	}
	return filepath.Join("images", slug+".png")
}

// save writes the image inside the workspace through an os.Root (a path cannot leave it), or
// into a blob without a workspace, and says where.
func save(ws string, a params, img []byte, blobs Blobs) (string, error) {
	if ws == "" {
		sum := sha256.Sum256(img)
		key := "img/" + hex.EncodeToString(sum[:])
		if _, err := blobs.PutBlob(key, bytes.NewReader(img)); err != nil {
			return "", fmt.Errorf("keep the image: %w", err)
		}
		return "Tofu's storage (" + key + ")", nil
	}
	rel := target(ws, a)
	if filepath.IsAbs(rel) {
		r, err := filepath.Rel(ws, rel)
		if err != nil {
			return "", err
		}
		rel = r
	}
	root, err := os.OpenRoot(ws)
	if err != nil {
		return "", fmt.Errorf("open workspace: %w", err)
	}
	defer root.Close()
	if dir := filepath.Dir(rel); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return "", fmt.Errorf("create %s: %w", dir, err)
		}
	}
	if err := root.WriteFile(rel, img, 0o644); err != nil {
		return "", fmt.Errorf("write %s: %w", rel, err)
	}
	return rel, nil
}

// Check asks the provider for its models (GET {base_url}/v1/models), as Settings' "Test
// connection" does: nothing is generated, nothing is paid. It returns the model ids listed;
// its error says what to do (Explain).
func (p Provider) Check(ctx context.Context) ([]string, error) {
	if p.Client == nil {
		p.Client = &http.Client{Timeout: 10 * time.Second}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(p.BaseURL, "/")+"/v1/models", nil)
	if err != nil {
		return nil, err
	}
	if p.Key != "" {
		req.Header.Set("Authorization", "Bearer "+p.Key)
	}
	resp, err := p.send(ctx, req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return nil, fmt.Errorf("read the model list: %w", err)
	}
	var out struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("the answer to /v1/models is not a model list: %w", err)
	}
	ids := make([]string, 0, len(out.Data))
	for _, m := range out.Data {
		ids = append(ids, m.ID)
	}
	return ids, nil
}
