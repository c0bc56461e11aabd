package app

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestClearBrowserData: the app's browser runs in a profile under the data directory, and
// Settings' "Clear browser data" closes it and deletes the profile (cookies, storage).
func TestClearBrowserData(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := f.app.Browser.Navigate(ctx, "s", "about:blank"); err != nil {
		t.Fatal(err)
	}
	profile := filepath.Join(f.store.Dir(), "browser")
	if !exists(profile) || !f.app.Browser.Running() {
		t.Fatalf("the browser did not start in %s", profile)
	}
	if err := f.app.Settings.ClearBrowserData(); err != nil {
		t.Fatal(err)
	}
	if exists(profile) || f.app.Browser.Running() {
		t.Fatal("the profile is still there, or the browser still runs")
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
