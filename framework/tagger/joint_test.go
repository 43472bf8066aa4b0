package tagger_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/dual"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

// jointModel is a model of word windows whose weights make a word after
// "Mr" a strong B-PER and a word before "said" a weak B-LOC; every other
// attribute leans to O.
func jointModel(t testing.TB) *model.Model {
	specs := []feature.TemplateSpec{
		{Type: "emission", Name: "w", Config: rawJSON(t, map[string]any{"column": "word", "offsets": []int{-1, 0, 1}})},
		{Type: "transition", Name: "t", Config: rawJSON(t, map[string]any{})},
	}
	train := "Mr O\nZa B-PER\n\nZa B-LOC\nsaid O\n\nZa I-PER\n\nZa I-LOC\n"
	return handModel(t, specs, train, func(name, lab string) float64 {
		switch {
		case name == "w[-1]=Mr" && lab == "B-PER":
			return 5
		case name == "w[1]=said" && lab == "B-LOC":
			return 1
		case lab == "O":
			return 0.5
		}
		return 0
	})
}

// jointText is n documents "Mr Zk / Zk said / ok", with document
// boundaries when marked: alone, Zk is a person after Mr and a place
// before said.
func jointText(n int, marked bool) string {
	var b strings.Builder
	for k := range n {
		if marked {
			b.WriteString("-DOCSTART-\n\n")
		}
		fmt.Fprintf(&b, "Mr\nZ%d\n\nZ%d\nsaid\n\nok\n\n", k, k)
	}
	return b.String()
}

func tagJoint(t *testing.T, m *model.Model, cfg *dual.Config, text string, replicas int) ([][]string, string, dual.Stats) {
	t.Helper()
	reg, _ := builtin.Registries()
	tg, err := tagger.New(m, reg, tagger.Options{Joint: cfg})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	var reps []*tagger.Tagger
	for range replicas {
		r, err := tg.Replica(reg)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		reps = append(reps, r)
	}
	var labels [][]string
	var out bytes.Buffer
	r := tg.Format.NewReader(strings.NewReader(text), "in.txt", corpus.ReadOptions{LabelOptional: true})
	if _, err := tg.StreamParallel(context.Background(), r, tg.Format.NewWriter(&out), nil, func(_ *corpus.Sentence, pred []string) {
		labels = append(labels, slices.Clone(pred))
	}, reps); err != nil {
		t.Fatal(err)
	}
	return labels, out.String(), tg.JointStats()
}

// TestJointConsistency: under hard agreement a document's two "Zk" take
// the type of the stronger occurrence (PER), each document certified;
// a file without boundaries, and no joint decoding, keep Viterbi's
// labels; replicas tag the same bytes and their counts are gathered.
func TestJointConsistency(t *testing.T) {
	m := jointModel(t)
	const docs = 300 // more than a batch of sentences
	plain, _, _ := tagJoint(t, m, nil, jointText(docs, true), 0)
	if got := plain[1]; !slices.Equal(got, []string{"B-LOC", "O"}) {
		t.Fatalf("without joint decoding, Zk said: %v, want B-LOC O", got)
	}
	cfg := &dual.Config{Match: dual.MatchToken}
	joint, out, st := tagJoint(t, m, cfg, jointText(docs, true), 0)
	for k := range docs {
		if got := joint[3*k+1]; !slices.Equal(got, []string{"B-PER", "O"}) {
			t.Fatalf("document %d, Zk said: %v, want B-PER O", k, got)
		}
		if !slices.Equal(joint[3*k], plain[3*k]) || !slices.Equal(joint[3*k+2], plain[3*k+2]) {
			t.Fatalf("document %d: the sentences without a disagreement changed", k)
		}
	}
	if st.Problems != docs || st.Marked != docs || st.Certified != docs || st.Iterations == 0 {
		t.Fatalf("stats %+v, want %d documents marked and certified after some steps", st, docs)
	}
	par, parOut, parSt := tagJoint(t, m, cfg, jointText(docs, true), 2)
	if !slices.EqualFunc(par, joint, slices.Equal) || parOut != out || parSt != st {
		t.Fatalf("with 2 replicas: other labels, bytes or stats (%+v, want %+v)", parSt, st)
	}
	unmarked, _, ust := tagJoint(t, m, cfg, jointText(docs, false), 0)
	plainUnmarked, _, _ := tagJoint(t, m, nil, jointText(docs, false), 0)
	if !slices.EqualFunc(unmarked, plainUnmarked, slices.Equal) || ust.Marked != 0 {
		t.Fatalf("a file without boundaries changed under consistency (stats %+v)", ust)
	}
	// Under soft agreement at no cost, each occurrence keeps its own type.
	zero := 0.0
	soft, _, _ := tagJoint(t, m, &dual.Config{Match: dual.MatchToken, Penalty: &zero}, jointText(3, true), 0)
	if !slices.Equal(soft[1], []string{"B-LOC", "O"}) {
		t.Fatalf("penalty 0: Zk said %v, want B-LOC O", soft[1])
	}
}

// TestJointLimits: at most 0 PER spans per sentence removes every PER,
// in a file without boundaries too; the detailed calls refuse.
func TestJointLimits(t *testing.T) {
	m := jointModel(t)
	cfg := &dual.Config{Limits: []dual.LimitConfig{{Type: "PER", Max: 0}}}
	labels, _, st := tagJoint(t, m, cfg, jointText(5, false), 0)
	for k, l := range labels {
		if slices.ContainsFunc(l, func(s string) bool { return strings.HasSuffix(s, "PER") }) {
			t.Fatalf("sentence %d: %v has a PER", k, l)
		}
	}
	if !slices.Equal(labels[0], []string{"O", "O"}) || !slices.Equal(labels[1], []string{"B-LOC", "O"}) {
		t.Fatalf("Mr Zk: %v, Zk said: %v; want O O, B-LOC O", labels[0], labels[1])
	}
	if st.Problems != 15 || st.Marked != 0 || st.Certified != 15 {
		t.Fatalf("stats %+v", st)
	}
	reg, _ := builtin.Registries()
	tg, err := tagger.New(m, reg, tagger.Options{Joint: cfg})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	sents, err := readAll(tg.Format, jointText(1, false), corpus.ReadOptions{LabelOptional: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tg.TagDetailed(sents, 2); !errors.Is(err, tagger.ErrJointDetail) {
		t.Fatalf("TagDetailed: %v", err)
	}
	if _, err := tagger.New(m, reg, tagger.Options{Joint: &dual.Config{Limits: []dual.LimitConfig{{Type: "ORG", Max: 1}}}}); err == nil {
		t.Fatal("a limit on a type without labels accepted")
	}
	if _, err := tagger.New(m, reg, tagger.Options{Joint: cfg, Decode: lattice.DecodeGreedy}); err == nil {
		t.Fatal("joint decoding with greedy decoding accepted")
	}
}
