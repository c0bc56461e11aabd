package eval

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// RepoOptions say where a suite's repositories are.
type RepoOptions struct {
	// SuiteDir is the suite file's folder: a relative repo path is taken from there.
	SuiteDir string
	// Mirrors is a folder of local mirrors where SWE-bench's "owner/name" repos are looked up
	// (--repos): DIR/owner+name (what the fetch tool writes, its git directory in a "repo"
	// folder or at the top), DIR/owner/name, DIR/owner__name, each with or without ".git".
	Mirrors string
	// TestCmds is the test command per repository, by the repo as the suite writes it
	// ("owner/name" or a path), for tasks without test_cmd (--test-cmds).
	TestCmds map[string]string
}

// ResolveRepos replaces each task's repo by the git repository on disk it names, and gives a
// task without test_cmd its repository's command from o.TestCmds. A repo found nowhere is an
// error naming the places tried.
func ResolveRepos(tasks []Task, o RepoOptions) error {
	for i := range tasks {
		t := &tasks[i]
		if t.TestCmd == "" {
			t.TestCmd = o.TestCmds[t.Repo]
		}
		path, err := findRepo(t.Repo, o)
		if err != nil {
			return fmt.Errorf("%s: %w", t.InstanceID, err)
		}
		t.Repo = path
	}
	return nil
}

func findRepo(repo string, o RepoOptions) (string, error) {
	var tried []string
	try := func(p string) bool {
		tried = append(tried, p)
		return isGitDir(p)
	}
	if filepath.IsAbs(repo) {
		if try(repo) {
			return repo, nil
		}
	} else {
		if p := filepath.Join(o.SuiteDir, repo); try(p) {
			return p, nil
		}
		if owner, name, ok := strings.Cut(repo, "/"); ok && o.Mirrors != "" && owner != "" && name != "" && !strings.Contains(name, "/") {
			for _, base := range []string{owner + "+" + name, filepath.Join(owner, name), owner + "__" + name} {
				for _, p := range []string{base, base + ".git", filepath.Join(base, "repo")} {
					if p := filepath.Join(o.Mirrors, p); try(p) {
						return p, nil
					}
				}
			}
		}
	}
	hint := ""
	if o.Mirrors == "" && !filepath.IsAbs(repo) && strings.Count(repo, "/") == 1 {
		hint = " (an owner/name repo is looked up in --repos DIR)"
	}
	return "", fmt.Errorf("repo %q is not a git repository on disk%s; tried %s", repo, hint, strings.Join(tried, ", "))
}

// isGitDir says whether p is a checkout (with .git) or a bare repository.
func isGitDir(p string) bool {
	if fi, err := os.Stat(filepath.Join(p, ".git")); err == nil && (fi.IsDir() || fi.Mode().IsRegular()) {
		return true
	}
	head, err1 := os.Stat(filepath.Join(p, "HEAD"))
	objects, err2 := os.Stat(filepath.Join(p, "objects"))
	return err1 == nil && err2 == nil && head.Mode().IsRegular() && objects.IsDir()
}
