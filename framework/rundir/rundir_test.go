package rundir

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// write creates files (relative path → content) under dir.
func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// contents maps every file under dir to its content; folders are
// listed with a trailing '/'.
func contents(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := relName(dir, path, d)
		switch {
		case rel == "":
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			out[rel] = "symlink to " + target
		case d.IsDir():
			out[rel] = ""
		default:
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			out[rel] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// commitRun opens dir, writes files into the partial folder and commits.
func commitRun(t *testing.T, dir string, o Options, files map[string]string) string {
	t.Helper()
	r, err := Open(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	write(t, r.Work, files)
	setAside, err := r.Commit()
	if err != nil {
		t.Fatal(err)
	}
	return setAside
}

// keys lists a contents map without the marker.
func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		if k != MarkerName {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

func TestReplaceAsAWhole(t *testing.T) {
	for _, exch := range []struct {
		name string
		fn   func(a, b string) error
	}{{"exchange", exchange}, {"two renames", func(a, b string) error { return errors.New("unsupported") }}} {
		t.Run(exch.name, func(t *testing.T) {
			parent := t.TempDir()
			dir := filepath.Join(parent, "runs", "x")
			commitRun(t, dir, Options{}, map[string]string{"models/a.model": "A", "models/b.model": "B", "metrics.json": "1"})
			r, err := Open(dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			write(t, r.Work, map[string]string{"models/a.model": "A2", "metrics.json": "2"})
			r.marker.Files, _ = inventory(r.Work)
			if err := r.writeMarker(); err != nil {
				t.Fatal(err)
			}
			if err := replace(r.Work, r.Path, exch.fn); err != nil {
				t.Fatal(err)
			}
			r.Close()
			got := contents(t, dir)
			if want := []string{"metrics.json", "models/", "models/a.model"}; !slices.Equal(keys(got), want) {
				t.Errorf("after the second run %s holds %v, want %v (nothing of the first run's)", dir, keys(got), want)
			}
			if got["models/a.model"] != "A2" {
				t.Errorf("models/a.model = %q, want the second run's", got["models/a.model"])
			}
			if left := keys(contents(t, filepath.Dir(dir))); !slices.Equal(left, []string{"x/", "x/.trellis-run", "x/metrics.json", "x/models/", "x/models/a.model"}) {
				t.Errorf("beside the run directory: %v", left)
			}
		})
	}
}

func TestMarkerListsTheRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "x")
	commitRun(t, dir, Options{Command: []string{"trellis", "run", "s.hcl"}}, map[string]string{"a": "1", "m/b": "2"})
	b, err := os.ReadFile(filepath.Join(dir, MarkerName))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"trellis_run": 1`, `"files": [`, `"a"`, `"m/"`, `"m/b"`, `"s.hcl"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("marker lacks %s:\n%s", want, b)
		}
	}
}

func TestRefusesForeign(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, dir string)
		entries []string // nil: dir is not a folder
	}{
		{"a folder of the user's", func(t *testing.T, dir string) {
			write(t, dir, map[string]string{"notes.txt": "mine", "data/x.txt": "mine"})
		}, []string{"data/", "notes.txt"}},
		{"a user's checkpoints folder", func(t *testing.T, dir string) {
			write(t, dir, map[string]string{"checkpoints/keep.bin": "mine"})
		}, []string{"checkpoints/"}},
		{"a run with a file added", func(t *testing.T, dir string) {
			commitRun(t, dir, Options{}, map[string]string{"metrics.json": "1", "models/a.model": "A"})
			write(t, dir, map[string]string{"models/mine.model": "mine"})
		}, []string{"models/mine.model"}},
		{"a symbolic link to a folder", func(t *testing.T, dir string) {
			target := t.TempDir()
			write(t, target, map[string]string{"mine.txt": "mine"})
			if err := os.Symlink(target, dir); err != nil {
				t.Fatal(err)
			}
		}, nil},
		{"a regular file", func(t *testing.T, dir string) {
			if err := os.WriteFile(dir, []byte("mine"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "x")
			tc.setup(t, dir)
			before := snapshot(t, filepath.Dir(dir))
			_, err := Open(dir, Options{})
			var fe *ForeignError
			if !errors.As(err, &fe) {
				t.Fatalf("Open: %v, want a ForeignError", err)
			}
			if !slices.Equal(fe.Entries, tc.entries) {
				t.Errorf("foreign entries %v, want %v", fe.Entries, tc.entries)
			}
			if msg := err.Error(); !strings.Contains(msg, "--force") || !strings.Contains(msg, dir) {
				t.Errorf("message names neither the folder nor the flag: %s", msg)
			}
			if after := snapshot(t, filepath.Dir(dir)); !maps(before, after) {
				t.Errorf("refusing changed the folder: %v → %v", before, after)
			}

			// --force sets it aside, whole, and the run takes its place.
			setAside := commitRun(t, dir, Options{Force: true}, map[string]string{"metrics.json": "new"})
			if !strings.HasPrefix(filepath.Base(setAside), "x.set-aside-") {
				t.Fatalf("set aside as %q", setAside)
			}
			old := snapshot(t, filepath.Dir(dir))
			for name, content := range before {
				moved := strings.Replace(name, "x", filepath.Base(setAside), 1)
				if old[moved] != content {
					t.Errorf("%s was not kept as %s", name, moved)
				}
			}
			if got := contents(t, dir)["metrics.json"]; got != "new" {
				t.Errorf("the new run is not in place: %q", got)
			}
		})
	}
}

// snapshot is contents of dir including the marker.
func snapshot(t *testing.T, dir string) map[string]string { return contents(t, dir) }

func maps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestEmptyFolderIsReplaced(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "x")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	commitRun(t, dir, Options{}, map[string]string{"metrics.json": "1"})
	if got := contents(t, dir)["metrics.json"]; got != "1" {
		t.Errorf("metrics.json = %q", got)
	}
}

