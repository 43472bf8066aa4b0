package tagger_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

// TestTokenInput: the columns a model's templates read besides the word
// column, and a sentence built from tokens and those columns tags as the
// same sentence read from a file.
func TestTokenInput(t *testing.T) {
	raw := func(v any) json.RawMessage {
		b, _ := json.Marshal(v)
		return b
	}
	tests := []struct {
		name      string
		templates []feature.TemplateSpec
		want      []string
	}{
		{"as trained (word and pos)", nil, []string{"pos"}},
		{"word only", []feature.TemplateSpec{
			{Type: "emission", Name: "w", Config: raw(map[string]any{"column": "word", "offsets": []int{-1, 0}})},
			{Type: "boundary", Name: "b", Config: raw(map[string]any{})},
			{Type: "transition", Name: "t", Config: raw(map[string]any{})},
		}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := tinyModel(t)
			if tc.templates != nil {
				m.Templates = tc.templates
			}
			reg, _ := builtin.Registries()
			tg, err := tagger.New(m, reg, tagger.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer tg.Close()
			in, err := tg.TokenInput()
			if err != nil {
				t.Fatal(err)
			}
			if in.Columns[in.Word] != "word" || in.Columns[in.Label] != "chunk" {
				t.Errorf("word column %q, label column %q", in.Columns[in.Word], in.Columns[in.Label])
			}
			if !reflect.DeepEqual(in.ExtraNames, tc.want) {
				t.Errorf("extra columns %v, want %v", in.ExtraNames, tc.want)
			}
		})
	}

	m := tinyModel(t)
	reg, _ := builtin.Registries()
	tg, err := tagger.New(m, reg, tagger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	in, err := tg.TokenInput()
	if err != nil {
		t.Fatal(err)
	}
	s := in.Sentence([]string{"the", "cat", "sat"}, [][]string{{"DT", "NN", "VBD"}})
	if want := [][]string{{"the", "DT", ""}, {"cat", "NN", ""}, {"sat", "VBD", ""}}; !reflect.DeepEqual(s.Tokens, want) {
		t.Fatalf("tokens %q, want %q", s.Tokens, want)
	}
	got, err := tg.Tag([]*corpus.Sentence{s})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"B-NP", "I-NP", "O"}; !reflect.DeepEqual(got[0], want) {
		t.Errorf("labels %v, want %v", got[0], want)
	}
}

// TestReplica: replicas tag exactly as the tagger they come from, all at
// the same time (run with -race: what they share is only read).
func TestReplica(t *testing.T) {
	m := tinyModel(t)
	reg, _ := builtin.Registries()
	tg, err := tagger.New(m, reg, tagger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	in, err := tg.TokenInput()
	if err != nil {
		t.Fatal(err)
	}
	words := [][]string{{"the", "cat", "sat"}, {"zebra"}, {"sat", "the", "mat", "the", "dog"}}
	tags := [][]string{{"DT", "NN", "VBD"}, {"NN"}, {"VBD", "DT", "NN", "DT", "NN"}}
	sents := make([]*corpus.Sentence, len(words))
	for k := range words {
		sents[k] = in.Sentence(words[k], [][]string{tags[k]})
	}
	want, err := tg.TagDetailed(sents, 3)
	if err != nil {
		t.Fatal(err)
	}
	taggers := []*tagger.Tagger{tg}
	for range 3 {
		r, err := tg.Replica(reg)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		taggers = append(taggers, r)
	}
	errs := make(chan error, len(taggers))
	for _, x := range taggers {
		go func() {
			for range 50 {
				got, err := x.TagDetailed(sents, 3)
				if err == nil && !reflect.DeepEqual(got, want) {
					err = fmt.Errorf("replica tagged %v, want %v", got, want)
				}
				if err != nil {
					errs <- err
					return
				}
				labels, err := x.Tag(sents)
				if err == nil && !reflect.DeepEqual(labels[2], want[2].Paths[0]) {
					err = fmt.Errorf("replica tagged %v, want %v", labels[2], want[2].Paths[0])
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range taggers {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestReplicaInputs: a replica answers what reads the model's templates
// (TokenInput, CheckPlain, NewReader) as the tagger it comes from.
func TestReplicaInputs(t *testing.T) {
	m := tinyModel(t)
	reg, _ := builtin.Registries()
	tg, err := tagger.New(m, reg, tagger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	r, err := tg.Replica(reg)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	want, err := tg.TokenInput()
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.TokenInput()
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("replica TokenInput %+v, %v; want %+v", got, err, want)
	}
	if got, want := fmt.Sprint(r.CheckPlain()), fmt.Sprint(tg.CheckPlain()); got != want {
		t.Errorf("replica CheckPlain %s, want %s", got, want)
	}
	for _, in := range []tagger.Input{tagger.Text, tagger.Tokens, tagger.Corpus} {
		_, err := r.NewReader(strings.NewReader("the\n"), "in", in)
		_, wantErr := tg.NewReader(strings.NewReader("the\n"), "in", in)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Errorf("replica NewReader(%s): %v, want %v", in, err, wantErr)
		}
	}
}

// TestReplicaConvertsEncoding: a replica of a tagger whose model was
// trained in an encoding (BIOES for an IOB2 corpus) emits the corpus's
// scheme, as the tagger does; StreamParallel's output is then the same
// for any number of replicas.
func TestReplicaConvertsEncoding(t *testing.T) {
	src := strings.Replace(explainSpecWith(true, false), `scheme = "iob2"`, "scheme = \"iob2\"\n  encode = \"bioes\"", 1)
	m := trainAll(t, src)["perceptron"]
	if m.OutputScheme == "" {
		t.Fatal("the model was not trained in an encoding: the test checks nothing")
	}
	reg, _ := builtin.Registries()
	tg, err := tagger.New(m, reg, tagger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	r, err := tg.Replica(reg)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	sents := readSentences(t, tg.Format, mustAbs("../../cmd/trellis/testdata/chunk-test.txt"))
	want, err := tg.Tag(sents)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Tag(sents)
	if err != nil {
		t.Fatal(err)
	}
	for k := range want {
		if !slices.Equal(got[k], want[k]) {
			t.Fatalf("sentence %d: replica %q, tagger %q", k, got[k], want[k])
		}
		for _, l := range got[k] {
			if strings.HasPrefix(l, "E-") || strings.HasPrefix(l, "S-") {
				t.Fatalf("sentence %d: the replica emits the training encoding's %q", k, l)
			}
		}
	}
}
