package scripted

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
)

// OpenAI's Responses API (POST /v1/responses), which Codex speaks and nothing else: the same
// scripts as the other formats, answered as output items (reasoning, message, function_call,
// or custom_tool_call for a tool the request offered as "custom", such as Codex's apply_patch).

// responsesRequest is the part of a Responses body the server reads.
type responsesRequest struct {
	Model           string          `json:"model"`
	Instructions    string          `json:"instructions"`
	Input           json.RawMessage `json:"input"` // a string, or a list of items
	Tools           []responsesTool `json:"tools"`
	Stream          bool            `json:"stream"`
	MaxOutputTokens int             `json:"max_output_tokens"`
	Temperature     *float64        `json:"temperature"`
	Reasoning       *struct {
		Effort string `json:"effort"`
	} `json:"reasoning"`
}

type responsesTool struct {
	Type        string          `json:"type"` // function, custom, or a hosted tool (ignored)
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// responsesItem is an input item of any type.
type responsesItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"`
	Output    json.RawMessage `json:"output"`
}

func decodeResponses(c *Call) {
	var req responsesRequest
	if json.Unmarshal(c.Body, &req) != nil {
		return
	}
	c.Request = new(fromResponses(&req))
	c.Stream = req.Stream
}

// responsesText is content that is a string or a list of parts; images are returned apart.
func responsesText(raw json.RawMessage) (string, [][]byte) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var parts []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL string `json:"image_url"`
	}
	json.Unmarshal(raw, &parts)
	var b strings.Builder
	var images [][]byte
	for _, p := range parts {
		switch p.Type {
		case "input_text", "output_text", "text":
			b.WriteString(p.Text)
		case "input_image":
			if _, b64, ok := strings.Cut(p.ImageURL, ";base64,"); ok {
				img, _ := base64.StdEncoding.DecodeString(b64)
				images = append(images, img)
			}
		}
	}
	return b.String(), images
}

