package rundir

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// MarkerName is the file that marks a folder as trellis's: in a partial
// folder it holds the lock and who holds it; in a committed run it also
// lists every file and folder the run wrote.
const MarkerName = ".trellis-run"

// Marker is the content of MarkerName.
type Marker struct {
	// Format is the marker's version.
	Format  int       `json:"trellis_run"`
	PID     int       `json:"pid"`
	Command []string  `json:"command"`
	Started time.Time `json:"started"`
	// Files lists, relative to the run directory with '/' separators, every
	// file and folder (with a trailing '/') the run wrote. It is set when
	// the run is committed; a partial folder has none.
	Files []string `json:"files,omitempty"`
}

const markerFormat = 1

// Options say how to open a run directory.
type Options struct {
	// Resume continues in the partial folder an interrupted run left.
	Resume bool
	// Force lets a run replace a DIR that holds files trellis did not
	// write: they are set aside (DIR renamed to DIR.set-aside-TIME), never
	// deleted.
	Force bool
	// Command is recorded in the marker (for the busy message and the
	// user's curiosity).
	Command []string
}

// ForeignError is a run directory that holds something trellis did not
// write.
type ForeignError struct {
	Dir string
	// Symlink is set when Dir is a symbolic link (which a run would
	// replace by a folder).
	Symlink bool
	// Entries are some of the foreign files and folders, relative to Dir
	// (empty when Dir itself is not a folder).
	Entries []string
	// Finished is set when the run finished and only its commit was
	// refused; its results wait in Partial.
	Finished bool
	Partial  string
}

func (e *ForeignError) Error() string {
	what := fmt.Sprintf("%s is not a folder", e.Dir)
	if e.Symlink {
		what = fmt.Sprintf("%s is a symbolic link; give the folder it points to", e.Dir)
	}
	if len(e.Entries) > 0 {
		what = fmt.Sprintf("%s holds files trellis did not write (%s)", e.Dir, strings.Join(e.Entries, ", "))
	}
	if e.Finished {
		return fmt.Sprintf("the run finished, but meanwhile %s, so the run did not replace it; its results are in %s", what, e.Partial)
	}
	return fmt.Sprintf("--out %s: %s; a run replaces its folder as a whole, so it refuses: choose another --out, or add --force to set the folder aside (renamed beside it, nothing deleted)", e.Dir, what)
}

// BusyError is a run directory another trellis run is writing.
type BusyError struct {
	Dir    string
	Holder Marker
}

func (e *BusyError) Error() string {
	who := "another trellis run"
	if e.Holder.PID > 0 {
		who = fmt.Sprintf("another trellis run (pid %d, started %s: %s)", e.Holder.PID,
			e.Holder.Started.Local().Format(time.DateTime), strings.Join(e.Holder.Command, " "))
	}
	return fmt.Sprintf("%s is writing %s; wait for it to end, or choose another --out", who, e.Dir)
}

// Run is an open run directory: the run writes into Work and Commit makes
// it Path's content.
type Run struct {
	// Path is the run directory, as an absolute path.
	Path string
	// Work is the partial folder the run writes into.
	Work string
	// Resumed is set when Work holds an interrupted run's state.
	Resumed bool
	// Discarded is set when Open cleared an interrupted run's partial
	// folder to start afresh.
	Discarded bool

	force   bool
	marker  Marker
	lock    *os.File
	created []string // parent folders Open made, deepest first
}

// PartialPath returns the partial folder of run directory dir.
func PartialPath(dir string) string {
	dir = filepath.Clean(dir)
	return filepath.Join(filepath.Dir(dir), "."+filepath.Base(dir)+".trellis-partial")
}

