package toolparse

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
)

var tools = []llm.ToolSpec{
	{Name: "get_weather", Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}}}`)},
	{Name: "write_file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}}}`)},
	{Name: "search", Parameters: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"},"filters":{"type":"object"}}}`)},
}

// call is a call as the tests compare it: name and compact arguments.
type call struct{ name, args string }

type parseCase struct {
	family string
	text   string
	calls  []call
	rest   string // "" with no calls means the text itself
}

var parseCases = map[string]parseCase{
	"qwen: two calls after text": {
		family: "qwen",
		text: "I'll check the weather first.\n\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 3}}\n</tool_call>\n" +
			"<tool_call>\n{\"name\": \"search\", \"arguments\": {\"query\": \"Paris events\"}}\n</tool_call>",
		calls: []call{{"get_weather", `{"city":"Paris","days":3}`}, {"search", `{"query":"Paris events"}`}},
		rest:  "I'll check the weather first.",
	},
	"hermes: text after the call": {
		family: "hermes",
		text:   "<tool_call>\n{\"name\": \"search\", \"arguments\": {\"query\": \"tofu\"}}\n</tool_call>\nI will wait for the results.",
		calls:  []call{{"search", `{"query":"tofu"}`}},
		rest:   "I will wait for the results.",
	},
	"nested JSON strings with braces and tags": {
		family: "qwen",
		text: "<tool_call>\n{\"name\": \"write_file\", \"arguments\": {\"path\": \"main.go\", \"content\": " +
			"\"func main() {\\n\\tfmt.Println(\\\"}{ <tool_call> ```json\\\")\\n}\\n\"}}\n</tool_call>",
		calls: []call{{"write_file", `{"path":"main.go","content":"func main() {\n\tfmt.Println(\"}{ <tool_call> ` + "```json" + `\")\n}\n"}`}},
	},
	"malformed JSON stays text": {
		family: "qwen",
		text:   "Let me look.\n<tool_call>\n{\"name\": \"search\", \"arguments\": {\"query\": \"tofu\"}\n</tool_call>",
	},
	"unknown tool stays text": {
		family: "qwen",
		text:   "<tool_call>\n{\"name\": \"rm_rf\", \"arguments\": {\"path\": \"/\"}}\n</tool_call>",
	},
	"one unknown call in a list voids it": {
		family: "generic",
		text:   "```json\n[{\"name\": \"search\", \"arguments\": {}}, {\"name\": \"nope\", \"arguments\": {}}]\n```",
	},
	"arguments as a JSON string": {
		family: "qwen",
		text:   "<tool_call>{\"name\": \"search\", \"arguments\": \"{\\\"query\\\": \\\"x\\\"}\"}</tool_call>",
		calls:  []call{{"search", `{"query":"x"}`}},
	},
	"closing tag missing at the end": {
		family: "qwen",
		text:   "Searching.\n<tool_call>\n{\"name\": \"search\", \"arguments\": {\"query\": \"tofu\"}}\n",
		calls:  []call{{"search", `{"query":"tofu"}`}},
		rest:   "Searching.",
	},
	"qwen3-coder XML in tool_call": {
		family: "qwen3-coder",
		text: "I'll write the file.\n<tool_call>\n<function=write_file>\n<parameter=path>\nsrc/a.go\n</parameter>\n" +
			"<parameter=content>\nif a < b && c > d {\n\treturn \"}\"\n}\n</parameter>\n</function>\n</tool_call>",
		calls: []call{{"write_file", `{"path":"src/a.go","content":"if a \u003c b \u0026\u0026 c \u003e d {\n\treturn \"}\"\n}"}`}},
		rest:  "I'll write the file.",
	},
	"qwen3-coder typed parameters and two calls": {
		family: "qwen3-coder",
		text: "<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n<parameter=days>\n5\n</parameter>\n</function>\n" +
			"<function=search>\n<parameter=query>\n42\n</parameter>\n<parameter=filters>\n{\"site\": \"met.no\"}\n</parameter>\n</function>",
		calls: []call{{"get_weather", `{"city":"Oslo","days":5}`}, {"search", `{"query":"42","filters":{"site":"met.no"}}`}},
	},
	"XML with an unknown function stays text": {
		family: "qwen3-coder",
		text:   "<function=delete_all>\n<parameter=path>\n/\n</parameter>\n</function>",
	},
	"llama: bare JSON reply with parameters": {
		family: "llama",
		text:   "{\"name\": \"search\", \"parameters\": {\"query\": \"tofu recipes\"}}",
		calls:  []call{{"search", `{"query":"tofu recipes"}`}},
	},
	"bare JSON with tool and parameters keys": {
		family: "generic",
		text:   "\n{\"tool\": \"get_weather\", \"parameters\": {\"city\": \"Lima\"}}\n",
		calls:  []call{{"get_weather", `{"city":"Lima"}`}},
	},
	"bare JSON array of calls": {
		family: "llama",
		text:   `[{"name": "search", "arguments": {"query": "a"}}, {"function": {"name": "search", "arguments": {"query": "b"}}}]`,
		calls:  []call{{"search", `{"query":"a"}`}, {"search", `{"query":"b"}`}},
	},
	"bare JSON followed by prose is an answer": {
		family: "llama",
		text:   "{\"name\": \"search\", \"parameters\": {\"query\": \"x\"}}\nThat is the JSON you asked for.",
	},
	"JSON data that is not a call": {
		family: "llama",
		text:   `{"name": "Alice", "age": 30}`,
	},
	"fenced json call between text": {
		family: "generic",
		text:   "Let me search.\n```json\n{\"name\": \"search\", \"arguments\": {\"query\": \"tofu\"}}\n```\nBack soon.",
		calls:  []call{{"search", `{"query":"tofu"}`}},
		rest:   "Let me search.\n\nBack soon.",
	},
	"fenced json that is data": {
		family: "generic",
		text:   "Here is the config:\n```json\n{\"port\": 8080}\n```\n",
	},
	// What llama3.1:8b and Mistral emit through Ollama's raw templates (issue 32: printed as
	// the answer).
	"llama 3.x: python_tag, the end token cut": {
		family: "llama",
		text:   "<|python_tag|>{\"name\": \"search\", \"parameters\": {\"query\": \"tofu\"}}",
		calls:  []call{{"search", `{"query":"tofu"}`}},
	},
	"llama 3.x: python_tag with its end token, after text": {
		family: "llama",
		text:   "Let me check.\n<|python_tag|>{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Oslo\"}}<|eom_id|>",
		calls:  []call{{"get_weather", `{"city":"Oslo"}`}},
		rest:   "Let me check.",
	},
	"llama 3.1: two calls separated by a semicolon": {
		family: "llama",
		text:   "<|python_tag|>{\"name\": \"search\", \"parameters\": {\"query\": \"a;b\"}}; {\"name\": \"get_weather\", \"parameters\": {\"city\": \"Rome\"}}",
		calls:  []call{{"search", `{"query":"a;b"}`}, {"get_weather", `{"city":"Rome"}`}},
	},
	"llama: python_tag calling a built-in tool stays text": {
		family: "llama",
		text:   "<|python_tag|>brave_search.call(query=\"tofu\")",
	},
	"mistral: TOOL_CALLS with a JSON list": {
		family: "mistral",
		text:   "[TOOL_CALLS][{\"name\": \"search\", \"arguments\": {\"query\": \"tofu\"}}, {\"name\": \"get_weather\", \"arguments\": {\"city\": \"Lima\", \"days\": 2}}]",
		calls:  []call{{"search", `{"query":"tofu"}`}, {"get_weather", `{"city":"Lima","days":2}`}},
	},
	"mistral v11: name[ARGS]{…}, twice": {
		family: "mistral",
		text:   "[TOOL_CALLS]search[ARGS]{\"query\": \"tofu\"}[TOOL_CALLS]get_weather[CALL_ID]a1b2c3d4e[ARGS]{\"city\": \"Lima\"}",
		calls:  []call{{"search", `{"query":"tofu"}`}, {"get_weather", `{"city":"Lima"}`}},
	},
	"generic reads both": {
		family: "generic",
		text:   "[TOOL_CALLS][{\"name\": \"search\", \"arguments\": {\"query\": \"x\"}}]</s>",
		calls:  []call{{"search", `{"query":"x"}`}},
	},
	"mistral: an unknown tool stays text": {
		family: "mistral",
		text:   "[TOOL_CALLS][{\"name\": \"rm_rf\", \"arguments\": {}}]",
	},
	"prose that mentions the tags": {
		family: "qwen",
		text:   "Models print <tool_call> tags and sometimes `<function=` markers; neither is a call here.",
	},
}