// fromResponses converts a Responses body to the neutral shape rules match on: instructions
// and developer messages are system messages, a call's output a RoleTool message, and calls
// join the assistant message before them.
func fromResponses(req *responsesRequest) llm.Request {
	out := llm.Request{Model: req.Model, MaxTokens: req.MaxOutputTokens, Temperature: req.Temperature,
		Think: req.Reasoning != nil && req.Reasoning.Effort != "" && req.Reasoning.Effort != "none"}
	if req.Instructions != "" {
		out.Messages = append(out.Messages, llm.Message{Role: llm.RoleSystem, Content: req.Instructions})
	}
	var items []responsesItem
	var s string
	if json.Unmarshal(req.Input, &s) == nil {
		items = []responsesItem{{Type: "message", Role: "user", Content: req.Input}}
	} else {
		json.Unmarshal(req.Input, &items)
	}
	// lastAssistant is the assistant message calls join, or -1 when the last one is not.
	lastAssistant := -1
	call := func(id, name, args string) {
		if lastAssistant < 0 {
			out.Messages = append(out.Messages, llm.Message{Role: llm.RoleAssistant})
			lastAssistant = len(out.Messages) - 1
		}
		m := &out.Messages[lastAssistant]
		m.ToolCalls = append(m.ToolCalls, llm.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)})
	}
	for _, it := range items {
		switch it.Type {
		case "message", "":
			text, images := responsesText(it.Content)
			role := llm.Role(it.Role)
			if it.Role == "developer" {
				role = llm.RoleSystem
			}
			out.Messages = append(out.Messages, llm.Message{Role: role, Content: text, Images: images})
			lastAssistant = -1
			if role == llm.RoleAssistant {
				lastAssistant = len(out.Messages) - 1
			}
		case "function_call":
			call(it.CallID, it.Name, it.Arguments)
		case "custom_tool_call":
			args, _ := json.Marshal(it.Input)
			call(it.CallID, it.Name, string(args))
		case "function_call_output", "custom_tool_call_output":
			text, _ := responsesText(it.Output)
			out.Messages = append(out.Messages, llm.Message{Role: llm.RoleTool, ToolCallID: it.CallID, Content: text})
			lastAssistant = -1
		}
	}
	for _, t := range req.Tools {
		if t.Type == "function" || t.Type == "custom" {
			out.Tools = append(out.Tools, llm.ToolSpec{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
		}
	}
	return out
}

// responsesOutput builds the output items of an answer, complete, in order: reasoning, the
// message, the calls. A call to a tool the request offered as "custom" is a custom_tool_call
// whose input is the arguments' string (or their JSON text when they are not a string).
func responsesOutput(a *answer, req *responsesRequest, seq int) []map[string]any {
	custom := map[string]bool{}
	for _, t := range req.Tools {
		custom[t.Name] = t.Type == "custom"
	}
	var items []map[string]any
	text, reasoning := a.joined()
	if reasoning != "" {
		items = append(items, map[string]any{"type": "reasoning", "id": fmt.Sprintf("rs_%d", seq),
			"summary": []any{map[string]string{"type": "summary_text", "text": reasoning}}})
	}
	if text != "" {
		items = append(items, map[string]any{"type": "message", "id": fmt.Sprintf("msg_%d", seq), "status": "completed",
			"role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}})
	}
	for i, c := range a.calls {
		id := fmt.Sprintf("fc_%d_%d", seq, i)
		if custom[c.Name] {
			input := c.Args
			var s string
			if json.Unmarshal([]byte(c.Args), &s) == nil {
				input = s
			}
			items = append(items, map[string]any{"type": "custom_tool_call", "id": id, "status": "completed",
				"call_id": c.ID, "name": c.Name, "input": input})
			continue
		}
		items = append(items, map[string]any{"type": "function_call", "id": id, "status": "completed",
			"call_id": c.ID, "name": c.Name, "arguments": c.Args})
	}
	return items
}

func (s *Server) responses(w http.ResponseWriter, r *http.Request) {
	req, a, ok := prepareOpenAI(s, w, r, fromResponses)
	if !ok {
		return
	}
	seq := callSeq(r)
	id := fmt.Sprintf("resp_%d", seq)
	created := time.Now().Unix()
	usage := map[string]any{"input_tokens": a.promptToks, "output_tokens": a.outputToks,
		"total_tokens":          a.promptToks + a.outputToks,
		"input_tokens_details":  map[string]int{"cached_tokens": a.CacheReadTokens},
		"output_tokens_details": map[string]int{"reasoning_tokens": a.ReasoningTokens}}
	output := responsesOutput(&a, req, seq)
	// response is the response object in a status, with its output so far.
	response := func(status string, output []map[string]any) map[string]any {
		resp := map[string]any{"id": id, "object": "response", "created_at": created, "status": status,
			"model": req.Model, "output": output, "error": nil, "incomplete_details": nil}
		if output == nil {
			resp["output"] = []any{}
		}
		if status != "in_progress" {
			resp["usage"] = usage
		}
		return resp
	}
	final := "completed"
	if a.DoneReason == "length" {
		final = "incomplete"
	}
	finalResponse := func() map[string]any {
		resp := response(final, output)
		if final == "incomplete" {
			resp["incomplete_details"] = map[string]string{"reason": "max_output_tokens"}
		}
		return resp
	}

	if !req.Stream {
		if a.dieAt >= 0 {
			die(w)
		}
		writeJSON(w, http.StatusOK, finalResponse())
		return
	}

	st := s.sse(w, r)
	n := 0
	send := func(typ string, v map[string]any) bool {
		v["type"], v["sequence_number"] = typ, n
		n++
		b, _ := json.Marshal(v)
		return st.write([]byte("event: " + typ + "\ndata: " + string(b) + "\n\n"))
	}
	if !send("response.created", map[string]any{"response": response("in_progress", nil)}) ||
		!send("response.in_progress", map[string]any{"response": response("in_progress", nil)}) {
		return
	}
	// The items of output are opened as their pieces come (reasoning, then the message), and
	// the calls after every piece.
	idx := -1
	var open map[string]any // the open text item: reasoning or message
	closeOpen := func() bool {
		if open == nil {
			return true
		}
		item, ok := open, true
		open = nil
		if item["type"] == "message" {
			text := item["content"].([]any)[0].(map[string]any)["text"]
			part := map[string]any{"type": "output_text", "text": text, "annotations": []any{}}
			ok = send("response.output_text.done", map[string]any{"item_id": item["id"], "output_index": idx, "content_index": 0, "text": text}) &&
				send("response.content_part.done", map[string]any{"item_id": item["id"], "output_index": idx, "content_index": 0, "part": part})
		} else {
			text := item["summary"].([]any)[0].(map[string]string)["text"]
			ok = send("response.reasoning_summary_text.done", map[string]any{"item_id": item["id"], "output_index": idx, "summary_index": 0, "text": text}) &&
				send("response.reasoning_summary_part.done", map[string]any{"item_id": item["id"], "output_index": idx, "summary_index": 0,
					"part": map[string]any{"type": "summary_text", "text": text}})
		}
		return ok && send("response.output_item.done", map[string]any{"output_index": idx, "item": item})
	}
	sent := st.pieces(&a, func(p piece) bool {
		typ := "message"
		if p.reasoning {
			typ = "reasoning"
		}
		if open == nil || open["type"] != typ {
			if !closeOpen() {
				return false
			}
			idx++
			open = output[idx]
			var empty map[string]any
			if typ == "message" {
				empty = map[string]any{"type": "message", "id": open["id"], "status": "in_progress", "role": "assistant", "content": []any{}}
			} else {
				empty = map[string]any{"type": "reasoning", "id": open["id"], "summary": []any{}}
			}
			if !send("response.output_item.added", map[string]any{"output_index": idx, "item": empty}) {
				return false
			}
			if typ == "message" && !send("response.content_part.added", map[string]any{"item_id": open["id"], "output_index": idx, "content_index": 0,
				"part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}}) {
				return false
			}
			if typ == "reasoning" && !send("response.reasoning_summary_part.added", map[string]any{"item_id": open["id"], "output_index": idx, "summary_index": 0,
				"part": map[string]any{"type": "summary_text", "text": ""}}) {
				return false
			}
		}
		if p.reasoning {
			return send("response.reasoning_summary_text.delta", map[string]any{"item_id": open["id"], "output_index": idx, "summary_index": 0, "delta": p.text})
		}
		return send("response.output_text.delta", map[string]any{"item_id": open["id"], "output_index": idx, "content_index": 0, "delta": p.text})
	})
	if !sent {
		return
	}
	if !closeOpen() {
		return
	}
	for idx++; idx < len(output); idx++ {
		item := output[idx]
		empty := map[string]any{}
		for k, v := range item {
			empty[k] = v
		}
		empty["status"] = "in_progress"
		field, kind := "arguments", "function_call_arguments"
		if item["type"] == "custom_tool_call" {
			field, kind = "input", "custom_tool_call_input"
		}
		full := item[field].(string)
		empty[field] = ""
		if !send("response.output_item.added", map[string]any{"output_index": idx, "item": empty}) {
			return
		}
		for _, frag := range fragments(full) {
			if !send("response."+kind+".delta", map[string]any{"item_id": item["id"], "output_index": idx, "delta": frag}) {
				return
			}
		}
		if !send("response."+kind+".done", map[string]any{"item_id": item["id"], "output_index": idx, field: full}) ||
			!send("response.output_item.done", map[string]any{"output_index": idx, "item": item}) {
			return
		}
	}
	if a.cutAtEnd() {
		return
	}
	if a.ErrorInStream != "" {
		st.fail()
		resp := response("failed", output)
		resp["error"] = map[string]string{"code": "server_error", "message": a.ErrorInStream}
		send("response.failed", map[string]any{"response": resp})
		return
	}
	send("response."+final, map[string]any{"response": finalResponse()})
}
