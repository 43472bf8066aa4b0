package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// learnDir is a fresh folder holding the tiny chunking corpus as train.txt
// and test.txt.
func learnDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	train, test := chunkCorpora(t)
	writeLearnFile(t, dir, "train.txt", train)
	writeLearnFile(t, dir, "test.txt", test)
	return dir
}

func writeLearnFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// entriesOf lists the names in dir, hidden ones included.
func entriesOf(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// TestLearnThenEval is the command a CRFsuite user types, then trellis
// eval and trellis tag on the model: the spec is written beside the model
// with the layout read from the data, and nothing else is left behind.
func TestLearnThenEval(t *testing.T) {
	dir := learnDir(t)
	model := filepath.Join(dir, "chunk.model")
	stdout, _ := mustRun(t, "", "learn", "-m", model, filepath.Join(dir, "train.txt"), "--threads", "1")
	if !strings.Contains(stdout, "crf ") || !strings.Contains(stdout, "F1") {
		t.Errorf("learn printed no score table:\n%s", stdout)
	}
	if got, want := entriesOf(t, dir), []string{"chunk.hcl", "chunk.model", "test.txt", "train.txt"}; !slices.Equal(got, want) {
		t.Errorf("folder holds %q, want %q", got, want)
	}
	src := string(readFile(t, filepath.Join(dir, "chunk.hcl")))
	for _, want := range []string{
		`path    = "train.txt"`, `format  = "conll"`, `columns = ["word", "pos", "label"]`,
		`scheme = "iob2"`, `emission "pos3"`, `suffix "suf"`, `shape "shape"`, `learner "crf"`,
		`test  = "train"`, "# The spec trellis learn trained chunk.model with:",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("spec lacks %q:\n%s", want, src)
		}
	}
	out, _ := mustRun(t, "", "eval", "--model", model, filepath.Join(dir, "test.txt"))
	if !strings.Contains(out, "FB1:") {
		t.Errorf("eval printed no conlleval report:\n%s", out)
	}
	tagged, _ := mustRun(t, "", "tag", "--model", model, filepath.Join(dir, "test.txt"))
	if got, want := strings.Count(tagged, "\n"), strings.Count(string(readFile(t, filepath.Join(dir, "test.txt"))), "\n"); got != want {
		t.Errorf("tag wrote %d lines for the %d of the input", got, want)
	}
}

