package spec_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/scheme"
	"github.com/trellis-nlp/trellis/framework/spec"
)

var update = flag.Bool("update", false, "rewrite golden files")

func registries() spec.Registries {
	t, l := builtin.Registries()
	return spec.Registries{Templates: t, Learners: l}
}

// render decodes a spec file the way `trellis validate` does and returns
// its diagnostics as printed.
func render(t *testing.T, path string, vars map[string]string) (*spec.Spec, hcl.Diagnostics, string) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, diags := spec.Decode(path, src, vars, registries())
	var buf bytes.Buffer
	spec.WriteDiagnostics(&buf, diags, map[string][]byte{path: src})
	return s, diags, buf.String()
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -update rewrites it)\n--- got ---\n%s--- want ---\n%s", path, got, want)
	}
}

// locRE matches the compiler-style position that starts a diagnostic.
var locRE = regexp.MustCompile(`(?m)^(testdata/bad/[a-z_]+\.hcl):(\d+):(\d+): error: `)

// snippetRE matches the quoted source line and its caret line.
var snippetRE = regexp.MustCompile(`(?m)^ +\d+ \| .*\n +\| *\^+$`)

func TestGoodSpecDecodes(t *testing.T) {
	s, diags, out := render(t, "testdata/good.hcl", nil)
	if diags.HasErrors() || s == nil {
		t.Fatalf("good.hcl does not decode:\n%s", out)
	}
	if s.Name != "tiny" || s.Seed != 7 {
		t.Errorf("experiment = %q seed %d, want tiny seed 7", s.Name, s.Seed)
	}
	if got, want := s.Corpus("train").Path, filepath.Join("testdata", "data", "tiny.conll"); got != want {
		t.Errorf("corpus path = %q, want %q", got, want)
	}
	if s.Labels.Scheme != scheme.IOB2 || !s.Labels.Constrained {
		t.Errorf("labels = %+v, want iob2 constrained", s.Labels)
	}
	if len(s.Features.Templates) != 2 || len(s.Learners) != 1 {
		t.Errorf("%d templates, %d learners; want 2, 1", len(s.Features.Templates), len(s.Learners))
	}
}