// Open prepares a run into dir: it checks that dir is absent, empty or a
// trellis run, and makes (or, with Resume, reopens) the locked partial
// folder the run writes into.
func Open(dir string, o Options) (*Run, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	r := &Run{Path: abs, Work: PartialPath(abs), force: o.Force,
		marker: Marker{Format: markerFormat, PID: os.Getpid(), Command: o.Command, Started: time.Now().UTC().Truncate(time.Second)}}
	if r.created, err = mkdirAll(filepath.Dir(abs)); err != nil {
		return nil, fmt.Errorf("output folder: %w", err)
	}
	if st, err := os.Stat(abs); err == nil && st.IsDir() && st.Mode().Perm()&0o200 == 0 {
		// Somebody made it read-only; replacing it would undo that.
		r.removeCreated()
		return nil, fmt.Errorf("output folder: %s is read-only", abs)
	}
	if isMountPoint(abs) {
		// A mount point cannot be renamed, so a run could never commit.
		r.removeCreated()
		return nil, fmt.Errorf("output folder: %s is a mount point, which a run cannot replace by renaming; give a folder inside it", abs)
	}
	if !o.Force {
		if err := checkOwned(abs); err != nil {
			r.removeCreated()
			return nil, err
		}
	}
	if err := r.openWork(o.Resume); err != nil {
		r.removeCreated()
		return nil, err
	}
	return r, nil
}

// openWork makes and locks the partial folder, or takes over the one an
// interrupted run left.
func (r *Run) openWork(resume bool) error {
	if !resume {
		err := os.Mkdir(r.Work, 0o755)
		if err == nil {
			return r.lockWork(true)
		}
		if !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("output folder: %w", err)
		}
	}
	if err := r.lockWork(false); err != nil {
		return err
	}
	if resume {
		r.Resumed = true
		return nil
	}
	// An interrupted run's partial folder, ours by its marker: a fresh
	// run starts from nothing.
	entries, err := os.ReadDir(r.Work)
	if err != nil {
		r.Close()
		return err
	}
	for _, e := range entries {
		if e.Name() == MarkerName {
			continue
		}
		if err := os.RemoveAll(filepath.Join(r.Work, e.Name())); err != nil {
			r.Close()
			return err
		}
	}
	r.Discarded = len(entries) > 1
	return nil
}

// lockWork opens the partial folder's marker (creating it in a folder
// Open just made) and takes its lock, so that a second run into the same
// directory refuses.
func (r *Run) lockWork(fresh bool) error {
	path := filepath.Join(r.Work, MarkerName)
	flags := os.O_RDWR
	if fresh {
		flags |= os.O_CREATE | os.O_EXCL
	}
	f, err := os.OpenFile(path, flags, 0o644)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !fresh:
		if _, statErr := os.Stat(r.Work); errors.Is(statErr, fs.ErrNotExist) {
			return fmt.Errorf("%s has no interrupted run to resume", r.Path)
		}
		return fmt.Errorf("%s is not a trellis partial run folder (no %s); remove it or choose another --out", r.Work, MarkerName)
	case err != nil:
		return fmt.Errorf("output folder: %w", err)
	}
	if err := tryLock(f); err != nil {
		var holder Marker
		json.NewDecoder(f).Decode(&holder)
		f.Close()
		if errors.Is(err, errLocked) {
			return &BusyError{Dir: r.Path, Holder: holder}
		}
		return fmt.Errorf("locking %s: %w", path, err)
	}
	r.lock = f
	if !fresh {
		var old Marker
		if err := json.NewDecoder(f).Decode(&old); err != nil || old.Format == 0 {
			r.Close()
			return fmt.Errorf("%s is not a trellis partial run folder (%s unreadable); remove it or choose another --out", r.Work, MarkerName)
		}
		if len(old.Files) > 0 {
			// A committed run: the content an earlier commit replaced, left
			// by a process that died before removing it.
			r.Close()
			if err := os.RemoveAll(r.Work); err != nil {
				return err
			}
			if err := os.Mkdir(r.Work, 0o755); err != nil {
				return fmt.Errorf("output folder: %w", err)
			}
			return r.lockWork(true)
		}
	}
	return r.writeMarker()
}

// writeMarker rewrites the locked marker in place (the lock belongs to
// its inode, which a rename would replace).
func (r *Run) writeMarker() error {
	b, err := json.MarshalIndent(r.marker, "", "  ")
	if err != nil {
		return err
	}
	if err := r.lock.Truncate(0); err != nil {
		return err
	}
	if _, err := r.lock.WriteAt(append(b, '\n'), 0); err != nil {
		return err
	}
	return r.lock.Sync()
}

