// Package registrytest serves models on loopback the way a model registry does, for tests that
// pull with a real Ollama: the subset of the OCI/Docker distribution protocol `ollama pull`
// speaks (manifests, blobs by HEAD and GET, a redirect to a blob store, byte ranges), with
// gates that hold a blob mid-way so a test can cancel and resume a pull without sleeping.
package registrytest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Media types of an Ollama model's manifest and layers.
const (
	ManifestType = "application/vnd.docker.distribution.manifest.v2+json"
	ConfigType   = "application/vnd.docker.container.image.v1+json"
	ModelType    = "application/vnd.ollama.image.model"
	TemplateType = "application/vnd.ollama.image.template"
)

// Descriptor names a blob in a manifest.
type Descriptor struct {
	MediaType string `json:"mediaType"`
	Digest    string `json:"digest"`
	Size      int64  `json:"size"`
}

// Manifest is what GET /v2/<ns>/<model>/manifests/<tag> answers.
type Manifest struct {
	SchemaVersion int          `json:"schemaVersion"`
	MediaType     string       `json:"mediaType"`
	Config        Descriptor   `json:"config"`
	Layers        []Descriptor `json:"layers"`
}

// Layer is one blob of a model, with its media type.
type Layer struct {
	MediaType string
	Data      []byte
}

// Request is one request the registry answered, as a test checks it.
type Request struct {
	Method string
	Path   string
	Range  string // the Range header, "" for none
	Bytes  int64  // body bytes written
}

// Registry is a registry on 127.0.0.1. Blob GETs are redirected to the same server reached as
// "localhost", as registries send clients to a storage host: Ollama asks the registry for the
// blob's address first and then fetches ranges from there.
type Registry struct {
	// Host is "127.0.0.1:PORT": a model is pulled as Host + "/ns/model:tag".
	Host string
	srv  *http.Server
	port string

	mu        sync.Mutex
	manifests map[string][]byte // "ns/model:tag"
	blobs     map[string][]byte // by digest
	gates     map[string]*Gate
	requests  []Request
}

// New starts a registry; it stops at the test's cleanup.
func New(t testing.TB) *Registry {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &Registry{Host: l.Addr().String(), manifests: map[string][]byte{}, blobs: map[string][]byte{}, gates: map[string]*Gate{}}
	_, r.port, _ = net.SplitHostPort(r.Host)
	r.srv = &http.Server{Handler: r}
	go r.srv.Serve(l)
	t.Cleanup(func() {
		r.mu.Lock()
		for _, g := range r.gates {
			g.Open()
		}
		r.mu.Unlock()
		r.srv.Close()
	})
	return r
}

// Name is the name to pull ref ("ns/model:tag") by.
func (r *Registry) Name(ref string) string { return r.Host + "/" + ref }

// Digest is a blob's content address.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Push stores the layers and a config blob naming them, and serves their manifest as ref.
func (r *Registry) Push(ref string, config []byte, layers ...Layer) Manifest {
	m := Manifest{SchemaVersion: 2, MediaType: ManifestType,
		Config: Descriptor{MediaType: ConfigType, Digest: Digest(config), Size: int64(len(config))}}
	r.mu.Lock()
	r.blobs[m.Config.Digest] = config
	for _, l := range layers {
		d := Descriptor{MediaType: l.MediaType, Digest: Digest(l.Data), Size: int64(len(l.Data))}
		r.blobs[d.Digest] = l.Data
		m.Layers = append(m.Layers, d)
	}
	r.mu.Unlock()
	r.PushManifest(ref, m)
	return m
}

// PushManifest serves m as ref whether or not its blobs are stored: a manifest whose layers
// say more than any machine holds needs no such blob.
func (r *Registry) PushManifest(ref string, m Manifest) {
	b, _ := json.Marshal(m)
	r.mu.Lock()
	r.manifests[ref] = b
	r.mu.Unlock()
}

// OllamaModel pushes a GGUF file and a chat template as an Ollama model (the config blob as
// `ollama push` writes it: parameterSize such as "117K" and fileType such as "F32" are what
// /api/show reports) and returns the manifest.
func (r *Registry) OllamaModel(ref string, gguf []byte, template, parameterSize, fileType string) Manifest {
	model := Layer{ModelType, gguf}
	tmpl := Layer{TemplateType, []byte(template)}
	config, _ := json.Marshal(map[string]any{
		"model_format": "gguf", "model_family": "llama", "model_families": []string{"llama"},
		"model_type": parameterSize, "file_type": fileType, "architecture": "amd64", "os": "linux",
		"rootfs": map[string]any{"type": "layers", "diff_ids": []string{Digest(model.Data), Digest(tmpl.Data)}},
	})
	return r.Push(ref, config, model, tmpl)
}

// Requests are the requests answered so far.
func (r *Registry) Requests() []Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Request(nil), r.requests...)
}

// Served is the number of body bytes of the blob digest written so far, over all requests.
func (r *Registry) Served(digest string) int64 {
	var n int64
	for _, q := range r.Requests() {
		if strings.HasSuffix(q.Path, "/"+digest) {
			n += q.Bytes
		}
	}
	return n
}

