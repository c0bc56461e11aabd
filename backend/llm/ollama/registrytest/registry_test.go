package registrytest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
)

// The protocol subset Ollama's pull uses: a manifest, HEAD for a blob's size, a GET sent to
// the blob store, ranges from there; and a gate that holds a blob until the test moves it.
func TestRegistryServesWhatOllamaAsks(t *testing.T) {
	r := New(t)
	m := r.OllamaModel("ns/model:tag", []byte("0123456789"), "{{ .Prompt }}", "1K", "F32")
	base := "http://" + r.Host
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	resp := get(t, noRedirect, http.MethodGet, base+"/v2/ns/model/manifests/tag", "")
	var got Manifest
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || got.Layers[0].Digest != m.Layers[0].Digest || got.Config.Digest != m.Config.Digest {
		t.Fatalf("manifest: %+v %v", got, err)
	}
	if resp := get(t, noRedirect, http.MethodGet, base+"/v2/ns/model/manifests/other", ""); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown tag: %s", resp.Status)
	}
	blob := "/v2/ns/model/blobs/" + m.Layers[0].Digest
	if resp := get(t, noRedirect, http.MethodHead, base+blob, ""); resp.ContentLength != 10 {
		t.Fatalf("HEAD: %s, length %d", resp.Status, resp.ContentLength)
	}
	resp = get(t, noRedirect, http.MethodGet, base+blob, "")
	store, _ := resp.Location()
	if resp.StatusCode != http.StatusTemporaryRedirect || store == nil || store.Hostname() != "localhost" {
		t.Fatalf("GET blob: %s to %v", resp.Status, store)
	}
	for rng, want := range map[string]string{"bytes=4-9": "456789", "bytes=4-": "456789", "bytes=0-2": "012", "": "0123456789"} {
		if body := read(t, get(t, noRedirect, http.MethodGet, store.String(), rng)); body != want {
			t.Errorf("range %q: %q, want %q", rng, body, want)
		}
	}
	if resp := get(t, noRedirect, http.MethodGet, store.String(), "bytes=10-"); resp.StatusCode != http.StatusRequestedRangeNotSatisfiable {
		t.Fatalf("range past the end: %s", resp.Status)
	}

	// Held at 4: the first four bytes come, the rest once the gate moves; a client that goes
	// away while held ends its request.
	gate := r.Gate(m.Layers[0].Digest, 4)
	before := r.Served(m.Layers[0].Digest)
	resp = get(t, noRedirect, http.MethodGet, store.String(), "bytes=2-")
	head := make([]byte, 2)
	if _, err := io.ReadFull(resp.Body, head); err != nil || string(head) != "23" {
		t.Fatalf("before the gate: %q %v", head, err)
	}
	<-gate.Reached()
	gate.Open()
	if rest := read(t, resp); rest != "456789" {
		t.Fatalf("after the gate: %q", rest)
	}
	if got := r.Served(m.Layers[0].Digest) - before; got != 8 {
		t.Fatalf("served %d bytes, want 8", got)
	}
	gate.MoveTo(0)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, store.String(), nil)
	held, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	held.Body.Close()
}

func get(t *testing.T, c *http.Client, method, url, rng string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	if rng != "" {
		req.Header.Set("Range", rng)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func read(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