func TestBusy(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "x")
	first, err := Open(dir, Options{Command: []string{"trellis", "run", "a.hcl"}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(dir, Options{})
	var be *BusyError
	if !errors.As(err, &be) {
		t.Fatalf("second Open: %v, want a BusyError", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "a.hcl") || !strings.Contains(msg, "pid") {
		t.Errorf("busy message does not say who: %s", msg)
	}
	if _, err := Open(dir, Options{Resume: true}); !errors.As(err, &be) {
		t.Errorf("resume while running: %v, want a BusyError", err)
	}
	write(t, first.Work, map[string]string{"metrics.json": "1"})
	if _, err := first.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, Options{}); err != nil {
		t.Errorf("Open after the first run ended: %v", err)
	}
}

func TestInterruptedRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "x")
	commitRun(t, dir, Options{}, map[string]string{"metrics.json": "previous"})

	r, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	write(t, r.Work, map[string]string{"checkpoints/crf.ckpt": "state"})
	if err := r.Abort(true); err != nil {
		t.Fatal(err)
	}
	if got := contents(t, dir)["metrics.json"]; got != "previous" {
		t.Fatalf("an interrupted run touched the previous one: %q", got)
	}

	// Resume continues in the partial folder.
	r, err = Open(dir, Options{Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Resumed || contents(t, r.Work)["checkpoints/crf.ckpt"] != "state" {
		t.Fatalf("resume lost the checkpoint: %v", contents(t, r.Work))
	}
	r.Abort(true)

	// A fresh run discards it.
	r, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Discarded || len(keys(contents(t, r.Work))) != 0 {
		t.Fatalf("a fresh run kept the interrupted one's files: %v", contents(t, r.Work))
	}
	if err := r.Abort(false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(r.Work); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Abort left the partial folder: %v", err)
	}
	if _, err := Open(dir, Options{Resume: true}); err == nil || !strings.Contains(err.Error(), "no interrupted run to resume") {
		t.Errorf("resume with nothing to resume: %v", err)
	}
}

func TestPartialFolderNotOurs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "x")
	write(t, PartialPath(dir), map[string]string{"mine.txt": "mine"})
	for _, resume := range []bool{false, true} {
		if _, err := Open(dir, Options{Resume: resume}); err == nil || !strings.Contains(err.Error(), "not a trellis partial run folder") {
			t.Errorf("resume=%v: %v", resume, err)
		}
	}
	if got := contents(t, PartialPath(dir))["mine.txt"]; got != "mine" {
		t.Errorf("the user's file is gone")
	}
}