// TestBadSpecDiagnostics checks, for each broken spec in testdata/bad, the
// diagnostics exactly as `trellis validate` prints them.
func TestBadSpecDiagnostics(t *testing.T) {
	tests := []struct {
		name string
		vars map[string]string
		// want are substrings the rendering must contain, besides the golden
		// comparison, so the intent survives a careless -update.
		want []string
	}{
		{name: "unknown_block", want: []string{`Did you mean "corpus"?`}},
		{name: "unknown_template_attr", want: []string{`Did you mean "column"?`}},
		{name: "wrong_type", want: []string{"offsets"}},
		{name: "missing_corpus_file", want: []string{"Corpus file not found", "missing.conll"}},
		{name: "unknown_template_column", want: []string{"wrod"}},
		{name: "unknown_label_column", want: []string{"Unknown label column", `Did you mean "chunk"?`}},
		{name: "unknown_learner_type", want: []string{"Unknown learner type", `Did you mean "hmm"?`}},
		{name: "unknown_template_type", want: []string{`Did you mean "emission"?`}},
		{name: "bad_scheme", want: []string{"Unknown label scheme", `Did you mean "iob1"?`}},
		{name: "eval_undefined_corpus", want: []string{"Unknown corpus", "Choose one of: train."}},
		{name: "duplicate_learner", want: []string{"Duplicate learner"}},
		{name: "undefined_variable", want: []string{"dta"}},
		{name: "unknown_var_override", vars: map[string]string{"dat": "x", "zzz_other": "y"},
			want: []string{"Unknown variable", `did you mean "data"?`, "zzz_other"}},
		{name: "bad_hmm_smoothing", want: []string{"emission_smoothing must be a positive number"}},
		{name: "unknown_format", want: []string{"Unknown corpus format", `Did you mean "conll"?`}},
		{name: "bad_seed", want: []string{"Invalid seed"}},
		{name: "bad_dataset", want: []string{"Invalid dataset", `"memory" (the default), "disk" or "auto"`, `got "ssd"`, "Invalid memory_budget", `got "lots"`}},
		{name: "budget_in_memory", want: []string{"memory_budget with the training set in memory"}},
		{name: "missing_labels", want: []string{"Missing labels block"}},
		{name: "syntax_error", want: []string{"error: "}},
		{name: "bad_split", want: []string{"Invalid split"}},
		{name: "bad_encode", want: []string{"Unknown training encoding", `Did you mean "bioes"?`}},
		{name: "tune_unknown_learner", want: []string{"Unknown learner", `Did you mean "crf"?`}},
		{name: "tune_unknown_setting", want: []string{"Unknown learner setting", `has no setting "c_2". Did you mean "c2"?`}},
		{name: "tune_bad_value", want: []string{"Invalid value", "c2 = -1", "Setting is not a number", `"algorithm"`}},
		{name: "tune_method", want: []string{"Invalid trials", "Folds with a dev corpus"}},
		{name: "tune_unknown_method", want: []string{"Unknown tuning method", `Did you mean "grid"?`}},
		{name: "encode_without_spans", want: []string{"Encoding without spans", "the labels' scheme is none"}},
		{name: "two_transitions", want: []string{"More than one transition template"}},
		{name: "bigram_bad_labels", want: []string{"Invalid labels", `Did you mean "bigram"?`}},
		{name: "bigram_tune_latent", want: []string{"Invalid value", "hidden_states = 2 makes learner", `labels = "bigram"`}},
		{name: "second_order_tune_latent", want: []string{"Invalid value", "hidden_states = 2 makes learner", "second-order model"}},
		{name: "bigram_transition", want: []string{"Invalid labels", "is the label bigrams themselves"}},
		{name: "decisions_learner", want: []string{"Decision-history template with a learner that cannot use it", `learner "perceptron" (type perceptron`, `learner "crf" (type crf`, "Learner types that take it: transition."}},
		{name: "decisions_twice", want: []string{"Second decisions template", `template "hist"`}},
		{name: "transition_beam", want: []string{"Invalid beam width", "beam must be between 1 (greedy) and 1024, got 0", "decodes by its own left-to-right search", "Update without a beam", "Roll-in setting with a beam"}},
		{name: "bigram_hmm", want: []string{"Bigram template with a learner that cannot train it", `learner "hmm" (type hmm`, `learner "memm" (type memm`}},
		{name: "pa_crf_setting", want: []string{"Unsupported learner setting", `Learner type pa does not take "c1"`, "setting of crf, maxent and memm."}},
		{name: "rerank_bad_by", want: []string{"Invalid by", `There is no fold unit "sentense". Did you mean "sentence"?`}},
		{name: "rerank_sentence_doc", want: []string{"Document features with sentence folds", `Remove "doc" from features`, `by = "document"`}},
		{name: "perceptron_variance", want: []string{`Learner type perceptron does not take "variance"`, "setting of arow."}},
		{name: "misspelt_setting", want: []string{`Learner type arow does not take "epoch"`, `Did you mean "epochs"?`}},
		{name: "beam_without_decode", want: []string{"Unsupported learner setting", `this learner decodes with greedy`, `decode = "beam"`}},
		{name: "unknown_decode", want: []string{"Unknown decoding method", `Did you mean "greedy"?`}},
		{name: "beam_missing_width", want: []string{"Missing beam width", "beam = N"}},
		{name: "hmm_hidden_states", want: []string{`Learner type hmm does not take "hidden_states"`, "It is a setting of crf."}},
		{name: "memm_hidden_states", want: []string{`Learner type memm does not take "hidden_states"`, "It is a setting of crf."}},
		{name: "crf_hidden_states_one", want: []string{"Invalid CRF setting", "hidden_states must be between 2 and 32", "hidden_states = 1"}},
		{name: "crf_warm_start_sgd", want: []string{"Invalid CRF setting", "warm_start_epochs warms L-BFGS", "warm_start_epochs = 3"}},
		{name: "misspelt_decode", want: []string{`Learner type hmm does not take "decod"`, `Did you mean "decode"?`}},
		{name: "stage_unknown_from", want: []string{"Unknown learner", `Did you mean "perceptron"?`}},
		{name: "stage_self_cycle", want: []string{"Stage cycle", "its own predictions"}},
		{name: "stage_cycle", want: []string{"Stage cycle", "a cycle."}},
		{name: "stage_chain", want: []string{"Unsupported stage chain", `Learner "second" is itself a second stage`}},
		{name: "stage_folds", want: []string{"Invalid folds", "at least 2 folds"}},
		{name: "stage_by", want: []string{"Invalid by", `Did you mean "document"?`}},
		{name: "stage_column_clash", want: []string{"Stage column clashes with a corpus column", `"pos"`}},
		{name: "stage_tune", want: []string{"Tuning a second stage"}},
		{name: "stage_two_blocks", want: []string{"Duplicate stage block"}},
		{name: "stage_model_settings", want: []string{"Stage with both from and model", `from = "perceptron"`,
			"Jackknifing setting with a model stage", "Remove folds.", "Remove by.", "Missing stage column", `column = "..."`,
			"Stage without a first stage", `from = "LEARNER"`, `model = "NAME"`,
			"Stage column clashes with a corpus column", "a model stage adds its labels as a new column", `"gold_pos"`}},
		{name: "stage_model_load", want: []string{"Unknown model", `nor a shipped model "en-xpso"`, `Did you mean "en-xpos"?`,
			"Stage model cannot label this corpus", "en-tokenizer", "labels characters, not tokens"}},
		{name: "tune_combination", want: []string{"Invalid combination of values", "c1 = 0.5, warm_start_epochs = 2", "warm_start_epochs needs c1 = 0"}},
		{name: "tnt_min_count", want: []string{"Pruning with a learner that reads every attribute", "min_count = 2", "min_count = 3 would drop"}},
		{name: "tnt_templates", want: []string{"Invalid rare_frequency", "rare_frequency = 0", `Learner "tnt" (type tnt)`, `template "shape" is of type shape`}},
		{name: "history_predicted", want: []string{"Invalid template", `unknown column "prd"`, `Did you mean "pred"?`}},
		{name: "joint_bad_match", want: []string{"Invalid match", `Did you mean "token"?`}},
		{name: "joint_words_span", want: []string{`words without match = "token"`}},
		{name: "joint_bad_settings", want: []string{"Invalid penalty", "Invalid iterations", "Invalid step"}},
		{name: "joint_decode_beam", want: []string{"Joint decoding needs viterbi", "decodes with beam"}},
		{name: "rerank_bad_settings", want: []string{"Invalid k", "Invalid folds", `Did you mean "maxent"?`, `Did you mean "doc"?`}},
		{name: "rerank_empty", want: []string{"Empty rerank block", "k = 20, folds = 10"}},
		{name: "rerank_trainer_setting", want: []string{"Unsupported rerank setting", "Invalid c2"}},
		{name: "rerank_without_spans", want: []string{"Reranking without spans", "scheme is none"}},
		{name: "rerank_joint", want: []string{"Reranking with joint decoding"}},
		{name: "rerank_decode", want: []string{"Reranking needs viterbi", "decodes with greedy"}},
		{name: "rerank_transition", want: []string{"Reranking a transition learner"}},
		{name: "rerank_twice", want: []string{"Duplicate rerank block"}},
		{name: "constraint_bad", want: []string{"Empty constraint", "Invalid max", "Duplicate constraint"}},
		{name: "constraint_iob_one", want: []string{"Constraints need iob2 or bioes", `encode = "iob2"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := "testdata/bad/" + tc.name + ".hcl"
			s, diags, out := render(t, path, tc.vars)
			if !diags.HasErrors() {
				t.Fatalf("no error diagnostics for %s", path)
			}
			if s != nil {
				t.Errorf("Decode returned a spec along with errors")
			}
			golden(t, "testdata/bad/"+tc.name+".golden", out)
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("diagnostics lack %q:\n%s", w, out)
				}
			}
			// Every error must say where it is and quote the source there.
			for _, d := range diags {
				if d.Severity == hcl.DiagError && d.Subject == nil {
					t.Errorf("diagnostic %q has no source range", d.Summary)
				}
			}
			m := locRE.FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("no file:line:col in:\n%s", out)
			}
			if !snippetRE.MatchString(out) {
				t.Errorf("no source snippet with carets in:\n%s", out)
			}
		})
	}
}

// TestDiagnosticsDeterministic decodes each bad spec repeatedly: output
// that depends on map order would make validate's output flaky.
func TestDiagnosticsDeterministic(t *testing.T) {
	vars := map[string]string{"a1": "1", "b2": "2", "c3": "3", "d4": "4", "e5": "5"}
	_, _, first := render(t, "testdata/bad/unknown_var_override.hcl", vars)
	for i := 0; i < 20; i++ {
		if _, _, out := render(t, "testdata/bad/unknown_var_override.hcl", vars); out != first {
			t.Fatalf("diagnostics differ between runs:\n%s\nvs\n%s", first, out)
		}
	}
}

func TestWriteDiagnostics(t *testing.T) {
	src := []byte("a = 1\n\tbb = \"x\"\nc = 3\n")
	rng := func(l1, c1, l2, c2 int) *hcl.Range {
		return &hcl.Range{Filename: "f.hcl", Start: hcl.Pos{Line: l1, Column: c1}, End: hcl.Pos{Line: l2, Column: c2}}
	}
	tests := []struct {
		name string
		diag *hcl.Diagnostic
		want string
	}{
		{"no subject", &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Oops", Detail: "Bad."},
			"error: Oops; Bad.\n"},
		{"warning", &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Hm", Subject: rng(1, 5, 1, 6)},
			"f.hcl:1:5: warning: Hm\n    1 | a = 1\n      |     ^\n"},
		{"tab kept in padding", &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "S", Detail: "D", Subject: rng(2, 7, 2, 10)},
			"f.hcl:2:7: error: S; D\n    2 | \tbb = \"x\"\n      | \t     ^^^\n"},
		{"multi-line range underlines to end of line", &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "S", Subject: rng(1, 1, 3, 2)},
			"f.hcl:1:1: error: S\n    1 | a = 1\n      | ^^^^^\n"},
		{"line out of range prints no snippet", &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "S", Subject: rng(40, 1, 40, 2)},
			"f.hcl:40:1: error: S\n"},
		{"unknown file prints no snippet", &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "S",
			Subject: &hcl.Range{Filename: "other.hcl", Start: hcl.Pos{Line: 1, Column: 1}, End: hcl.Pos{Line: 1, Column: 2}}},
			"other.hcl:1:1: error: S\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			spec.WriteDiagnostics(&buf, hcl.Diagnostics{tc.diag}, map[string][]byte{"f.hcl": src})
			if buf.String() != tc.want {
				t.Errorf("got\n%q\nwant\n%q", buf.String(), tc.want)
			}
		})
	}
}

// placeholderData creates, under a temporary folder, empty files at every
// path the shipped specs expect below their data_dir.
func placeholderData(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, p := range []string{
		"conll2000/train.txt", "conll2000/test.txt",
		"conll2003/eng.train", "conll2003/eng.testa",
		"sighan2005-msr/msr_test_gold.utf8", "sighan2005-msr/msr_training_words.utf8",
		"ud-english-ewt/en_ewt-ud-train.conllu", "ud-english-ewt/en_ewt-ud-dev.conllu", "ud-english-ewt/en_ewt-ud-test.conllu",
	} {
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		// The corpora are not read when a spec decodes; a lexicon's word
		// list is, and must not be empty.
		if err := os.WriteFile(p, []byte("placeholder\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// pluginBlock finds specs that use plugins, which need plugin binaries.
var pluginBlock = regexp.MustCompile(`(?m)^\s*plugin\s+"`)

var dataDirVariable = regexp.MustCompile(`(?m)^variable\s+"data_dir"`)

var clustersVariable = regexp.MustCompile(`(?m)^variable\s+"clusters"`)

func TestShippedSpecsDecode(t *testing.T) {
	files, err := filepath.Glob("../../specs/*.hcl")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 5 {
		t.Fatalf("found only %d specs in ../../specs", len(files))
	}
	data := placeholderData(t)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if pluginBlock.Match(src) {
				t.Skip("uses plugins; decoded with freshly built plugins by framework/plugin's TestShippedPluginSpecsDecode")
			}
			// Specs of the public corpora read them through data_dir; the
			// others use the sample shipped in specs/data.
			var vars map[string]string
			if dataDirVariable.Match(src) {
				vars = map[string]string{"data_dir": data}
			}
			// A cluster file is built, not shipped (builtin/clusters):
			// the specs that read one get a small one.
			if clustersVariable.Match(src) {
				abs, err := filepath.Abs("../../builtin/clusters/testdata/small.clusters")
				if err != nil {
					t.Fatal(err)
				}
				vars["clusters"] = abs
			}
			s, diags, out := render(t, f, vars)
			if diags.HasErrors() || s == nil {
				t.Fatalf("%s does not decode:\n%s", f, out)
			}
			if len(diags) > 0 {
				t.Errorf("%s decodes with warnings:\n%s", f, out)
			}
			roles := []string{s.Evaluation.Train, s.Evaluation.Test}
			if s.Evaluation.Folds > 1 {
				roles = roles[:1] // cross-validated: no test corpus
			}
			for _, role := range roles {
				c := s.Corpus(role)
				if c == nil {
					t.Fatalf("evaluation corpus %q missing", role)
				}
				if vars != nil && !strings.HasPrefix(c.Path, data+string(filepath.Separator)) {
					t.Errorf("corpus %s path %q is not under --var data_dir %q", c.Name, c.Path, data)
				}
			}
			if len(s.Learners) == 0 || len(s.Features.Templates) == 0 {
				t.Errorf("no learners or templates decoded")
			}
			if s.Hash == "" || s.Variables["data_dir"] == "" && s.Variables["sample_dir"] == "" {
				t.Errorf("hash %q / variables %v not recorded", s.Hash, s.Variables)
			}
		})
	}
}

func TestVariables(t *testing.T) {
	// A copy of the sample data's layout, to override sample_dir with.
	alt := t.TempDir()
	for _, f := range []string{"train.conllu", "dev.conllu", "test.conllu"} {
		if err := os.WriteFile(filepath.Join(alt, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	specDir := filepath.Join("..", "..", "specs")
	tests := []struct {
		name      string
		vars      map[string]string
		wantTrain string
		wantVar   string
	}{
		{"default", nil, filepath.Join(specDir, "data", "ud-ewt-sample", "train.conllu"), "data/ud-ewt-sample"},
		{"override absolute", map[string]string{"sample_dir": alt}, filepath.Join(alt, "train.conllu"), alt},
		{"override relative to the spec", map[string]string{"sample_dir": "./data/ud-ewt-sample"},
			filepath.Join(specDir, "data", "ud-ewt-sample", "train.conllu"), "./data/ud-ewt-sample"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, diags, out := render(t, filepath.Join(specDir, "quickstart.hcl"), tc.vars)
			if diags.HasErrors() {
				t.Fatalf("decode:\n%s", out)
			}
			if got := s.Corpus("train").Path; got != tc.wantTrain {
				t.Errorf("train path = %q, want %q", got, tc.wantTrain)
			}
			if got := s.Variables["sample_dir"]; got != tc.wantVar {
				t.Errorf("recorded sample_dir = %q, want %q", got, tc.wantVar)
			}
		})
	}
}

// TestVariableTypes checks that --var values take the type of the
// variable's default.
func TestVariableTypes(t *testing.T) {
	src := func(def string) []byte {
		return []byte(`
variable "seed" {
  default = ` + def + `
}
experiment "x" {
  seed = var.seed
}
corpus "train" {
  path    = "testdata/data/tiny.conll"
  format  = "conll"
  columns = ["word", "pos", "chunk"]
}
labels {
  column = "chunk"
}
features {
  transition "t" {}
}
learner "hmm" {
  type = "hmm"
}
evaluation {
  train = "train"
  test  = "train"
}
`)
	}
	tests := []struct {
		name     string
		def      string
		vars     map[string]string
		wantSeed uint64
		wantErr  string
	}{
		{"default number", "3", nil, 3, ""},
		{"number override", "3", map[string]string{"seed": "42"}, 42, ""},
		{"non-number override of a number", "3", map[string]string{"seed": "abc"}, 0, "--var seed=abc: the variable is a number"},
		{"no default, given", "null", map[string]string{"seed": "5"}, 5, ""},
		{"no default, not given", "null", nil, 0, "Variable without a value"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, diags := spec.Decode("vars.hcl", src(tc.def), tc.vars, registries())
			var buf bytes.Buffer
			spec.WriteDiagnostics(&buf, diags, nil)
			if tc.wantErr != "" {
				if !diags.HasErrors() || !strings.Contains(buf.String(), tc.wantErr) {
					t.Fatalf("want an error mentioning %q, got:\n%s", tc.wantErr, buf.String())
				}
				return
			}
			if diags.HasErrors() {
				t.Fatalf("decode:\n%s", buf.String())
			}
			if s.Seed != tc.wantSeed {
				t.Errorf("seed = %d, want %d", s.Seed, tc.wantSeed)
			}
		})
	}
}

func TestSplitKeep(t *testing.T) {
	var none *spec.Split
	fold := &spec.Split{Folds: 10, Fold: 0, Take: "fold"}
	rest := &spec.Split{Folds: 10, Fold: 0, Take: "rest"}
	nFold, nRest := 0, 0
	for k := 0; k < 100; k++ {
		if !none.Keep(k) {
			t.Fatalf("nil split dropped sentence %d", k)
		}
		if fold.Keep(k) == rest.Keep(k) {
			t.Fatalf("sentence %d is in both or neither part", k)
		}
		if fold.Keep(k) {
			nFold++
		} else {
			nRest++
		}
	}
	if nFold != 10 || nRest != 90 || !fold.Keep(0) || !fold.Keep(90) || fold.Keep(1) {
		t.Errorf("fold kept %d, rest %d; want 10, 90 with sentences 0, 10, … in the fold", nFold, nRest)
	}
}

func FuzzDecode(f *testing.F) {
	seeds, _ := filepath.Glob("../../specs/*.hcl")
	more, _ := filepath.Glob("testdata/bad/*.hcl")
	seeds = append(append(seeds, more...), "testdata/good.hcl")
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(""))
	f.Add([]byte("variable \"x\" {\n default = [1, {a = 2}]\n}\nexperiment \"e\" { seed = var.x }\n"))
	f.Add([]byte("labels { column = null }\nevaluation { train = null\n test = 1 }\n"))
	reg := registries()
	f.Fuzz(func(t *testing.T, src []byte) {
		// The file name puts relative corpus paths under testdata, so a
		// fuzzed spec may reach real (tiny) files.
		name := "testdata/fuzz.hcl"
		s, diags := spec.Decode(name, src, map[string]string{"data": "data/tiny.conll"}, reg)
		if diags.HasErrors() && s != nil {
			t.Errorf("Decode returned a spec along with errors")
		}
		if !diags.HasErrors() && s == nil {
			t.Errorf("Decode returned neither a spec nor errors")
		}
		var buf bytes.Buffer
		spec.WriteDiagnostics(&buf, diags, map[string][]byte{name: src})
	})
}

// TestLearnerDecoding: decode and beam are settings of every learner
// block; without them a learner decodes with Viterbi.
func TestLearnerDecoding(t *testing.T) {
	src, err := os.ReadFile("testdata/good.hcl")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		settings string
		method   lattice.Method
		beam     int
	}{
		{``, lattice.DecodeViterbi, 0},
		{`decode = "greedy"`, lattice.DecodeGreedy, 0},
		{`decode = "Posterior"`, lattice.DecodePosterior, 0},
		{"decode = \"beam\"\n  beam = 4", lattice.DecodeBeam, 4},
	} {
		t.Run(c.method.String(), func(t *testing.T) {
			text := strings.Replace(string(src), `  type = "hmm"`, "  type = \"hmm\"\n  "+c.settings, 1)
			path := filepath.Join("testdata", "decoding.hcl")
			s, diags := spec.Decode(path, []byte(text), nil, registries())
			if diags.HasErrors() {
				t.Fatalf("%s", diags.Error())
			}
			if l := s.Learners[0]; l.Decode != c.method || l.Beam != c.beam {
				t.Fatalf("decode %v beam %d, want %v beam %d", l.Decode, l.Beam, c.method, c.beam)
			}
		})
	}
}

