package online

import (
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// TestGohclSkipsEmbedded pins the reason learner configs repeat Config's
// fields: gohcl neither decodes an embedded Config nor lists its
// attributes. If this fails, gohcl has learnt to, and the learners can
// embed Config instead (and SettingsOf and CheckRepeats can go).
func TestGohclSkipsEmbedded(t *testing.T) {
	var c struct {
		Config
		X int `hcl:"x,optional"`
	}
	f, diags := hclsyntax.ParseConfig([]byte("epochs = 3\nx = 1\n"), "t.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	diags = gohcl.DecodeBody(f.Body, nil, &c)
	schema, _ := gohcl.ImpliedBodySchema(&c)
	if !diags.HasErrors() || c.Epochs != nil || len(schema.Attributes) != 1 {
		t.Fatalf("gohcl decoded the embedded struct (diags %v, epochs %v, schema %v)", diags, c.Epochs, schema.Attributes)
	}
}

// full repeats Config's fields plus one of its own.
type full struct {
	Epochs    *int   `hcl:"epochs,optional" json:"epochs,omitempty"`
	Shuffle   *bool  `hcl:"shuffle,optional" json:"shuffle,omitempty"`
	Average   *bool  `hcl:"average,optional" json:"average,omitempty"`
	BestEpoch *bool  `hcl:"best_epoch,optional" json:"best_epoch,omitempty"`
	Features  string `hcl:"features,optional" json:"features,omitempty"`
	InitModel string `hcl:"init_model,optional" json:"init_model,omitempty"`
	Shards    int    `hcl:"shards,optional" json:"shards,omitempty"`
	Mix       string `hcl:"mix,optional" json:"mix,omitempty"`
	Own       *int   `hcl:"own,optional" json:"own,omitempty"`
}

func TestSettingsOf(t *testing.T) {
	cfg := &full{Epochs: new(3), Shuffle: new(false), Average: new(true), BestEpoch: new(false),
		Features: "all", InitModel: "m.model", Shards: 4, Mix: "mistakes", Own: new(7)}
	want := &Config{Epochs: cfg.Epochs, Shuffle: cfg.Shuffle, Average: cfg.Average, BestEpoch: cfg.BestEpoch,
		Features: "all", InitModel: "m.model", Shards: 4, Mix: "mistakes"}
	if got := SettingsOf(cfg); !reflect.DeepEqual(got, want) {
		t.Fatalf("SettingsOf = %+v, want %+v", got, want)
	}
	if err := CheckRepeats(cfg); err != nil {
		t.Fatal(err)
	}
}

func TestCheckRepeats(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  any
		want []string
	}{
		{"missing", &struct {
			Epochs *int `hcl:"epochs,optional" json:"epochs,omitempty"`
		}{}, []string{"lacks the online setting Shuffle", "lacks the online setting InitModel"}},
		{"other type", &struct {
			full
			Epochs int `hcl:"epochs,optional" json:"epochs,omitempty"`
		}{}, []string{"Epochs is a int, online.Config's a *int"}},
		{"other tag", &struct {
			full
			Features string `hcl:"feature,optional" json:"features,omitempty"`
		}{}, []string{`Features has tags hcl:"feature,optional"`}},
		{"not a struct pointer", full{}, []string{"not a pointer to a struct"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckRepeats(tc.cfg)
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%v\nlacks %q", err, w)
				}
			}
		})
	}
}