func TestCommitRefusesFilesAddedMeanwhile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "x")
	commitRun(t, dir, Options{}, map[string]string{"metrics.json": "previous"})
	r, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	write(t, r.Work, map[string]string{"metrics.json": "new"})
	write(t, dir, map[string]string{"notes.txt": "added while the run worked"})
	_, err = r.Commit()
	var fe *ForeignError
	if !errors.As(err, &fe) || !fe.Finished || !strings.Contains(err.Error(), fe.Partial) ||
		!strings.HasPrefix(filepath.Base(fe.Partial), "x.unplaced-") {
		t.Fatalf("Commit: %v, want a ForeignError naming where the results went", err)
	}
	if got := contents(t, dir); got["notes.txt"] == "" || got["metrics.json"] != "previous" {
		t.Errorf("the folder changed: %v", got)
	}
	if got := contents(t, fe.Partial)["metrics.json"]; got != "new" {
		t.Errorf("the finished run's results are gone: %q", got)
	}
	if _, err := os.Stat(r.Work); err == nil {
		t.Errorf("the results stayed in the partial folder, which a later run would discard")
	}
	// The moved run is a complete run: a later run may replace it.
	commitRun(t, fe.Partial, Options{}, map[string]string{"metrics.json": "later"})
}

func TestAbortRemovesFoldersItMade(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "runs", "deep", "x")
	r, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	write(t, r.Work, map[string]string{"models/a.model": "A"})
	if err := r.Abort(false); err != nil {
		t.Fatal(err)
	}
	if got := keys(contents(t, parent)); len(got) != 0 {
		t.Errorf("a failed run left %v", got)
	}
}

// TestFailedCommitKeepsResults: a finished run whose commit fails (a
// replace the system refuses, an unreadable folder) goes to a visible
// folder beside the run directory, named in the error, where the next
// run does not discard it.
func TestFailedCommitKeepsResults(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "x")
	r, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	write(t, r.Work, map[string]string{"models/a.model": "trained for hours"})
	files, _ := inventory(r.Work)
	err = r.unplaced(files, errors.New("rename: device or resource busy"))
	r.Close()
	aside, _ := filepath.Glob(dir + ".unplaced-*")
	if len(aside) != 1 || err == nil || !strings.Contains(err.Error(), aside[0]) || !strings.Contains(err.Error(), "device or resource busy") {
		t.Fatalf("error %v, folders %v", err, aside)
	}
	if next, err := Open(dir, Options{}); err != nil || next.Discarded {
		t.Fatalf("the next run: %v, discarded %v", err, next != nil && next.Discarded)
	}
	if got := contents(t, aside[0])["models/a.model"]; got != "trained for hours" {
		t.Errorf("the results are gone: %q", got)
	}
}

// TestReplaceKeepsFilesAddedDuringCommit: a file written into the run
// directory between the ownership check and the swap is set aside with
// the previous run, not deleted.
func TestReplaceKeepsFilesAddedDuringCommit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "x")
	commitRun(t, dir, Options{}, map[string]string{"metrics.json": "previous"})
	r, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	write(t, r.Work, map[string]string{"metrics.json": "new"})
	late := func(a, b string) error {
		write(t, b, map[string]string{"notes.txt": "written at the last moment"})
		return exchange(a, b)
	}
	if err := replace(r.Work, r.Path, late); err != nil {
		t.Fatal(err)
	}
	r.Close()
	aside, _ := filepath.Glob(dir + ".set-aside-*")
	if len(aside) != 1 || contents(t, aside[0])["notes.txt"] != "written at the last moment" {
		t.Fatalf("the late file is not kept: %v", aside)
	}
	if got := contents(t, dir)["metrics.json"]; got != "new" {
		t.Errorf("the new run is not in place: %q", got)
	}
}
