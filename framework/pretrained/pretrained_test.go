package pretrained

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/trellis-nlp/trellis/framework/prune"
)

// TestCatalog: every shipped model loads, is the model of its spec as
// the spec is now (a spec edited without retraining fails here), names a
// learner of that spec and a licence, is pruned as the catalog says (and
// then has nothing left to prune); and every file in models/ is in the
// catalog.
func TestCatalog(t *testing.T) {
	var listed []string
	for _, e := range List() {
		listed = append(listed, e.File)
		m, err := Load(e.Name)
		if err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		src, err := os.ReadFile(filepath.Join("..", "..", e.Spec))
		if err != nil {
			t.Fatalf("%s: its spec: %v", e.Name, err)
		}
		sum := sha256.Sum256(src)
		if got := hex.EncodeToString(sum[:]); m.Provenance.SpecHash != got {
			t.Errorf("%s was built from a spec with SHA-256 %s; %s is now %s: retrain it (docs/results.md says how)", e.Name, m.Provenance.SpecHash, e.Spec, got)
		}
		if m.Learner.Name != e.Learner || e.Licence == "" || e.Data == "" || e.Description == "" {
			t.Errorf("%s: learner %q (catalog %q), licence %q, data %q", e.Name, m.Learner.Name, e.Learner, e.Licence, e.Data)
		}
		if m.Provenance.Pruned != e.Pruned {
			t.Errorf("%s: the model says pruned %v, the catalog %v", e.Name, m.Provenance.Pruned, e.Pruned)
		}
		if _, r, err := prune.Model(m); err != nil || e.Pruned && r.After != r.Before {
			t.Errorf("%s, pruned: pruning it again gives %+v, %v; want nothing removed", e.Name, r, err)
		}
	}
	entries, err := files.ReadDir("models")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range entries {
		if !slices.Contains(listed, f.Name()) {
			t.Errorf("models/%s is in no catalog entry", f.Name())
		}
	}
}

func TestOpen(t *testing.T) {
	if _, err := Open("en-tokenizer"); err != nil {
		t.Errorf("by name: %v", err)
	}
	// A file of that name wins over the shipped model.
	dir := t.TempDir()
	path := filepath.Join(dir, "en-tokenizer")
	if err := os.WriteFile(path, []byte("not a model"), 0o644); err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	os.Chdir(dir)
	if _, err := Open("en-tokenizer"); err == nil {
		t.Errorf("a file named en-tokenizer was not read first")
	}
	_, err := Open("no-such-model")
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("unknown: %v, want fs.ErrNotExist", err)
	}
	if _, err := Load("no-such-model"); !errors.Is(err, ErrUnknown) {
		t.Errorf("Load of an unknown name: %v, want ErrUnknown", err)
	}
}