// Commit makes the partial folder the run directory's content: the
// previous run there is replaced as a whole (or, with Force, whatever was
// there is set aside; setAside names where). When the directory gained
// foreign files while the run worked, Commit refuses with a ForeignError
// and moves the finished run to a visible folder beside it, named in the
// error, where nothing will discard it.
func (r *Run) Commit() (setAside string, err error) {
	if r.lock == nil {
		return "", errors.New("rundir: commit of a closed run")
	}
	defer r.Close()
	files, err := inventory(r.Work)
	if err != nil {
		return "", r.unplaced(files, err)
	}
	foreign := checkOwned(r.Path)
	var fe *ForeignError
	switch {
	case foreign == nil:
	case r.force:
		// Foreign, or unreadable: either way not provably ours, so it
		// goes aside whole.
		if setAside, err = r.setAside(); err != nil {
			return "", r.unplaced(files, err)
		}
	case errors.As(foreign, &fe):
		fe.Finished = true
		if fe.Partial, err = r.moveBeside(files); err != nil {
			return "", fmt.Errorf("%v; moving the finished run out of %s failed too: %w", fe, r.Work, err)
		}
		return "", fe
	default:
		return "", r.unplaced(files, foreign)
	}
	// The previous run's marker stays locked while it is swapped out and
	// removed, so that a run starting meanwhile sees it busy instead of
	// taking it for leftovers to clear.
	previous := lockMarker(filepath.Join(r.Path, MarkerName))
	defer closeFile(previous)
	// Marked committed only now: a partial folder whose marker lists its
	// files is, to a later Open, a replaced run left over to delete.
	r.marker.Files = files
	if err := r.writeMarker(); err != nil {
		return setAside, r.unplaced(files, err)
	}
	if err := replace(r.Work, r.Path, exchange); err != nil {
		return setAside, r.unplaced(files, err)
	}
	return setAside, nil
}

// unplaced moves a finished run whose commit failed to a visible folder
// beside the run directory, where no later run discards it, and returns
// cause with where the results are.
func (r *Run) unplaced(files []string, cause error) error {
	name, err := r.moveBeside(files)
	if err != nil {
		r.marker.Files = nil
		r.writeMarker()
		return fmt.Errorf("the run finished but could not replace %s: %w; its results are in %s (moving them beside it failed too: %v)", r.Path, cause, r.Work, err)
	}
	return fmt.Errorf("the run finished but could not replace %s: %w; its results are in %s", r.Path, cause, name)
}

// lockMarker opens and locks a committed run's marker, or returns nil.
func lockMarker(path string) *os.File {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil
	}
	if tryLock(f) != nil {
		f.Close()
		return nil
	}
	return f
}

func closeFile(f *os.File) {
	if f != nil {
		f.Close()
	}
}

// moveBeside gives a finished run that may not replace the run directory
// a folder of its own beside it, marked as a complete run.
func (r *Run) moveBeside(files []string) (string, error) {
	name, err := freeName(r.Path + ".unplaced-" + time.Now().Format("20060102-150405"))
	if err != nil {
		return "", err
	}
	r.marker.Files = files
	if err := r.writeMarker(); err != nil {
		return "", err
	}
	if err := os.Rename(r.Work, name); err != nil {
		r.marker.Files = nil
		r.writeMarker()
		return "", err
	}
	return name, nil
}

// setAside renames the run directory to a free name beside it.
func (r *Run) setAside() (string, error) {
	name, err := freeName(r.Path + ".set-aside-" + time.Now().Format("20060102-150405"))
	if err != nil {
		return "", err
	}
	if err := os.Rename(r.Path, name); err != nil {
		return "", fmt.Errorf("setting %s aside: %w", r.Path, err)
	}
	return name, nil
}

// Abort ends a run that failed. Its partial folder is removed unless
// keep is set (the run left state to resume from); folders Open made
// for it are removed if empty.
func (r *Run) Abort(keep bool) error {
	if r.lock == nil {
		return nil
	}
	var err error
	if !keep {
		err = os.RemoveAll(r.Work)
	}
	r.Close()
	if !keep {
		r.removeCreated()
	}
	return err
}

// Close releases the lock.
func (r *Run) Close() {
	if r.lock != nil {
		r.lock.Close()
		r.lock = nil
	}
}

func (r *Run) removeCreated() {
	for _, d := range r.created {
		if os.Remove(d) != nil {
			return
		}
	}
}

