package memory

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tofu-research/tofu/backend/search"
)

// ProjectDir is where a workspace keeps its records.
const ProjectDir = ".tofu/memory"

// ErrNotFound means no record has the ID.
var ErrNotFound = errors.New("no memory record with that id")

// Store reads and writes the records of both scopes and keeps a search index per workspace,
// brought up to date from the files before each search (a user may edit them by hand).
type Store struct {
	global string // the global scope's folder
	an     *search.Analyzer
	now    func() time.Time

	mu      sync.Mutex
	indexes map[string]*wsIndex // by workspace ("" : global records only)
	watch   *folderWatch        // which folders changed since they were scanned
}

// wsIndex is the index of one workspace's records and of the global ones.
type wsIndex struct {
	ix    *search.Index
	files map[string]fileStamp // path → what was indexed
	recs  map[string]Record    // ID → record
	// stamps are the folders' watch stamps at their last scan (folderWatch): a folder whose
	// stamp did not move is not listed again.
	stamps map[string]uint64
	dirs   []string // the folders of the last refresh
	// disabled counts the disabled records: a search asks the index for that many hits more
	// than it returns, instead of ranking every record.
	disabled int
}

func (w *wsIndex) countDisabled() {
	w.disabled = 0
	for _, r := range w.recs {
		if !r.Enabled {
			w.disabled++
		}
	}
}

type fileStamp struct {
	mod  time.Time
	size int64
}

// fields of a record in the index: the name counts twice (it is what a record is about).
var fields = []search.Field{{Name: "name", Weight: 2}, {Name: "description", Weight: 1}, {Name: "tags", Weight: 1}, {Name: "body", Weight: 1}}

// NewStore keeps global records in globalDir (created when first written).
func NewStore(globalDir string) *Store {
	return &Store{global: globalDir, an: search.NewAnalyzer(), now: time.Now, indexes: map[string]*wsIndex{}, watch: newFolderWatch()}
}

// dir is the folder of scope for workspace ("" when the scope has none). A project folder
// that a link leads outside the workspace counts as none: a cloned repository could otherwise
// make memory read or write anywhere, unasked.
func (s *Store) dir(workspace, scope string) string {
	switch scope {
	case ScopeGlobal:
		return s.global
	case ScopeProject:
		if workspace != "" && projectDirInside(workspace) {
			return filepath.Join(workspace, ProjectDir)
		}
	}
	return ""
}

// projectDirInside reports whether the workspace's memory folder, or the part of its path
// that exists, stays inside the workspace once links are resolved.
func projectDirInside(workspace string) bool {
	root, err := filepath.EvalSymlinks(workspace)
	if err != nil {
		return false
	}
	p := filepath.Join(workspace, ProjectDir)
	for {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			rel, err := filepath.Rel(root, real)
			return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return false
		}
		if _, lerr := os.Lstat(p); lerr == nil {
			return false // a dangling link: it would be created outside
		}
		parent := filepath.Dir(p)
		if parent == p || parent == filepath.Clean(workspace) {
			return true
		}
		p = parent
	}
}