// TestLearnReproducedByRun: the spec learn writes is what trained the
// model, so `trellis run` of it makes the same bytes, from another
// folder than the data's too (its paths are relative to it).
func TestLearnReproducedByRun(t *testing.T) {
	dir := learnDir(t)
	specDir := filepath.Join(dir, "specs")
	if err := os.Mkdir(specDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, alg := range []string{"crf", "perceptron"} {
		t.Run(alg, func(t *testing.T) {
			model := filepath.Join(dir, alg+".model")
			specPath := filepath.Join(specDir, alg+".hcl")
			mustRun(t, "", "learn", "-m", model, filepath.Join(dir, "train.txt"), "--algorithm", alg,
				"--spec-out", specPath, "--dev", filepath.Join(dir, "test.txt"), "--seed", "7")
			src := string(readFile(t, specPath))
			for _, want := range []string{`path    = "../train.txt"`, `path    = "../test.txt"`, `seed        = 7`, `test  = "dev"`} {
				if !strings.Contains(src, want) {
					t.Errorf("spec lacks %q:\n%s", want, src)
				}
			}
			out := filepath.Join(t.TempDir(), "run")
			mustRun(t, "", "run", specPath, "--out", out, "--threads", "2")
			if !bytes.Equal(readFile(t, filepath.Join(out, "models", alg+".model")), readFile(t, model)) {
				t.Errorf("trellis run %s made another model than trellis learn", specPath)
			}
		})
	}
}

// TestLearnScoresDev: with --dev the table learn prints is the dev
// file's score, the one trellis eval gives.
func TestLearnScoresDev(t *testing.T) {
	dir := learnDir(t)
	model := filepath.Join(dir, "m.model")
	stdout, _ := mustRun(t, "", "learn", "-m", model, filepath.Join(dir, "train.txt"), "-a", "hmm", "--dev", filepath.Join(dir, "test.txt"))
	js, _ := mustRun(t, "", "eval", "--model", model, filepath.Join(dir, "test.txt"), "--json")
	var m struct {
		Accuracy float64 `json:"accuracy"`
	}
	if err := json.Unmarshal([]byte(js), &m); err != nil {
		t.Fatalf("%v in %s", err, js)
	}
	if want := fmt.Sprintf("%.2f", 100*m.Accuracy); !strings.Contains(stdout, want) {
		t.Errorf("learn's table lacks the dev accuracy %s:\n%s", want, stdout)
	}
}

// TestLearnLayouts: each layout learn recognizes gets its format, label
// column, scheme and template set, and its model evaluates.
func TestLearnLayouts(t *testing.T) {
	train, test := chunkCorpora(t)
	conllu := firstSentences(t, readFile(t, "../../specs/data/ud-ewt-sample/train.conllu"), 40)
	cases := []struct {
		name, file string
		data, eval []byte
		args       []string
		want       []string // in the spec
		absent     []string
	}{
		{name: "word and POS columns", file: "train.txt", data: train, eval: test,
			want: []string{`columns = ["word", "pos", "label"]`, `emission "pos2"`, `emission "w2"`, `boundary "bound"`}},
		{name: "word column only", file: "words.txt", data: keepColumns(train, 0, 2), eval: keepColumns(test, 0, 2),
			want: []string{`columns = ["word", "label"]`, `scheme = "iob2"`, `prefix "pre"`}, absent: []string{`"pos"`}},
		{name: "named columns", file: "named.txt", data: train, eval: test, args: []string{"--columns", "word,tag,chunk"},
			want: []string{`columns = ["word", "tag", "chunk"]`, `column = "chunk"`, `emission "tag3"`}},
		{name: "POS tags as labels", file: "pos.txt", data: train, eval: test, args: []string{"--label", "pos"},
			want: []string{`column = "pos"`, `scheme = "none"`, `emission "label"`}},
		{name: "conllu", file: "ud.conllu", data: conllu, eval: conllu,
			want: []string{`format = "conllu"`, `column = "upos"`, `scheme = "none"`, `lowercase = true`}},
		{name: "chars", file: "cws.txt", data: readFile(t, "testdata/cws-train.txt"), eval: readFile(t, "testdata/cws-test.txt"),
			want: []string{`format = "chars"`, `scheme = "bmes"`, `emission "c2"`}},
		{name: "slash", file: "pos.slash", data: slashOf(train), eval: slashOf(test),
			want: []string{`format = "slash"`, `column = "tag"`, `suffix "suf"`}},
		{name: "crfsuite", file: "chunk.crfsuite", data: crfsuiteOf(train), eval: crfsuiteOf(test),
			want: []string{`format = "crfsuite"`, `attributes "attributes" {}`, `scheme = "iob2"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := writeLearnFile(t, dir, c.file, c.data)
			model := filepath.Join(dir, "m.model")
			mustRun(t, "", append([]string{"learn", "-m", model, path, "-a", "perceptron", "-p", "epochs=3"}, c.args...)...)
			src := string(readFile(t, filepath.Join(dir, "m.hcl")))
			for _, want := range c.want {
				if !strings.Contains(src, want) {
					t.Errorf("spec lacks %q:\n%s", want, src)
				}
			}
			for _, no := range c.absent {
				if strings.Contains(src, no) {
					t.Errorf("spec has %q:\n%s", no, src)
				}
			}
			mustRun(t, "", "eval", "--model", model, writeLearnFile(t, dir, "eval-"+c.file, c.eval))
		})
	}
}

// TestLearnAlgorithms: every learner type trains on the default set, tnt
// on the set it reads, and CRFsuite's algorithm names are taken.
func TestLearnAlgorithms(t *testing.T) {
	dir := learnDir(t)
	for _, alg := range append(learnerTypes(), "lbfgs", "l2sgd", "ap") {
		t.Run(alg, func(t *testing.T) {
			model := filepath.Join(dir, alg+".model")
			mustRun(t, "", "learn", "-m", model, filepath.Join(dir, "train.txt"), "--algorithm", alg, "--log-level", "error")
			src := string(readFile(t, filepath.Join(dir, alg+".hcl")))
			switch alg {
			case "tnt":
				if !strings.Contains(src, `suffix_trie "suffix"`) || !strings.Contains(src, "order = 2") {
					t.Errorf("tnt's spec lacks its templates:\n%s", src)
				}
			case "l2sgd":
				if !strings.Contains(src, `algorithm = "sgd"`) || !strings.Contains(src, `learner "crf"`) {
					t.Errorf("l2sgd is not crf with algorithm = \"sgd\":\n%s", src)
				}
			}
		})
	}
}

// TestLearnRefuses: mistakes exit 2 and failures 1, with a message naming
// the place, and leave the folder as it was: no model, no spec, no
// temporary file.
func TestLearnRefuses(t *testing.T) {
	train, _ := chunkCorpora(t)
	cases := []struct {
		name   string
		args   []string // after learn; {dir} is the case's folder
		files  map[string][]byte
		code   int
		stderr []string
	}{
		{name: "no model", args: []string{"{dir}/train.txt"}, code: 2, stderr: []string{"learn needs -m MODEL"}},
		{name: "no training file", args: []string{"-m", "{dir}/m.model"}, code: 2, stderr: []string{"learn takes one training file"}},
		{name: "missing training file", args: []string{"-m", "{dir}/m.model", "{dir}/nope.txt"}, code: 2, stderr: []string{"nope.txt"}},
		{name: "model exists", args: []string{"-m", "{dir}/old.model", "{dir}/train.txt"}, files: map[string][]byte{"old.model": []byte("mine")},
			code: 2, stderr: []string{"old.model exists (--force replaces it)"}},
		{name: "spec exists", args: []string{"-m", "{dir}/old.model", "{dir}/train.txt"}, files: map[string][]byte{"old.hcl": []byte("mine")},
			code: 2, stderr: []string{"old.hcl exists"}},
		{name: "model folder missing", args: []string{"-m", "{dir}/no/m.model", "{dir}/train.txt"}, code: 2, stderr: []string{"does not exist"}},
		{name: "unknown algorithm", args: []string{"-m", "{dir}/m.model", "{dir}/train.txt", "--algorithm", "percepton"},
			code: 2, stderr: []string{`did you mean "perceptron"?`}},
		{name: "line without its label", args: []string{"-m", "{dir}/m.model", "{dir}/bad.txt"}, files: map[string][]byte{"bad.txt": insertLine(train, 21, "dog NN")},
			code: 2, stderr: []string{"bad.txt:21: expected 3 columns (word pos label), found 2", `found 2 in "dog NN"; the label column "label" is missing`}},
		{name: "bad dev line", args: []string{"-m", "{dir}/m.model", "{dir}/train.txt", "--dev", "{dir}/bad.txt"},
			files: map[string][]byte{"bad.txt": insertLine(train, 5, "dog NN I-NP extra")}, code: 2, stderr: []string{"bad.txt:5:", `found 4 in "dog NN I-NP extra"`}},
		{name: "unknown learner setting", args: []string{"-m", "{dir}/m.model", "{dir}/train.txt", "-p", "c3=1"},
			code: 2, stderr: []string{"m.hcl:", `does not take "c3"`, "m.hcl is not written"}},
		{name: "invalid learner setting", args: []string{"-m", "{dir}/m.model", "{dir}/train.txt", "-p", "c2=-1"}, code: 2, stderr: []string{"c2 must be"}},
		{name: "-p without a value", args: []string{"-m", "{dir}/m.model", "{dir}/train.txt", "-p", "c2"}, code: 2, stderr: []string{"want name=value"}},
		{name: "training diverges", args: []string{"-m", "{dir}/m.model", "{dir}/train.txt", "-a", "l2sgd", "-p", "learning_rate=1e300", "-p", "c2=1e300"},
			code: 1, stderr: []string{"non-finite"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeLearnFile(t, dir, "train.txt", train)
			for name, data := range c.files {
				writeLearnFile(t, dir, name, data)
			}
			before := entriesOf(t, dir)
			args := []string{"learn", "--log-level", "error"}
			for _, a := range c.args {
				args = append(args, strings.ReplaceAll(a, "{dir}", dir))
			}
			code, _, stderr := trellis(t, "", args...)
			if code != c.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, c.code, stderr)
			}
			for _, want := range c.stderr {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
			if after := entriesOf(t, dir); !slices.Equal(after, before) {
				t.Errorf("folder holds %q after the failure, %q before", after, before)
			}
			for name, data := range c.files {
				if !bytes.Equal(readFile(t, filepath.Join(dir, name)), data) {
					t.Errorf("%s changed", name)
				}
			}
		})
	}
}

// TestLearnForce: --force replaces the model and the spec.
func TestLearnForce(t *testing.T) {
	dir := learnDir(t)
	model, spec := filepath.Join(dir, "m.model"), filepath.Join(dir, "m.hcl")
	writeLearnFile(t, dir, "m.model", []byte("old"))
	writeLearnFile(t, dir, "m.hcl", []byte("old"))
	mustRun(t, "", "learn", "-m", model, filepath.Join(dir, "train.txt"), "-a", "hmm", "--force")
	if string(readFile(t, model)) == "old" || string(readFile(t, spec)) == "old" {
		t.Error("--force left the old model or spec")
	}
	mustRun(t, "", "eval", "--model", model, filepath.Join(dir, "test.txt"))
}

// keepColumns keeps columns cols of a conll file's token lines.
func keepColumns(data []byte, cols ...int) []byte {
	var b strings.Builder
	for _, l := range strings.SplitAfter(string(data), "\n") {
		f := strings.Fields(l)
		if len(f) == 0 {
			b.WriteString(l)
			continue
		}
		var kept []string
		for _, c := range cols {
			kept = append(kept, f[c])
		}
		b.WriteString(strings.Join(kept, " ") + "\n")
	}
	return []byte(b.String())
}

// sentencesOf splits a conll file into sentences of token fields.
func sentencesOf(data []byte) [][][]string {
	var out [][][]string
	for _, block := range strings.Split(strings.TrimSpace(string(data)), "\n\n") {
		var s [][]string
		for _, l := range strings.Split(block, "\n") {
			s = append(s, strings.Fields(l))
		}
		out = append(out, s)
	}
	return out
}

// slashOf is a word pos chunk file as word/POS sentences.
func slashOf(data []byte) []byte {
	var b strings.Builder
	for _, s := range sentencesOf(data) {
		for i, tok := range s {
			if i > 0 {
				b.WriteString(" ")
			}
			b.WriteString(tok[0] + "/" + tok[1])
		}
		b.WriteString("\n")
	}
	return []byte(b.String())
}

// crfsuiteOf is a word pos chunk file as CRFsuite's attributes, some
// only at some tokens, as CRFsuite's chunking example writes them.
func crfsuiteOf(data []byte) []byte {
	var b strings.Builder
	for _, s := range sentencesOf(data) {
		for i, tok := range s {
			fields := []string{tok[2], "w[0]=" + tok[0], "pos[0]=" + tok[1]}
			if i > 0 {
				fields = append(fields, "w[-1]="+s[i-1][0])
			} else {
				fields = append(fields, "__BOS__")
			}
			b.WriteString(strings.Join(fields, "\t") + "\n")
		}
		b.WriteString("\n")
	}
	return []byte(b.String())
}

// firstSentences is the first n sentences of a CoNLL-U file.
func firstSentences(t *testing.T, data []byte, n int) []byte {
	t.Helper()
	blocks := strings.SplitAfter(string(data), "\n\n")
	if len(blocks) < n {
		t.Fatalf("only %d sentences", len(blocks))
	}
	return []byte(strings.Join(blocks[:n], ""))
}
