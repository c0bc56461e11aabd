package sandbox

import "testing"

// A successful probe is found again for the same key only; a failure is never kept.
func TestProbeCache(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	ok := Status{Available: true, Mechanism: "bubblewrap 0.8.0", bwrap: "/usr/bin/bwrap"}
	rememberProbe("k1", ok)
	if got, hit := cachedProbe("k1"); !hit || got != ok {
		t.Fatalf("cached %+v %v", got, hit)
	}
	if _, hit := cachedProbe("k2"); hit {
		t.Fatal("another bubblewrap, user or boot found the probe of k1")
	}
	rememberProbe("k3", Status{Why: "no user namespaces"})
	if _, hit := cachedProbe("k3"); hit {
		t.Fatal("a failed probe was kept")
	}
	if _, hit := cachedProbe(""); hit {
		t.Fatal("an empty key found a probe")
	}
}
