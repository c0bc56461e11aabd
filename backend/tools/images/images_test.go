package images

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
)

// fakeImages is an images provider on loopback: it checks the request and answers with a real
// 8×8 PNG as b64_json.
func fakeImages(t *testing.T) (*httptest.Server, []byte, *map[string]any) {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	img.Set(3, 3, color.RGBA{200, 100, 0, 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	got := map[string]any{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/images/generations" || r.Header.Get("Authorization") != "Bearer k1" {
			http.Error(w, "bad request "+r.URL.Path, http.StatusBadRequest)
			return
		}
		json.NewDecoder(r.Body).Decode(&got)
		json.NewEncoder(w).Encode(map[string]any{"data": []map[string]string{{"b64_json": base64.StdEncoding.EncodeToString(buf.Bytes())}}})
	}))
	t.Cleanup(srv.Close)
	return srv, buf.Bytes(), &got
}

func call(t *testing.T, reg *tools.Registry, ws, args string) tools.Result {
	t.Helper()
	res, err := reg.Run(context.Background(), tools.Call{Name: "generate_image", Workspace: ws, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestGenerateImageIntoTheWorkspace(t *testing.T) {
	t.Parallel()
	srv, want, got := fakeImages(t)
	reg := tools.NewRegistry()
	if err := Add(reg, Provider{BaseURL: srv.URL, Model: "gpt-image-1", Key: "k1"}, nil); err != nil {
		t.Fatal(err)
	}
	if len(reg.Specs()) != 1 || reg.Specs()[0].Name != "tool_search" {
		t.Fatalf("generate_image is offered up front: %v", reg.Specs())
	}
	ws := t.TempDir()
	res := call(t, reg, ws, `{"prompt":"A tofu block, watercolor!"}`)
	if res.IsError || len(res.Images) != 1 || !bytes.Equal(res.Images[0], want) {
		t.Fatalf("result: %+v", res.Text)
	}
	saved, err := os.ReadFile(filepath.Join(ws, "images", "a-tofu-block-watercolor.png"))
	if err != nil || !bytes.Equal(saved, want) {
		t.Fatalf("saved: %v", err)
	}
	if (*got)["model"] != "gpt-image-1" || (*got)["response_format"] != "b64_json" || (*got)["prompt"] != "A tofu block, watercolor!" {
		t.Fatalf("request: %v", *got)
	}
	// A path that leaves the workspace is refused by the os.Root.
	if res, err := reg.Run(context.Background(), tools.Call{Name: "generate_image", Workspace: ws,
		Arguments: json.RawMessage(`{"prompt":"x","path":"../escape.png"}`)}); err == nil && !res.IsError {
		t.Fatalf("escaped: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(ws), "escape.png")); err == nil {
		t.Fatal("the image was written outside the workspace")
	}
}

func TestGenerateImageIntoBlobs(t *testing.T) {
	t.Parallel()
	srv, want, _ := fakeImages(t)
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	reg := tools.NewRegistry()
	if err := Add(reg, Provider{BaseURL: srv.URL, Key: "k1"}, st); err != nil {
		t.Fatal(err)
	}
	res := call(t, reg, "", `{"prompt":"x"}`)
	key := res.Text[strings.Index(res.Text, "img/") : len(res.Text)-2]
	if b, err := st.BlobBytes(key); err != nil || !bytes.Equal(b, want) {
		t.Fatalf("blob %q: %v (%s)", key, err, res.Text)
	}
}

// A provider's failure reaches the model as its message and what to do, not as a raw body:
// a refused key, a server error, a model the provider lacks, a server that is not there.
func TestProviderErrorsAreToldToTheModel(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Header.Get("Authorization") {
		case "Bearer wrong":
			http.Error(w, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}`, http.StatusUnauthorized)
		case "Bearer busy":
			http.Error(w, `{"error":"the GPU fell over"}`, http.StatusInternalServerError)
		default:
			http.Error(w, `{"error":{"message":"The model 'sdxl' does not exist"}}`, http.StatusNotFound)
		}
	}))
	t.Cleanup(srv.Close)
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	for _, tc := range []struct {
		p    Provider
		want string
	}{
		{Provider{BaseURL: srv.URL, Key: "wrong"}, "The images provider failed: images: Incorrect API key provided. Check the images API key in Settings"},
		{Provider{BaseURL: srv.URL, Key: "busy"}, "images: the GPU fell over. The images provider failed; try again."},
		{Provider{BaseURL: srv.URL, Model: "sdxl"}, `images: model "sdxl" is not available at ` + srv.URL + `: The model 'sdxl' does not exist. Choose a model`},
		{Provider{BaseURL: gone.URL}, "images: cannot reach " + gone.URL},
	} {
		reg := tools.NewRegistry()
		Add(reg, tc.p, nil)
		if res := call(t, reg, t.TempDir(), `{"prompt":"x"}`); !res.IsError || !strings.Contains(res.Text, tc.want) {
			t.Errorf("key %q: %q, want it to say %q", tc.p.Key, res.Text, tc.want)
		}
	}
}
