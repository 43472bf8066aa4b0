package spec_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/framework/spec"
)

// TestStageDecodes checks a second-stage learner's stage block (defaults
// and settings) and which templates each learner trains on: the first
// stage those that read no stage column, the second those and the ones
// that read its column.
func TestStageDecodes(t *testing.T) {
	src, err := os.ReadFile("testdata/bad/stage_unknown_from.hcl")
	if err != nil {
		t.Fatal(err)
	}
	good := strings.Replace(string(src), `from   = "perceptorn"`, `from   = "perceptron"`, 1)
	s, diags := spec.Decode("testdata/bad/stage_good.hcl", []byte(good), nil, registries())
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	second := s.Learner("second")
	want := spec.Stage{From: "perceptron", Column: "pred", Folds: spec.DefaultStageFolds, By: spec.StageByDocument}
	if st := second.Stage; st == nil || st.From != want.From || st.Column != want.Column || st.Folds != want.Folds || st.By != want.By {
		t.Fatalf("stage = %+v, want %+v", second.Stage, want)
	}
	names := func(ts []*spec.TemplateInstance) []string {
		var out []string
		for _, ti := range ts {
			out = append(out, ti.Name)
		}
		return out
	}
	if got := names(s.TemplatesFor(s.Learner("perceptron"))); !slices.Equal(got, []string{"w", "trans"}) {
		t.Errorf("first stage templates = %v, want [w trans]", got)
	}
	if got := names(s.TemplatesFor(second)); !slices.Equal(got, []string{"w", "p", "trans"}) {
		t.Errorf("second stage templates = %v, want [w p trans]", got)
	}
}

// TestTunedFirstStageWarns: a tune block on a first stage decodes, with a
// warning at the block that the stage trains it with its declared settings.
func TestTunedFirstStageWarns(t *testing.T) {
	src, err := os.ReadFile("testdata/bad/stage_tune.hcl")
	if err != nil {
		t.Fatal(err)
	}
	tuned := strings.Replace(string(src), `tune "second"`, `tune "perceptron"`, 1)
	s, diags := spec.Decode("testdata/bad/stage_tuned_first.hcl", []byte(tuned), nil, registries())
	if diags.HasErrors() || s == nil {
		t.Fatal(diags)
	}
	if len(diags) != 1 || diags[0].Summary != "Tuned first stage" || diags[0].Subject == nil || diags[0].Subject.Start.Line != 50 {
		t.Errorf("diagnostics %v", diags)
	}
}

// TestFirstStageChecks: a first stage continues no model (its fold models
// would start from weights that may have seen what they predict); a tune
// block on a first stage named by two second stages warns once; a stage
// block's settings are each checked, not only the first wrong one.
func TestFirstStageChecks(t *testing.T) {
	src, err := os.ReadFile("testdata/bad/stage_unknown_from.hcl")
	if err != nil {
		t.Fatal(err)
	}
	good := strings.Replace(string(src), "perceptorn", "perceptron", 1)
	summaries := func(diags hcl.Diagnostics) []string {
		var out []string
		for _, d := range diags {
			out = append(out, d.Summary)
		}
		return out
	}
	t.Run("init_model", func(t *testing.T) {
		bad := strings.Replace(good, "learner \"perceptron\" {\n  type = \"perceptron\"\n", "learner \"perceptron\" {\n  type = \"perceptron\"\n  init_model = \"m.model\"\n", 1)
		_, diags := spec.Decode("testdata/bad/first_init.hcl", []byte(bad), nil, registries())
		if !slices.Contains(summaries(diags), "init_model on a first stage") {
			t.Errorf("diagnostics %v", diags)
		}
	})
	t.Run("tuned by two", func(t *testing.T) {
		two := good + "\nlearner \"third\" {\n  type = \"perceptron\"\n  stage {\n    from = \"perceptron\"\n    column = \"pred\"\n  }\n}\n\ntune \"perceptron\" {\n  epochs = [1, 2]\n}\n"
		s, diags := spec.Decode("testdata/bad/two_seconds.hcl", []byte(two), nil, registries())
		if diags.HasErrors() || s == nil {
			t.Fatal(diags)
		}
		if got := summaries(diags); !slices.Equal(got, []string{"Tuned first stage"}) {
			t.Errorf("diagnostics %v, want one warning", diags)
		}
	})
	t.Run("folds and by", func(t *testing.T) {
		bad := strings.Replace(good, `column = "pred"`, "column = \"pred\"\n    folds = 1\n    by = \"doc\"", 1)
		_, diags := spec.Decode("testdata/bad/folds_by.hcl", []byte(bad), nil, registries())
		got := summaries(diags)
		if !slices.Contains(got, "Invalid folds") || !slices.Contains(got, "Invalid by") {
			t.Errorf("diagnostics %v, want both", diags)
		}
	})
}
