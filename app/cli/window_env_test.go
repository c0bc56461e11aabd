package cli

import (
	"reflect"
	"testing"
)

func TestWindowEnv(t *testing.T) {
	env := func(kv ...string) func(string) (string, bool) {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
	}
	cases := []struct {
		name  string
		env   func(string) (string, bool)
		nodes []string
		want  []envSetting
	}{
		{"no GPU", env(), nil, []envSetting{
			{"WEBKIT_DISABLE_DMABUF_RENDERER", "1"}, {"GDK_GL", "disable"}, {"WEBKIT_WEB_RENDER_DEVICE_FILE", noRenderNode}}},
		{"the first render node", env(), []string{"/dev/dri/renderD128", "/dev/dri/renderD129"}, []envSetting{
			{"WEBKIT_DISABLE_DMABUF_RENDERER", "1"}, {"GDK_GL", "disable"}, {"WEBKIT_WEB_RENDER_DEVICE_FILE", "/dev/dri/renderD128"}}},
		{"the user's values stay", env("GDK_GL", "always", "WEBKIT_WEB_RENDER_DEVICE_FILE", "/dev/dri/renderD129"), []string{"/dev/dri/renderD128"}, []envSetting{
			{"WEBKIT_DISABLE_DMABUF_RENDERER", "1"}}},
		{"the user disabled the renderer too", env("WEBKIT_DISABLE_DMABUF_RENDERER", ""), nil, []envSetting{
			{"GDK_GL", "disable"}, {"WEBKIT_WEB_RENDER_DEVICE_FILE", noRenderNode}}},
		{"the user wants the DMA-BUF renderer, so GTK's GL too", env("WEBKIT_DISABLE_DMABUF_RENDERER", "0"), []string{"/dev/dri/renderD128"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := windowEnv(c.env, c.nodes); !reflect.DeepEqual(got, c.want) {
				t.Errorf("windowEnv = %v, want %v", got, c.want)
			}
		})
	}
}
