package corpus

import (
	"slices"
	"testing"
)

func TestFormats(t *testing.T) {
	r := Formats()
	if got, want := r.RegistrationOrder(), []string{"conll", "conllu", "slash", "chars", "crfsuite", "rawtext"}; !slices.Equal(got, want) {
		t.Errorf("RegistrationOrder() = %q, want %q", got, want)
	}
	if got, want := r.Names(), []string{"chars", "conll", "conllu", "crfsuite", "rawtext", "slash"}; !slices.Equal(got, want) {
		t.Errorf("Names() = %q, want %q", got, want)
	}
	// Every registered name makes a format that reports that name (model
	// files store it and look it up again).
	for _, name := range r.Names() {
		t.Run(name, func(t *testing.T) {
			newFormat, _ := r.Lookup(name)
			f, err := newFormat(Config{Name: name, Columns: []string{"word", "tag"}})
			if err != nil {
				t.Fatal(err)
			}
			if f.Name() != name {
				t.Errorf("format registered as %q calls itself %q", name, f.Name())
			}
		})
	}
	r.MustRegister("tsv", nil)
	if _, ok := Formats().Lookup("tsv"); ok {
		t.Errorf("a format registered into one Formats() is seen by the next")
	}
}

func TestNewFormatErrors(t *testing.T) {
	const want = "(want conll, conllu, slash, chars, crfsuite or rawtext)"
	tests := []struct {
		name    string
		cfg     Config
		wantErr string // exact
	}{
		{"unknown", Config{Name: "csv"}, `unknown corpus format "csv" ` + want},
		{"typo", Config{Name: "conl"}, `unknown corpus format "conl"; did you mean "conll"? ` + want},
		{"case", Config{Name: "CRFsuite"}, `unknown corpus format "CRFsuite"; did you mean "crfsuite"? ` + want},
		{"none", Config{}, "no corpus format given " + want},
		// A constructor's error comes back with a nil Format, not a nil
		// *conllFormat inside a non-nil interface.
		{"constructor error", Config{Name: "conll"}, `the conll format needs columns naming the file's columns in order, e.g. ["word", "pos", "chunk"]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := New(tc.cfg)
			if err == nil || err.Error() != tc.wantErr {
				t.Fatalf("New error = %v, want %q", err, tc.wantErr)
			}
			if f != nil {
				t.Errorf("New returned a non-nil Format %#v with its error", f)
			}
		})
	}
}