// List returns the records of both scopes, project first, each by name.
func (s *Store) List(workspace string) ([]Record, error) {
	w, err := s.refresh(workspace)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	out := make([]Record, 0, len(w.recs))
	for _, r := range w.recs {
		out = append(out, r)
	}
	s.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		if out[i].Scope != out[j].Scope {
			return out[i].Scope == ScopeProject
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// Get returns one record.
func (s *Store) Get(workspace, id string) (Record, error) {
	w, err := s.refresh(workspace)
	if err != nil {
		return Record{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := w.recs[id]
	if !ok {
		return Record{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	return r, nil
}

// Found is a record a search returned.
type Found struct {
	Record
	Score   float64 `json:"score"`
	Matched int     `json:"matched"`
}

// Search ranks the enabled records (all, with disabled) for a query; k ≤ 0 means all.
func (s *Store) Search(workspace, query string, k int, disabled bool) ([]Found, error) {
	w, err := s.refresh(workspace)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	want := 0 // all
	if k > 0 {
		want = k
		if !disabled {
			want += w.disabled // the disabled ones may rank first: k enabled are among these
		}
	}
	s.mu.Unlock()
	hits := w.ix.Search(query, want)
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Found
	for _, h := range hits {
		r, ok := w.recs[h.ID]
		if !ok || (!r.Enabled && !disabled) {
			continue
		}
		out = append(out, Found{Record: r, Score: h.Score, Matched: h.Matched})
		if k > 0 && len(out) == k {
			break
		}
	}
	return out, nil
}

// Create writes a new record; its scope defaults to the project's when there is a workspace.
// The file name comes from the name (a number is added when taken).
func (s *Store) Create(workspace string, r Record) (Record, error) {
	if strings.TrimSpace(r.Name) == "" {
		return Record{}, errors.New("a memory needs a name")
	}
	if r.Scope == "" {
		r.Scope = ScopeGlobal
		if workspace != "" {
			r.Scope = ScopeProject
		}
	}
	dir := s.dir(workspace, r.Scope)
	if dir == "" && r.Scope == ScopeProject && workspace != "" {
		return Record{}, fmt.Errorf("the workspace's %s leads outside the workspace: no project memory here", ProjectDir)
	}
	if dir == "" {
		return Record{}, fmt.Errorf("scope %q: want project (with a workspace) or global", r.Scope)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Record{}, fmt.Errorf("memory folder: %w", err)
	}
	base := slug(r.Name)
	name := base
	for i := 2; ; i++ {
		if _, err := os.Lstat(filepath.Join(dir, name+".md")); errors.Is(err, fs.ErrNotExist) {
			break
		}
		name = fmt.Sprintf("%s-%d", base, i)
	}
	now := s.now().UTC().Truncate(time.Second)
	r.Created, r.Updated, r.Enabled = now, now, true
	r.ID, r.Path = r.Scope+":"+name, filepath.Join(dir, name+".md")
	if err := writeFile(r.Path, r.Format(), true); err != nil {
		return Record{}, err
	}
	_, err := s.refresh(workspace)
	return r, err
}

// Update changes a record in place through edit (its ID, scope, path and creation stay).
func (s *Store) Update(workspace, id string, edit func(*Record)) (Record, error) {
	r, err := s.Get(workspace, id)
	if err != nil {
		return Record{}, err
	}
	keep := r
	edit(&r)
	r.ID, r.Scope, r.Path, r.Created = keep.ID, keep.Scope, keep.Path, keep.Created
	if strings.TrimSpace(r.Name) == "" {
		return Record{}, errors.New("a memory needs a name")
	}
	r.Updated = s.now().UTC().Truncate(time.Second)
	if err := writeFile(r.Path, r.Format(), false); err != nil {
		return Record{}, err
	}
	_, err = s.refresh(workspace)
	return r, err
}

// Delete removes a record's file.
func (s *Store) Delete(workspace, id string) error {
	r, err := s.Get(workspace, id)
	if err != nil {
		return err
	}
	if err := os.Remove(r.Path); err != nil {
		return fmt.Errorf("delete memory %s: %w", id, err)
	}
	_, err = s.refresh(workspace)
	return err
}

// Merge writes into as a new record whose tags are the union of the sources', then deletes
// the sources: several notes on one subject become one.
func (s *Store) Merge(workspace string, ids []string, into Record) (Record, error) {
	if len(ids) < 2 {
		return Record{}, errors.New("merge needs at least two ids")
	}
	var srcs []Record
	tags := map[string]bool{}
	for _, t := range into.Tags {
		tags[t] = true
	}
	for _, id := range ids {
		r, err := s.Get(workspace, id)
		if err != nil {
			return Record{}, err
		}
		srcs = append(srcs, r)
		for _, t := range r.Tags {
			if !tags[t] {
				tags[t] = true
				into.Tags = append(into.Tags, t)
			}
		}
	}
	if into.Scope == "" {
		into.Scope = srcs[0].Scope
	}
	merged, err := s.Create(workspace, into)
	if err != nil {
		return Record{}, err
	}
	for _, r := range srcs {
		if err := s.Delete(workspace, r.ID); err != nil {
			return merged, err
		}
	}
	return merged, nil
}

// refresh brings a workspace's index up to date with the files of both scopes.
func (s *Store) refresh(workspace string) (*wsIndex, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.indexes[workspace]
	if w == nil {
		w = &wsIndex{ix: search.NewIndex(s.an, search.DefaultParams, fields...), files: map[string]fileStamp{}, recs: map[string]Record{},
			stamps: map[string]uint64{}}
		s.indexes[workspace] = w
	}
	seen := map[string]bool{}
	scanned := map[string]bool{}
	var dirs []string
	for _, scope := range []string{ScopeProject, ScopeGlobal} {
		dir := s.dir(workspace, scope)
		if dir == "" {
			continue
		}
		dir = filepath.Clean(dir) // as filepath.Dir gives it back below
		dirs = append(dirs, dir)
		if s.watch.unchanged(dir, w.stamps[dir]) {
			continue // nothing happened in it since the last scan
		}
		w.stamps[dir] = s.watch.watch(dir)
		scanned[dir] = true
		entries, err := os.ReadDir(dir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("read memory folder %s: %w", dir, err)
		}
		for _, e := range entries {
			// Regular files only: a linked record could show the model a file from anywhere.
			if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".md") {
				continue
			}
			path := filepath.Join(dir, e.Name())
			seen[path] = true
			info, err := e.Info()
			if err != nil {
				continue
			}
			stamp := fileStamp{mod: info.ModTime(), size: info.Size()}
			if old, ok := w.files[path]; ok && old == stamp {
				continue
			}
			w.files[path] = stamp
			id := scope + ":" + strings.TrimSuffix(e.Name(), ".md")
			r, err := readRecord(path)
			if err != nil {
				// A file a user broke is kept out of the index, not fatal to the others.
				w.ix.Remove(id)
				delete(w.recs, id)
				continue
			}
			r.ID, r.Scope, r.Path = id, scope, path
			if r.Name == "" {
				r.Name = strings.TrimSuffix(e.Name(), ".md")
			}
			w.recs[id] = r
			w.ix.Add(search.Doc{ID: id, Fields: []string{r.Name, r.Description, strings.Join(r.Tags, " "), r.Body}})
		}
	}
	if len(scanned) == 0 && slices.Equal(dirs, w.dirs) {
		return w, nil
	}
	defer w.countDisabled()
	w.dirs = dirs
	for path := range w.files {
		if d := filepath.Dir(path); !seen[path] && (scanned[d] || !slices.Contains(dirs, d)) {
			delete(w.files, path)
			for id, r := range w.recs {
				if r.Path == path {
					delete(w.recs, id)
					w.ix.Remove(id)
				}
			}
		}
	}
	return w, nil
}

func readRecord(path string) (Record, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Record{}, err
	}
	if !utf8.Valid(data) {
		return Record{}, fmt.Errorf("%s is not UTF-8", path)
	}
	return Parse(string(data))
}

// writeFile writes atomically (a temp file renamed over); exclusive refuses an existing file.
func writeFile(path, text string, exclusive bool) error {
	if exclusive {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return fmt.Errorf("create memory %s: %w", path, err)
		}
		_, err = f.WriteString(text)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".memory-*")
	if err != nil {
		return fmt.Errorf("write memory %s: %w", path, err)
	}
	_, err = tmp.WriteString(text)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write memory %s: %w", path, err)
	}
	return nil
}

// slug makes a file name from a record's name: letters and digits of any script, dashes
// between words, at most 60 bytes.
func slug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			if b.Len()+utf8.RuneLen(r) > 60 {
				break
			}
			b.WriteRune(r)
		} else {
			dash = true
		}
	}
	if b.Len() == 0 {
		return "memory"
	}
	return b.String()
}
