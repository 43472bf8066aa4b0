// Package pretrained holds the models shipped inside trellis, usable by
// name wherever a model file is: `trellis tag --model en-tokenizer`. Each
// is built by a shipped spec, and the test of this package checks that
// the spec is still the one that built it (the model records the spec's
// SHA-256), so a spec edited without retraining fails CI. A file is the
// spec's model pruned (`trellis prune`, which keeps every output byte and
// the provenance), then gzipped (`gzip -9n`); docs/results.md, "Pruned
// shipped models", has the commands.
//
// A model is shipped only where its training data's licence allows, and
// says which licence binds it.
package pretrained

import (
	"bytes"
	"compress/gzip"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/trellis-nlp/trellis/framework/model"
)

// files are the models, gzipped: the CRF's float64 weights compress well
// (docs/results.md, "Measurements behind design choices in the code").
//
//go:embed models/*.model.gz
var files embed.FS

// Entry describes a shipped model.
type Entry struct {
	// Name is what --model takes.
	Name string
	// Description says what it does, in one line.
	Description string
	// Spec is the shipped spec that builds it (relative to the module
	// root), and Learner the learner whose model it is.
	Spec, Learner string
	// Data names the training data and where it comes from; Licence is
	// the data's licence, which binds the model too.
	Data, Licence string
	// File is its file in models/.
	File string
	// Pruned is true when File is the spec's model pruned by `trellis
	// prune` (framework/prune): smaller, and tagging to the same bytes.
	// The model records it too (Provenance.Pruned).
	Pruned bool
}

// catalog is every shipped model, in the order `trellis models` lists them.
var catalog = []Entry{
	{
		Name:        "en-tokenizer",
		Description: "English tokenizer and sentence splitter (a CRF over characters)",
		Spec:        "specs/ud-ewt-tokenizer.hcl",
		Learner:     "crf",
		Data:        "UD English EWT 2.16, train (Silveira et al. 2014; github.com/UniversalDependencies/UD_English-EWT)",
		Licence:     "CC BY-SA 4.0",
		File:        "en-tokenizer.model.gz",
		Pruned:      true,
	},
	{
		Name:        "en-upos",
		Description: "English universal part-of-speech tags (UPOS) from words",
		Spec:        "specs/ud-ewt.hcl",
		Learner:     "crf",
		Data:        "UD English EWT 2.16, train (Silveira et al. 2014; github.com/UniversalDependencies/UD_English-EWT)",
		Licence:     "CC BY-SA 4.0",
		File:        "en-upos.model.gz",
		Pruned:      true,
	},
	{
		Name:        "en-xpos",
		Description: "English Penn Treebank part-of-speech tags (XPOS) from words, the column a CoNLL-2000 chunker reads",
		Spec:        "specs/ud-ewt-xpos.hcl",
		Learner:     "perceptron",
		Data:        "UD English EWT 2.16, train (Silveira et al. 2014; github.com/UniversalDependencies/UD_English-EWT)",
		Licence:     "CC BY-SA 4.0",
		File:        "en-xpos.model.gz",
		Pruned:      true,
	},
}

// ErrUnknown is a name that no shipped model has.
var ErrUnknown = errors.New("no shipped model of that name")

// List returns the shipped models.
func List() []Entry { return slices.Clone(catalog) }

// Lookup returns the shipped model called name.
func Lookup(name string) (Entry, bool) {
	i := slices.IndexFunc(catalog, func(e Entry) bool { return e.Name == name })
	if i < 0 {
		return Entry{}, false
	}
	return catalog[i], true
}

// Bytes returns the model file of the shipped model called name.
func Bytes(name string) ([]byte, error) {
	e, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknown, name)
	}
	gz, err := files.ReadFile("models/" + e.File)
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("shipped model %s: %w", name, err)
	}
	return io.ReadAll(zr)
}

// Load returns the shipped model called name.
func Load(name string) (*model.Model, error) {
	data, err := Bytes(name)
	if err != nil {
		return nil, err
	}
	m, err := model.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("shipped model %s: %w", name, err)
	}
	return m, nil
}

// Open loads the model file at pathOrName or, when there is no such
// file and it is a shipped model's name, that model. A file wins over a
// name, so a user's own file is never shadowed.
func Open(pathOrName string) (*model.Model, error) {
	data, err := ReadFile(pathOrName)
	if err != nil {
		return nil, err
	}
	m, err := model.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", pathOrName, err)
	}
	return m, nil
}

// ReadFile returns the bytes of the model file at pathOrName or, when
// there is no such file and it is a shipped model's name, of that model
// (Open's rule).
func ReadFile(pathOrName string) ([]byte, error) {
	data, err := ReadFileAt(pathOrName, pathOrName)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return data, err
	}
	if strings.ContainsRune(pathOrName, filepath.Separator) || strings.ContainsRune(pathOrName, '/') {
		return nil, err // a path, not a name
	}
	return nil, fmt.Errorf("%w; nor is %q the name of a shipped model (%s)", err, pathOrName, strings.Join(Names(), ", "))
}

// ReadFileAt is ReadFile's rule for a model named name whose file, if
// any, is at path (a name resolved against another folder: a spec's
// stage model). When there is neither, the error wraps fs.ErrNotExist.
func ReadFileAt(path, name string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return data, err
	}
	if _, ok := Lookup(name); ok {
		return Bytes(name)
	}
	return nil, err
}

// Names are the shipped models' names, in the catalog's order.
func Names() []string {
	names := make([]string, len(catalog))
	for i, e := range catalog {
		names[i] = e.Name
	}
	return names
}
