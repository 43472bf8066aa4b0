// prune_test.go checks the exactness rule on a hand-weighted model: which
// attributes go with and without a live unknown-value attribute, and that
// tagging, n-best lists, marginals and explanations keep their bytes.

package prune

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/linear"
	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

// weightedModel is a CRF over the words "a b" and "c a" with a
// vocabulary template w (the word) and a template p (the word before),
// every attribute scoring both labels X and Y. Its weights: w[0]=a scores
// X, p[-1]=c scores Y, w[0]=b and p[-1]=a nothing, and p's unknown-value
// attribute scores X by unknown (0: dead).
func weightedModel(t *testing.T, unknown float64) *model.Model {
	t.Helper()
	format := corpus.Config{Name: "conll", Columns: []string{"word", "label"}, Label: "label"}
	specs := []feature.TemplateSpec{
		{Type: "emission", Name: "w", Config: json.RawMessage(`{"column":"word"}`)},
		{Type: "emission", Name: "p", Config: json.RawMessage(`{"column":"word","offsets":[-1]}`)},
		{Type: "transition", Name: "t", Config: json.RawMessage(`{}`)},
	}
	reg, _ := builtin.Registries()
	var mts []feature.MapperTemplate
	for _, s := range specs {
		tmpl, err := reg.Instantiate(s)
		if err != nil {
			t.Fatal(err)
		}
		mts = append(mts, feature.MapperTemplate{Spec: s, Template: tmpl})
	}
	mp, err := feature.NewMapper(mts, feature.Columns{Names: format.Columns, Label: 1})
	if err != nil {
		t.Fatal(err)
	}
	train := []*corpus.Sentence{
		{Tokens: [][]string{{"a", "X"}, {"b", "Y"}}},
		{Tokens: [][]string{{"c", "Y"}, {"a", "X"}}},
	}
	if _, err := mp.Fit(context.Background(), train, feature.FitOptions{}); err != nil {
		t.Fatal(err)
	}
	lm := linear.NewDense(mp.Attrs().Len(), mp.Labels().Len(), true)
	weights := map[[2]string]float64{
		{"w[0]=a", "X"}: 1, {"p[-1]=c", "Y"}: 2, {feature.UnknownAttrName(1), "X"}: unknown,
	}
	for a := range int32(mp.Attrs().Len()) {
		for y := range int32(mp.Labels().Len()) {
			lm.W[lm.Feature(a, y)] = weights[[2]string{mp.Attrs().Name(a), mp.Labels().Name(y)}]
		}
	}
	for k := range lm.Trans() {
		lm.Trans()[k] = 0.25 * float64(k%3)
	}
	m := &model.Model{Header: model.Header{Scheme: "none", Format: format, LabelColumn: "label",
		Learner: model.Learner{Name: "crf", Type: "crf", Config: json.RawMessage(`{}`)}}, Linear: lm}
	m.SetMapper(mp)
	return m
}

// outputs is everything tagging sents with m says, as JSON: labels, the
// 3 best paths with their scores, marginals and explanations.
func outputs(t *testing.T, m *model.Model, sents []*corpus.Sentence) string {
	t.Helper()
	templates, learners := builtin.Registries()
	tg, err := tagger.New(m, templates, tagger.Options{Learners: learners})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	labels, err := tg.Tag(sents)
	if err != nil {
		t.Fatal(err)
	}
	best, err := tg.TagDetailed(sents, 3)
	if err != nil {
		t.Fatal(err)
	}
	marg, err := tg.Marginals(sents)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := tg.Explain(sents, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal([]any{labels, best, marg, ex})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// reloaded is m written to a model file and read back.
func reloaded(t *testing.T, m *model.Model) *model.Model {
	t.Helper()
	var buf bytes.Buffer
	if err := m.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	out, err := model.Decode(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// unseen are sentences of seen and unseen words: "a" after "a" and after
// the unseen "z" (p[-1]=z is unknown), "b" after "a".
var unseen = []*corpus.Sentence{
	{Tokens: [][]string{{"z", ""}, {"a", ""}, {"b", ""}}},
	{Tokens: [][]string{{"a", ""}, {"a", ""}, {"c", ""}, {"q", ""}}},
}

// TestUnknownAttrsRule: with p's unknown-value attribute dead, p[-1]=a
// (dead) goes and so do the dead unknown-value attributes, w[0]=b (dead)
// stays as a word of the vocabulary, and the outputs keep their bytes;
// with it live, no attribute goes (dropping p[-1]=a would change a score:
// checked), only the zero features.
func TestUnknownAttrsRule(t *testing.T) {
	for _, tc := range []struct {
		unknown float64
		names   Names
		gone    []string
	}{
		{0, NamesDropped, []string{"p[-1]=a", feature.UnknownAttrName(0), feature.UnknownAttrName(1)}},
		{0.5, NamesKeptUnknown, nil},
	} {
		m := weightedModel(t, tc.unknown)
		pm, r, err := Model(m)
		if err != nil {
			t.Fatal(err)
		}
		var gone []string
		for _, a := range m.Attrs {
			if !slices.Contains(pm.Attrs, a) {
				gone = append(gone, a)
			}
		}
		if r.Names != tc.names || !slices.Equal(gone, tc.gone) {
			t.Errorf("unknown weight %v: names %q, attributes gone %q; want %q, %q", tc.unknown, r.Names, gone, tc.names, tc.gone)
		}
		live := 0
		for _, v := range m.Linear.W[:m.Linear.NumFeatures()] {
			if v != 0 {
				live++
			}
		}
		if r.After.Features != live || !pm.Provenance.Pruned {
			t.Errorf("unknown weight %v: %d features kept, want the %d non-zero; pruned %v", tc.unknown, r.After.Features, live, pm.Provenance.Pruned)
		}
		if got, want := outputs(t, reloaded(t, pm), unseen), outputs(t, m, unseen); got != want {
			t.Errorf("unknown weight %v: pruned model's outputs differ\n got %s\nwant %s", tc.unknown, got, want)
		}
		if tc.unknown != 0 && outputs(t, dropAttr(t, pm, "p[-1]=a"), unseen) == outputs(t, m, unseen) {
			t.Errorf("dropping p[-1]=a beside a live unknown-value attribute changed nothing: the test cannot see the rule")
		}
	}
}

// dropAttr is m without the attribute name, which must have no features.
func dropAttr(t *testing.T, m *model.Model, name string) *model.Model {
	t.Helper()
	i := slices.Index(m.Attrs, name)
	if i < 0 {
		t.Fatalf("no attribute %q", name)
	}
	keep := make([]bool, len(m.Attrs))
	for a := range keep {
		keep[a] = a != i
	}
	out := *m
	out.Attrs = slices.Delete(slices.Clone(m.Attrs), i, i+1)
	out.Linear = m.Linear.Pruned(keep)
	out.UnknownAttrs = slices.Clone(m.UnknownAttrs)
	for g, u := range out.UnknownAttrs {
		if int(u) > i {
			out.UnknownAttrs[g]--
		}
	}
	return &out
}
