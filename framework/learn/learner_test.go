package learn

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/linear"
	"github.com/trellis-nlp/trellis/framework/registry"
)

type fakeLearner struct{}

func (*fakeLearner) Config() any                                      { return &struct{}{} }
func (*fakeLearner) Validate() hcl.Diagnostics                        { return nil }
func (*fakeLearner) Train(context.Context, *Problem) (*Result, error) { return nil, nil }

func TestRegistry(t *testing.T) {
	r := NewRegistry()
	for _, n := range []string{"perceptron", "hmm", "crf"} {
		if err := r.Register(n, func() Learner { return &fakeLearner{} }); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := r.Names(), []string{"crf", "hmm", "perceptron"}; !slices.Equal(got, want) {
		t.Errorf("Names() = %q, want %q", got, want)
	}
	tests := []struct {
		name    string
		lookup  string
		wantOK  bool
		suggest string
	}{
		{"registered", "hmm", true, "hmm"},
		{"typo", "hm", false, "hmm"},
		{"unrelated", "transformer", false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, ok := r.New(tc.lookup)
			if ok != tc.wantOK || (l != nil) != tc.wantOK {
				t.Errorf("New(%q) = %v, %v; want ok %v", tc.lookup, l, ok, tc.wantOK)
			}
			if s := r.Suggest(tc.lookup); s != tc.suggest {
				t.Errorf("Suggest(%q) = %q, want %q", tc.lookup, s, tc.suggest)
			}
		})
	}
	if err := r.Register("crf", func() Learner { return &fakeLearner{} }); !errors.Is(err, registry.ErrDuplicate) ||
		err.Error() != `learner type "crf" registered twice` {
		t.Errorf("second crf: %v", err)
	}
}

// TestStartModelRefusesLatent: a latent CRF's weights are over hidden
// states, so continuing one (init_model) is an error, not a model whose
// states are read as labels.
func TestStartModelRefusesLatent(t *testing.T) {
	d := feature.NewDataset()
	d.Attrs, d.TokenOff, d.Labels, d.SentOff = []int32{0}, []int{0, 1}, []int32{0}, []int{0, 1}
	init := linear.New(4, []int32{0, 0}, nil, true)
	init.HiddenStates = 2
	p := &Problem{Train: d, NumAttrs: 1, NumLabels: 2, Transitions: true, Init: init}
	if _, err := StartModel("observed", p); err == nil || !strings.Contains(err.Error(), "latent CRF") {
		t.Fatalf("got %v, want the latent CRF refused", err)
	}
}
