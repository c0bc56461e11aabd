package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/tofu-research/tofu/backend/llm"
)

// Def defines a tool over a typed params struct P (see Schema for the tags it reads).
type Def[P any] struct {
	Name string
	// Description is the model-facing text, usually an embedded .md file; it is trimmed.
	Description string
	// Purpose is a few words saying what the tool is for, shown in tool_search's list while
	// the tool is deferred (every request pays for them); "" uses the description's first
	// sentence.
	Purpose  string
	ReadOnly bool
	// Example is a valid arguments object, shown when the model's arguments are refused.
	Example string
	// Direct: the text that leads the model to this tool says how to call it (read_result:
	// every stored output names its ref), so calling it, or finding it with tool_search, does
	// not offer it. Offering a tool mid-session changes the tool list, the head of the cached
	// prefix: the whole request would be re-sent uncached once.
	Direct bool
	Run    func(ctx context.Context, call Call, p P) (Result, error)
	// Access lists what the call touches; nil means nothing that needs permission.
	Access func(call Call, p P) []Access
}

// Define turns d into a Tool. It panics if P has no valid schema: that is a programming error.
func Define[P any](d Def[P]) Tool {
	schema, err := Schema(reflect.TypeFor[P]())
	if err != nil {
		panic(fmt.Sprintf("tool %s: %v", d.Name, err))
	}
	if d.Example != "" && !json.Valid([]byte(d.Example)) {
		panic(fmt.Sprintf("tool %s: example is not JSON", d.Name))
	}
	return &typed[P]{def: d, spec: llm.ToolSpec{
		Name: d.Name, Description: strings.TrimSpace(d.Description), Parameters: schema,
	}}
}

type typed[P any] struct {
	def  Def[P]
	spec llm.ToolSpec
}

func (t *typed[P]) Spec() llm.ToolSpec { return t.spec }
func (t *typed[P]) ReadOnly() bool     { return t.def.ReadOnly }
func (t *typed[P]) Purpose() string    { return t.def.Purpose }
func (t *typed[P]) Direct() bool       { return t.def.Direct }
func (t *typed[P]) Example() string    { return t.def.Example }

func (t *typed[P]) Run(ctx context.Context, call Call) (Result, error) {
	p, aerr := Decode[P](t.def.Name, call.Arguments, t.def.Example)
	if aerr != nil {
		return aerr.Result(), nil
	}
	return t.def.Run(ctx, call, p)
}

func (t *typed[P]) Access(call Call) ([]Access, *ArgError) {
	p, aerr := Decode[P](t.def.Name, call.Arguments, t.def.Example)
	if aerr != nil {
		return nil, aerr
	}
	if t.def.Access == nil {
		return nil, nil
	}
	return t.def.Access(call, p), nil
}