// ServeHTTP answers the distribution API: GET /v2/<ns>/<model>/manifests/<tag>, HEAD and GET
// /v2/<ns>/<model>/blobs/<digest> (a GET is redirected to /store/<digest> on "localhost"), and
// GET /store/<digest> with or without a Range.
func (r *Registry) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	i := len(r.requests)
	r.requests = append(r.requests, Request{Method: req.Method, Path: req.URL.Path, Range: req.Header.Get("Range")})
	r.mu.Unlock()
	p := req.URL.Path
	switch {
	case strings.HasPrefix(p, "/v2/") && strings.Contains(p, "/manifests/"):
		repo, tag, _ := strings.Cut(strings.TrimPrefix(p, "/v2/"), "/manifests/")
		r.mu.Lock()
		b, ok := r.manifests[repo+":"+tag]
		r.mu.Unlock()
		if !ok {
			writeError(w, http.StatusNotFound, "MANIFEST_UNKNOWN", "manifest unknown")
			return
		}
		w.Header().Set("Content-Type", ManifestType)
		w.Header().Set("Docker-Content-Digest", Digest(b))
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		if req.Method == http.MethodGet {
			n, _ := w.Write(b)
			r.count(i, n)
		}
	case strings.HasPrefix(p, "/v2/") && strings.Contains(p, "/blobs/"):
		digest := p[strings.LastIndex(p, "/")+1:]
		data, ok := r.blob(digest)
		if !ok {
			writeError(w, http.StatusNotFound, "BLOB_UNKNOWN", "blob unknown to registry")
			return
		}
		if req.Method == http.MethodHead {
			w.Header().Set("Content-Length", strconv.Itoa(len(data)))
			w.WriteHeader(http.StatusOK)
			return
		}
		http.Redirect(w, req, "http://localhost:"+r.port+"/store/"+digest, http.StatusTemporaryRedirect)
	case strings.HasPrefix(p, "/store/") && req.Method == http.MethodGet:
		digest := strings.TrimPrefix(p, "/store/")
		data, ok := r.blob(digest)
		if !ok {
			writeError(w, http.StatusNotFound, "BLOB_UNKNOWN", "blob unknown to registry")
			return
		}
		r.serveBlob(w, req, i, digest, data)
	default:
		writeError(w, http.StatusNotFound, "NAME_UNKNOWN", "no such route: "+req.Method+" "+p)
	}
}

func (r *Registry) blob(digest string) ([]byte, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	b, ok := r.blobs[digest]
	return b, ok
}

// count adds n body bytes to request i, as they go out: a test reads them while a request
// waits at a gate.
func (r *Registry) count(i, n int) {
	r.mu.Lock()
	r.requests[i].Bytes += int64(n)
	r.mu.Unlock()
}

// serveBlob writes data, or the range asked for, through the blob's gate, as request i.
func (r *Registry) serveBlob(w http.ResponseWriter, req *http.Request, i int, digest string, data []byte) {
	start, end := int64(0), int64(len(data))
	status := http.StatusOK
	if h := req.Header.Get("Range"); h != "" {
		s, e, err := parseRange(h, int64(len(data)))
		if err != nil {
			w.Header().Set("Content-Range", fmt.Sprintf("bytes */%d", len(data)))
			http.Error(w, err.Error(), http.StatusRequestedRangeNotSatisfiable)
			return
		}
		start, end, status = s, e, http.StatusPartialContent
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", s, e-1, len(data)))
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.FormatInt(end-start, 10))
	w.WriteHeader(status)
	flush(w) // the headers go out even while the gate holds every byte
	r.mu.Lock()
	g := r.gates[digest]
	r.mu.Unlock()
	for pos := start; pos < end; {
		limit := end
		if g != nil {
			var ok bool
			if limit, ok = g.wait(req, pos, end); !ok {
				return // the client went away
			}
		}
		n, err := w.Write(data[pos:limit])
		r.count(i, n)
		pos += int64(n)
		if err != nil {
			return
		}
		flush(w)
	}
}

func flush(w http.ResponseWriter) {
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// parseRange reads "bytes=START-END" or "bytes=START-" (one range, what Ollama sends) into a
// half-open interval.
func parseRange(h string, size int64) (int64, int64, error) {
	spec, ok := strings.CutPrefix(h, "bytes=")
	if !ok || strings.Contains(spec, ",") {
		return 0, 0, fmt.Errorf("unsupported range %q", h)
	}
	a, b, _ := strings.Cut(spec, "-")
	start, err := strconv.ParseInt(a, 10, 64)
	if err != nil || start < 0 || start >= size {
		return 0, 0, fmt.Errorf("range %q outside 0-%d", h, size-1)
	}
	end := size
	if b != "" {
		last, err := strconv.ParseInt(b, 10, 64)
		if err != nil || last < start {
			return 0, 0, fmt.Errorf("bad range %q", h)
		}
		end = min(last+1, size)
	}
	return start, end, nil
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"errors": []map[string]string{{"code": code, "message": msg}}})
}
