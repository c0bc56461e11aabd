package swarm

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
)

// Artifacts are what a swarm's agents share beyond their results (a schema, a list of URLs, a
// draft): small JSON records in Badger under the session that started the swarm.
type artifact struct {
	Name    string    `json:"name"`
	Content string    `json:"content"`
	By      string    `json:"by"` // the session that stored it
	Time    time.Time `json:"time"`
}

// maxArtifact bounds one artifact: it is read whole into a model's context.
const maxArtifact = 64 << 10

var artifactName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$`) })

func artifactKey(root, name string) string { return "swarm-artifact/" + root + "/" + name }

type storeParams struct {
	Name    string `json:"name" description:"letters, digits, . _ -"`
	Content string `json:"content"`
}

type readParams struct {
	Name string `json:"name"`
}

type listParams struct{}

// artifactTools are the artifact tools of a session in the swarm rooted at root.
func artifactTools(st *store.Store, root, session string) []tools.Tool {
	return []tools.Tool{
		tools.Define(tools.Def[storeParams]{
			Name:        "artifact_store",
			Description: "Store a named artifact for the other agents of the swarm (replaces one of that name).",
			Example:     `{"name":"api-notes.md","content":"…"}`,
			Run: func(_ context.Context, _ tools.Call, p storeParams) (tools.Result, error) {
				if !artifactName().MatchString(p.Name) {
					return tools.Errorf("name must be 1-80 letters, digits, '.', '_' or '-', starting with a letter or digit"), nil
				}
				if len(p.Content) > maxArtifact {
					return tools.Errorf(fmt.Sprintf("the content has %d bytes; an artifact holds at most %d: store a summary", len(p.Content), maxArtifact)), nil
				}
				a := artifact{Name: p.Name, Content: p.Content, By: session, Time: time.Now().UTC()}
				if err := st.PutJSON(artifactKey(root, p.Name), a); err != nil {
					return tools.Result{}, fmt.Errorf("store artifact %s: %w", p.Name, err)
				}
				return tools.Result{Text: fmt.Sprintf("Stored %s (%d bytes).", p.Name, len(p.Content))}, nil
			},
		}),
		tools.Define(tools.Def[readParams]{
			Name:        "artifact_read",
			Description: "Read a named artifact of the swarm.",
			ReadOnly:    true,
			Example:     `{"name":"api-notes.md"}`,
			Run: func(_ context.Context, _ tools.Call, p readParams) (tools.Result, error) {
				var a artifact
				ok, err := st.GetJSON(artifactKey(root, p.Name), &a)
				if err != nil {
					return tools.Result{}, fmt.Errorf("read artifact %s: %w", p.Name, err)
				}
				if !ok {
					names, _ := listArtifacts(st, root)
					return tools.Errorf(fmt.Sprintf("no artifact %q; the artifacts are: %s", p.Name, strings.Join(names, ", "))), nil
				}
				return tools.Result{Text: a.Content}, nil
			},
		}),
		tools.Define(tools.Def[listParams]{
			Name:        "artifact_list",
			Description: "List the swarm's artifacts.",
			ReadOnly:    true,
			Example:     `{}`,
			Run: func(context.Context, tools.Call, listParams) (tools.Result, error) {
				names, err := listArtifacts(st, root)
				if err != nil {
					return tools.Result{}, err
				}
				if len(names) == 0 {
					return tools.Result{Text: "No artifacts yet."}, nil
				}
				return tools.Result{Text: strings.Join(names, "\n")}, nil
			},
		}),
	}
}

// listArtifacts names the artifacts of the swarm rooted at root, with their sizes.
func listArtifacts(st *store.Store, root string) ([]string, error) {
	var out []string
	err := st.ListJSON("swarm-artifact/"+root+"/", func(_ string, raw json.RawMessage) error {
		var a artifact
		if json.Unmarshal(raw, &a) == nil {
			out = append(out, fmt.Sprintf("%s (%d bytes)", a.Name, len(a.Content)))
		}
		return nil
	})
	return out, err
}