// TestEncode checks what the labels block's encode turns into: BILOU is
// read as BIOES, encoding in the corpus's own scheme is no encoding, and
// constrained decoding follows the scheme the learners decode in.
func TestEncode(t *testing.T) {
	src, err := os.ReadFile("testdata/good.hcl")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		scheme, encode string
		want           scheme.Scheme
		training       scheme.Scheme
		constrained    bool
	}{
		{"iob1", "bioes", scheme.BIOES, scheme.BIOES, true},
		{"iob1", "BILOU", scheme.BIOES, scheme.BIOES, true},
		{"iob1", "iob2", scheme.IOB2, scheme.IOB2, true},
		{"bioes", "iob1", scheme.IOB1, scheme.IOB1, false},
		{"iob2", "iob2", scheme.None, scheme.IOB2, true},
		{"iob2", "bio", scheme.None, scheme.IOB2, true},
	}
	for _, tt := range tests {
		t.Run(tt.scheme+"-"+tt.encode, func(t *testing.T) {
			text := strings.Replace(string(src), `scheme = "iob2"`, `scheme = "`+tt.scheme+`"
  encode = "`+tt.encode+`"`, 1)
			s, diags := spec.Decode("testdata/good.hcl", []byte(text), nil, registries())
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			if s.Labels.Encode != tt.want || s.Labels.Training() != tt.training || s.Labels.Constrained != tt.constrained {
				t.Errorf("labels %+v (training %v), want encode %v, training %v, constrained %v",
					s.Labels, s.Labels.Training(), tt.want, tt.training, tt.constrained)
			}
		})
	}
}

// TestManifestRecordsTemplateSettings: the spec as the manifest records it
// (marshalled to JSON) carries every template's settings, not {}.
func TestManifestRecordsTemplateSettings(t *testing.T) {
	s, diags, out := render(t, filepath.Join("..", "..", "specs", "quickstart.hcl"), nil)
	if diags.HasErrors() {
		t.Fatal(out)
	}
	b, err := json.Marshal(s.Features)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Templates []struct {
			Type, Name string
			Config     map[string]any
		}
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Templates) != len(s.Features.Templates) {
		t.Fatalf("%d templates in %s, want %d", len(got.Templates), b, len(s.Features.Templates))
	}
	w := got.Templates[0]
	if w.Type != "emission" || w.Name != "w" || w.Config["column"] != "form" || w.Config["lowercase"] != true {
		t.Errorf("first template recorded as %+v, want emission w with column form, lowercase true", w)
	}
}
