package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/wording"
)

// Complete runs a request on the user's model and returns the answer's text and the model
// that gave it.
type Complete func(ctx context.Context, req llm.Request) (text, model string, err error)

// CompleteWith returns the Complete over provider p with model (the settings' main model).
func CompleteWith(p llm.Provider, model string) Complete {
	return func(ctx context.Context, req llm.Request) (string, string, error) {
		req.Model = model
		var b strings.Builder
		for ev, err := range p.Stream(ctx, req) {
			if err != nil {
				return "", model, err
			}
			switch ev.Kind {
			case llm.EventText:
				b.WriteString(ev.Text)
			case llm.EventRetry:
				b.Reset()
			}
		}
		return b.String(), model, nil
	}
}

// Answers to the questions AskRequests puts.
const (
	AnswerAllow   = "Allow"
	AnswerDeny    = "Deny"
	AnswerDecline = "Decline"
	AnswerDone    = "Done"
)

// AskRequests answers a server's requests during a turn by asking its user (the question card
// of ask_human): sampling runs on Model once the user allowed it; an elicitation form is
// answered with the user's reply, read as JSON or as the value of a single field.
type AskRequests struct {
	Asker tools.Asker
	Model Complete // nil: sampling is refused
}

// ErrSamplingRefused is the answer to a sampling request the user did not allow.
var ErrSamplingRefused = errors.New("the user did not allow this sampling request")

// Sample implements Requests.
func (a *AskRequests) Sample(ctx context.Context, server string, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	if a.Model == nil {
		return nil, errors.New("sampling is not available here (no model)")
	}
	msgs := []llm.Message{}
	if req.SystemPrompt != "" {
		msgs = append(msgs, llm.Message{Role: llm.RoleSystem, Content: req.SystemPrompt})
	}
	var shown strings.Builder
	for _, m := range req.Messages {
		text := samplingText(m.Content)
		role := llm.RoleUser
		if m.Role == mcp.RoleAssistant {
			role = llm.RoleAssistant
		}
		msgs = append(msgs, llm.Message{Role: role, Content: text})
		fmt.Fprintf(&shown, "%s: %s\n", m.Role, wording.Clip(text, 600))
	}
	q := fmt.Sprintf("The MCP server %s asks to run your model on this (up to %d tokens):\n%s", server, req.MaxTokens, shown.String())
	ans, err := a.Asker.Ask(ctx, tools.Question{Text: q, Options: []string{AnswerAllow, AnswerDeny}})
	if err != nil {
		return nil, err
	}
	if !strings.EqualFold(strings.TrimSpace(ans), AnswerAllow) {
		return nil, ErrSamplingRefused
	}
	lr := llm.Request{Messages: msgs, MaxTokens: req.MaxTokens}
	if req.Temperature > 0 {
		t := req.Temperature
		lr.Temperature = &t
	}
	text, model, err := a.Model(ctx, lr)
	if err != nil {
		return nil, fmt.Errorf("sampling on %s: %w", model, err)
	}
	return &mcp.CreateMessageResult{
		SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.NewTextContent(text)},
		Model:           model, StopReason: "endTurn",
	}, nil
}

// samplingText is the text of a sampling message's content (one block or a list).
func samplingText(c any) string {
	switch x := deref(c).(type) {
	case mcp.TextContent:
		return x.Text
	case mcp.ImageContent:
		return "[image " + x.MIMEType + "]"
	case []mcp.Content:
		var parts []string
		for _, p := range x {
			parts = append(parts, samplingText(p))
		}
		return strings.Join(parts, "\n")
	case map[string]any:
		if t, ok := x["text"].(string); ok {
			return t
		}
	}
	b, _ := json.Marshal(c)
	return string(b)
}

// Elicit implements Requests: the form as a question; "Decline" declines, a JSON object
// answers it, and for a form of one field the reply is that field's value.
func (a *AskRequests) Elicit(ctx context.Context, server string, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	result := func(action mcp.ElicitationResponseAction, content any) *mcp.ElicitationResult {
		return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: action, Content: content}}
	}
	p := req.Params
	if p.Mode == "url" {
		q := fmt.Sprintf("The MCP server %s asks you to open %s\n%s\nAnswer Done when finished.", server, p.URL, p.Message)
		ans, err := a.Asker.Ask(ctx, tools.Question{Text: q, Options: []string{AnswerDone, AnswerDecline}})
		if err != nil {
			return nil, err
		}
		if strings.EqualFold(strings.TrimSpace(ans), AnswerDone) {
			return result(mcp.ElicitationResponseActionAccept, nil), nil
		}
		return result(mcp.ElicitationResponseActionDecline, nil), nil
	}
	schema, _ := toMap(p.RequestedSchema)
	props, _ := schema["properties"].(map[string]any)
	required := map[string]bool{}
	if list, ok := schema["required"].([]any); ok {
		for _, r := range list {
			required[fmt.Sprint(r)] = true
		}
	}
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(&b, "The MCP server %s asks: %s\n", server, p.Message)
	options := []string{AnswerDecline}
	for _, n := range names {
		f, _ := props[n].(map[string]any)
		fmt.Fprintf(&b, "- %s (%s", n, typeOf(f))
		if required[n] {
			b.WriteString(", required")
		}
		b.WriteString(")")
		if d, ok := f["description"].(string); ok && d != "" {
			b.WriteString(": " + d)
		}
		if e, ok := f["enum"].([]any); ok {
			fmt.Fprintf(&b, " one of %v", e)
			if len(names) == 1 {
				options = nil
				for _, v := range e {
					options = append(options, fmt.Sprint(v))
				}
				options = append(options, AnswerDecline)
			}
		}
		b.WriteByte('\n')
	}
	if len(names) > 1 {
		b.WriteString(`Answer with a JSON object of these fields, or Decline.`)
	}
	ans, err := a.Asker.Ask(ctx, tools.Question{Text: strings.TrimSpace(b.String()), Options: options})
	if err != nil {
		return nil, err
	}
	ans = strings.TrimSpace(ans)
	if strings.EqualFold(ans, AnswerDecline) || ans == "" {
		return result(mcp.ElicitationResponseActionDecline, nil), nil
	}
	var content map[string]any
	if json.Unmarshal([]byte(ans), &content) != nil || (len(names) == 1 && content[names[0]] == nil) {
		if len(names) != 1 {
			return result(mcp.ElicitationResponseActionDecline, nil), nil
		}
		content = map[string]any{names[0]: ans}
	}
	fitted, _ := coerce(content, schema).(map[string]any)
	return result(mcp.ElicitationResponseActionAccept, fitted), nil
}

func toMap(v any) (map[string]any, bool) {
	if m, ok := v.(map[string]any); ok {
		return m, true
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	var m map[string]any
	return m, json.Unmarshal(b, &m) == nil
}
