package registry

import (
	"errors"
	"slices"
	"testing"
)

func TestRegister(t *testing.T) {
	tests := []struct {
		name    string
		names   []string // registered in this order; the last is checked
		wantErr error
		wantMsg string
	}{
		{"first", []string{"hmm"}, nil, ""},
		{"another", []string{"hmm", "crf"}, nil, ""},
		{"duplicate", []string{"hmm", "crf", "hmm"}, ErrDuplicate, `learner type "hmm" registered twice`},
		{"empty name", []string{""}, ErrEmptyName, "learner type with an empty name"},
		{"empty name after others", []string{"hmm", ""}, ErrEmptyName, "learner type with an empty name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := New[int]("learner type")
			var err error
			for i, n := range tc.names {
				if err = r.Register(n, i); err != nil && i < len(tc.names)-1 {
					t.Fatalf("Register(%q): %v", n, err)
				}
			}
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Register error = %v, want %v", err, tc.wantErr)
			}
			if err != nil && err.Error() != tc.wantMsg {
				t.Errorf("Register error = %q, want %q", err, tc.wantMsg)
			}
			if err != nil {
				// A refused name leaves the registry as it was.
				last := tc.names[len(tc.names)-1]
				if v, ok := r.Lookup(last); ok && v == len(tc.names)-1 {
					t.Errorf("refused value %d stored under %q", v, last)
				}
				if got := len(r.Names()); got != len(tc.names)-1 {
					t.Errorf("%d names after a refusal, want %d", got, len(tc.names)-1)
				}
			}
		})
	}
}

func TestMustRegisterPanics(t *testing.T) {
	tests := []struct {
		name  string
		names []string
		panic string // "" for no panic
	}{
		{"distinct", []string{"a", "b"}, ""},
		{"duplicate", []string{"a", "a"}, `registry: corpus format "a" registered twice`},
		{"empty", []string{""}, "registry: corpus format with an empty name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got any
			func() {
				defer func() { got = recover() }()
				r := New[struct{}]("corpus format")
				for _, n := range tc.names {
					r.MustRegister(n, struct{}{})
				}
			}()
			if tc.panic == "" && got != nil || tc.panic != "" && got != tc.panic {
				t.Errorf("panic = %v, want %q", got, tc.panic)
			}
		})
	}
}

func TestLookup(t *testing.T) {
	r := New[string]("template type")
	r.MustRegister("emission", "E")
	r.MustRegister("transition", "T")
	tests := []struct {
		name   string
		lookup string
		want   string
		wantOK bool
	}{
		{"registered", "emission", "E", true},
		{"other registered", "transition", "T", true},
		{"unknown", "emision", "", false},
		{"case matters", "Emission", "", false},
		{"empty", "", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := r.Lookup(tc.lookup)
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("Lookup(%q) = %q, %v; want %q, %v", tc.lookup, got, ok, tc.want, tc.wantOK)
			}
		})
	}
	if r.Kind() != "template type" {
		t.Errorf("Kind() = %q", r.Kind())
	}
}

func TestNamesOrder(t *testing.T) {
	tests := []struct {
		name      string
		register  []string
		wantNames []string
	}{
		{"empty", nil, []string{}},
		{"one", []string{"crf"}, []string{"crf"}},
		{"sorted whatever the order", []string{"perceptron", "hmm", "crf"}, []string{"crf", "hmm", "perceptron"}},
		{"byte order", []string{"b", "B", "a"}, []string{"B", "a", "b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := New[int]("learner type")
			for i, n := range tc.register {
				r.MustRegister(n, i)
			}
			if got := r.Names(); !slices.Equal(got, tc.wantNames) {
				t.Errorf("Names() = %q, want %q", got, tc.wantNames)
			}
			if got := r.RegistrationOrder(); !slices.Equal(got, tc.register) {
				t.Errorf("RegistrationOrder() = %q, want %q", got, tc.register)
			}
			// Callers may keep and change what they get.
			if names := r.Names(); len(names) > 0 {
				names[0] = "changed"
				r.RegistrationOrder()[0] = "changed"
				if r.Names()[0] == "changed" || r.RegistrationOrder()[0] == "changed" {
					t.Errorf("Names or RegistrationOrder share the registry's slice")
				}
			}
		})
	}
}

func TestSuggest(t *testing.T) {
	formats := []string{"conll", "conllu", "slash", "chars", "crfsuite"}
	tests := []struct {
		name       string
		given      string
		candidates []string
		want       string
	}{
		{"one letter missing", "conl", formats, "conll"},
		{"closest wins over first", "conllux", formats, "conllu"},
		{"tie goes to the first", "iob", []string{"none", "iob1", "iob2", "bio"}, "iob1"},
		{"case only", "CRFSUITE", formats, "crfsuite"},
		{"too far", "csv", formats, ""},
		{"empty given", "", []string{"bi", "b"}, ""},
		{"no candidates", "hmm", nil, ""},
		{"transposition", "hmn", []string{"crf", "hmm", "perceptron"}, "hmm"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Suggest(tc.given, tc.candidates); got != tc.want {
				t.Errorf("Suggest(%q) = %q, want %q", tc.given, got, tc.want)
			}
		})
	}
}

func TestRegistrySuggest(t *testing.T) {
	r := New[int]("learner type")
	for i, n := range []string{"hmm", "perceptron", "crf"} {
		r.MustRegister(n, i)
	}
	tests := []struct{ given, want string }{
		{"hm", "hmm"},
		{"perceptorn", "perceptron"},
		{"CRF", "crf"},
		{"lstm", ""},
	}
	for _, tc := range tests {
		t.Run(tc.given, func(t *testing.T) {
			if got := r.Suggest(tc.given); got != tc.want {
				t.Errorf("Suggest(%q) = %q, want %q", tc.given, got, tc.want)
			}
		})
	}
}

func TestDidYouMean(t *testing.T) {
	tests := []struct {
		name       string
		given      string
		candidates []string
		what       string
		want       string
	}{
		{"suggestion", "conl", []string{"conll", "conllu"}, "format", `There is no format "conl". Did you mean "conll"?`},
		{"list", "tset", []string{"train"}, "corpus", `There is no corpus "tset". Choose one of: train.`},
		{"nothing to offer", "x", nil, "corpus", `There is no corpus "x".`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := DidYouMean(tc.given, tc.candidates, tc.what); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}