func TestParse(t *testing.T) {
	t.Parallel()
	for name, tc := range parseCases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			calls, rest := Parse(tc.family, tc.text, tools)
			checkCalls(t, calls, tc.calls)
			want := tc.rest
			if len(tc.calls) == 0 {
				want = tc.text
			}
			if rest != want {
				t.Errorf("rest = %q, want %q", rest, want)
			}
		})
	}
}

func checkCalls(t *testing.T, got []llm.ToolCall, want []call) {
	t.Helper()
	var g []call
	for _, c := range got {
		if !strings.HasPrefix(c.ID, "call_") {
			t.Errorf("call %s has id %q", c.Name, c.ID)
		}
		g = append(g, call{c.Name, string(c.Arguments)})
	}
	if !slices.Equal(g, want) {
		t.Errorf("calls = %q\nwant    %q", g, want)
	}
}

func TestParseWithoutTools(t *testing.T) {
	t.Parallel()
	text := parseCases["hermes: text after the call"].text
	if calls, rest := Parse("qwen", text, nil); calls != nil || rest != text {
		t.Errorf("no tools offered, yet got %v, %q", calls, rest)
	}
}

func TestFamilyOf(t *testing.T) {
	t.Parallel()
	for model, want := range map[string]string{
		"qwen3-coder:30b":                     "qwen3-coder",
		"qwen2.5:7b-instruct":                 "qwen",
		"qwen3moe":                            "qwen",
		"hermes3:8b":                          "hermes",
		"llama3.2:3b":                         "llama",
		"mistral-small":                       "mistral",
		"devstral:24b":                        "mistral",
		"llama3.1:8b":                         "llama",
		"gemma3:4b":                           "generic",
		"hf.co/NousResearch/Hermes-3-Llama-3": "hermes",
	} {
		if got := FamilyOf(model); got != want {
			t.Errorf("FamilyOf(%q) = %q, want %q", model, got, want)
		}
	}
	for _, f := range Families() {
		if _, ok := families[f]; !ok {
			t.Errorf("Families lists %q, which has no parser set", f)
		}
	}
}
