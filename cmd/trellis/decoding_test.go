package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDecodeFlags tags and evaluates with every decoding method: a beam
// wider than the label set prints exactly Viterbi's output, the others
// print one well-formed label per token, and bad combinations are usage
// errors that say what to do.
func TestDecodeFlags(t *testing.T) {
	dir := sharedRun(t, chunkSpec)
	model := filepath.Join(dir, "models", "hmm.model")
	viterbi, _ := mustRun(t, "", "tag", "--model", model, chunkTest)
	wide, _ := mustRun(t, "", "tag", "--model", model, "--decode", "beam", "--beam", "1000", chunkTest)
	if wide != viterbi {
		t.Errorf("--decode beam --beam 1000 differs from Viterbi:\n%s\n---\n%s", wide, viterbi)
	}
	for _, args := range [][]string{{"--decode", "greedy"}, {"--decode", "beam", "--beam", "2"}, {"--decode", "posterior"}, {"--decode", "greedy", "--marginals"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			out, _ := mustRun(t, "", append([]string{"tag", "--model", model, chunkTest}, args...)...)
			got, want := columnBlocks(t, strings.ReplaceAll(out, "\n#", "\n")), columnBlocks(t, viterbi)
			if len(got) != len(want) {
				t.Fatalf("%d sentences, Viterbi %d", len(got), len(want))
			}
			for k := range got {
				prev := "O"
				for i, f := range got[k] {
					label := f[len(f)-1]
					if args[len(args)-1] == "--marginals" {
						label = f[len(f)-2]
					}
					if typ, ok := strings.CutPrefix(label, "I-"); ok && prev != "B-"+typ && prev != "I-"+typ {
						t.Errorf("sentence %d token %d: %s after %s breaks IOB2", k, i, label, prev)
					}
					prev = label
				}
			}
			evalOut, _ := mustRun(t, "", append([]string{"eval", "--model", model, chunkTest}, args[:len(args)-btoi(args[len(args)-1] == "--marginals")]...)...)
			if !strings.Contains(evalOut, "FB1:") {
				t.Errorf("eval printed no report:\n%s", evalOut)
			}
		})
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--decode", "gredy"}, `Did you mean "greedy"?`},
		{[]string{"--beam", "3"}, "add --decode beam"},
		{[]string{"--decode", "beam"}, "--decode beam needs --beam N"},
		{[]string{"--decode", "beam", "--beam", "0"}, "--decode beam needs --beam N"},
		{[]string{"--decode", "greedy", "--nbest", "3"}, "does not combine with --decode greedy"},
		{[]string{"--penalty", "2"}, "add --consistency or --constraint"},
		{[]string{"--consistency", "tokn"}, `match is "tokn"`},
		{[]string{"--consistency", "span", "--consistency-words", "all"}, `words chooses the tokens of match = "token"`},
		{[]string{"--consistency", "token", "--penalty", "-1"}, "penalty must be at least 0"},
		{[]string{"--constraint", "NP<x"}, "is not TYPE<=N, TYPE>=N or TYPE=N"},
		{[]string{"--consistency", "token", "--decode", "greedy"}, "decode each sentence with viterbi"},
		{[]string{"--consistency", "token", "--nbest", "3"}, "do not combine with --nbest"},
		{[]string{"--constraint", "NP<=1", "--marginals"}, "do not combine with --marginals"},
	} {
		for _, cmd := range []string{"tag", "eval"} {
			if last := c.args[len(c.args)-1]; cmd == "eval" && (c.args[len(c.args)-2] == "--nbest" || last == "--marginals") {
				continue
			}
			code, _, stderr := trellis(t, "", append([]string{cmd, "--model", model, chunkTest}, c.args...)...)
			if code != exitUsage || !strings.Contains(stderr, c.want) {
				t.Errorf("%s %v: exit %d, stderr %q; want exit %d and %q", cmd, c.args, code, stderr, exitUsage, c.want)
			}
		}
	}
}

// TestJointFlags: a --constraint holds in every sentence tag prints, eval
// scores with it, and --consistency on a file without document boundaries
// is warned about.
func TestJointFlags(t *testing.T) {
	dir := sharedRun(t, chunkSpec)
	model := filepath.Join(dir, "models", "hmm.model")
	plain, _ := mustRun(t, "", "tag", "--model", model, chunkTest)
	out, _ := mustRun(t, "", "tag", "--model", model, chunkTest, "--constraint", "NP<=1")
	if out == plain {
		t.Fatal("--constraint NP<=1 changed nothing: the test cannot tell it works")
	}
	for k, sent := range columnBlocks(t, out) {
		np := 0
		for _, f := range sent {
			if f[len(f)-1] == "B-NP" {
				np++
			}
		}
		if np > 1 {
			t.Fatalf("sentence %d has %d NP chunks under --constraint NP<=1", k, np)
		}
	}
	evalOut, stderr := mustRun(t, "", "eval", "--model", model, chunkTest, "--consistency", "token")
	if !strings.Contains(evalOut, "FB1:") || !strings.Contains(stderr, "no document boundaries") {
		t.Errorf("eval --consistency on a file without documents: stdout %q, stderr %q", evalOut, stderr)
	}
	tagOut, stderr := mustRun(t, "", "tag", "--model", model, chunkTest, "--consistency", "token")
	if tagOut != plain || !strings.Contains(stderr, `"certified"`) || !strings.Contains(stderr, "no document boundaries") {
		t.Errorf("tag --consistency on a file without documents: changed labels %v, stderr %q", tagOut != plain, stderr)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestRunDecode runs a spec whose learner blocks choose their decoding:
// each saved model's test predictions are what `trellis tag --decode`
// prints with it, a beam wider than the label set equals Viterbi, and
// beam without decode = "beam" is a spec error (exit 2).
func TestRunDecode(t *testing.T) {
	src := string(readFile(t, chunkSpec))
	abs, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	src = strings.ReplaceAll(src, `path    = "chunk-`, `path    = "`+abs+`/chunk-`)
	learners := `learner "hmm" {
  type = "hmm"
}

learner "greedy" {
  type   = "hmm"
  decode = "greedy"
}

learner "wide" {
  type   = "hmm"
  decode = "beam"
  beam   = 1000
}

learner "posterior" {
  type   = "hmm"
  decode = "posterior"
}`
	src = strings.Replace(src, "learner \"hmm\" {\n  type = \"hmm\"\n}", learners, 1)
	tmp := t.TempDir()
	specPath := filepath.Join(tmp, "decode.hcl")
	if err := os.WriteFile(specPath, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "run")
	mustRun(t, "", "run", specPath, "--out", out)
	pred := func(name string) string { return string(readFile(t, filepath.Join(out, "predictions", name+".txt"))) }
	if pred("wide") != pred("hmm") {
		t.Error("decode = \"beam\" with beam = 1000 predicted differently from Viterbi")
	}
	for _, m := range []string{"greedy", "posterior"} {
		got, _ := mustRun(t, "", "tag", "--model", filepath.Join(out, "models", m+".model"), "--decode", m, chunkTest)
		if got != pred(m) {
			t.Errorf("learner %s: run predictions differ from trellis tag --decode %s", m, m)
		}
	}
	bad := strings.Replace(src, `decode = "greedy"`, "decode = \"greedy\"\n  beam = 2", 1)
	if err := os.WriteFile(specPath, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := trellis(t, "", "validate", specPath)
	if code != exitUsage || !strings.Contains(stderr, "decode.hcl:") || !strings.Contains(stderr, `decode = "beam"`) {
		t.Errorf("validate with beam on a greedy learner: exit %d\n%s", code, stderr)
	}
}