// mkdirAll is os.MkdirAll that returns the folders it made, deepest first.
func mkdirAll(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || filepath.Dir(d) == d {
			break
		}
		missing = append(missing, d)
	}
	return missing, os.MkdirAll(dir, 0o755)
}

// checkOwned returns a ForeignError unless dir is absent, an empty folder
// or a committed trellis run with nothing added.
func checkOwned(dir string) error {
	st, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return &ForeignError{Dir: dir, Symlink: st.Mode()&fs.ModeSymlink != 0}
	}
	listed := map[string]bool{}
	if b, err := os.ReadFile(filepath.Join(dir, MarkerName)); err == nil {
		var m Marker
		if json.Unmarshal(b, &m) == nil && m.Format > 0 {
			for _, f := range m.Files {
				listed[f] = true
			}
			listed[MarkerName] = true
		}
	}
	var foreign []string
	const shown = 5
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := relName(dir, path, d)
		if rel == "" || listed[rel] {
			return nil
		}
		if len(foreign) < shown {
			foreign = append(foreign, rel)
		} else if len(foreign) == shown {
			foreign = append(foreign, "…")
		}
		if d.IsDir() {
			return fs.SkipDir
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(foreign) > 0 {
		return &ForeignError{Dir: dir, Entries: foreign}
	}
	return nil
}

// inventory lists what is under dir, marker excepted, sorted.
func inventory(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if rel := relName(dir, path, d); rel != "" && rel != MarkerName {
			out = append(out, rel)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// relName is path relative to dir with '/' separators and a trailing '/'
// for folders; "" for dir itself.
func relName(dir, path string, d fs.DirEntry) string {
	rel, err := filepath.Rel(dir, path)
	if err != nil || rel == "." {
		return ""
	}
	rel = filepath.ToSlash(rel)
	if d.IsDir() {
		rel += "/"
	}
	return rel
}

// replace makes src's content dst's: dst is absent, empty, a trellis run
// (checked by the caller), or was set aside. Where the system can, the
// two folders are exchanged atomically (exchange), so dst is never
// missing; where it cannot, the previous run is renamed away first.
func replace(src, dst string, exchange func(a, b string) error) error {
	err := os.Rename(src, dst)
	if err == nil {
		return nil
	}
	if _, statErr := os.Lstat(dst); statErr != nil {
		return fmt.Errorf("replacing %s: %w", dst, err)
	}
	old, err := freeName(filepath.Join(filepath.Dir(dst), "."+filepath.Base(dst)+".trellis-old"))
	if err != nil {
		return err
	}
	if err := exchange(src, dst); err == nil {
		// src now holds the previous run, still marked committed (and
		// locked by Commit), which a later Open clears should this
		// process die before it does.
		if err := os.Rename(src, old); err != nil {
			return removeReplaced(src, dst)
		}
		return removeReplaced(old, dst)
	}
	// No atomic exchange: move the previous run away, then the new one in.
	if err := os.Rename(dst, old); err != nil {
		return fmt.Errorf("replacing %s: %w", dst, err)
	}
	if err := os.Rename(src, dst); err != nil {
		os.Rename(old, dst)
		return fmt.Errorf("replacing %s: %w", dst, err)
	}
	return removeReplaced(old, dst)
}

// removeReplaced deletes the previous run swapped out of dst, unless
// something not of that run appeared in it between the ownership check
// and the swap: then it is set aside beside dst, whole.
func removeReplaced(old, dst string) error {
	if checkOwned(old) == nil {
		return os.RemoveAll(old)
	}
	name, err := freeName(dst + ".set-aside-" + time.Now().Format("20060102-150405"))
	if err != nil {
		return err
	}
	return os.Rename(old, name)
}

// freeName returns base, or base-N for the first N, that names nothing
// (a rename onto an existing empty folder would succeed silently).
func freeName(base string) (string, error) {
	for k := 0; k < 1000; k++ {
		name := base
		if k > 0 {
			name = fmt.Sprintf("%s-%d", base, k)
		}
		if _, err := os.Lstat(name); errors.Is(err, fs.ErrNotExist) {
			return name, nil
		}
	}
	return "", fmt.Errorf("no free name beside %s", base)
}
