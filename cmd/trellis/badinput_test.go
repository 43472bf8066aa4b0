package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/framework/rundir"
)

// badInputSpec is testdata/chunk.hcl reading train.txt and test.txt from
// its own folder; cases edit its text further.
func badInputSpec(t *testing.T) string {
	t.Helper()
	src := string(readFile(t, "testdata/chunk.hcl"))
	src = strings.Replace(src, `"chunk-train.txt"`, `"train.txt"`, 1)
	return strings.Replace(src, `"chunk-test.txt"`, `"test.txt"`, 1)
}

// chunkCorpora returns the tiny chunking corpus of the end-to-end tests.
func chunkCorpora(t *testing.T) (train, test []byte) {
	t.Helper()
	return readFile(t, "testdata/chunk-train.txt"), readFile(t, chunkTest)
}

// insertLine returns data with line inserted so that it is line n (1-based).
func insertLine(data []byte, n int, line string) []byte {
	ls := strings.SplitAfter(string(data), "\n")
	ls = slices.Insert(ls, n-1, line+"\n")
	return []byte(strings.Join(ls, ""))
}

// replaceLine returns data with line n (1-based) replaced.
func replaceLine(data []byte, n int, line string) []byte {
	ls := strings.SplitAfter(string(data), "\n")
	ls[n-1] = line + "\n"
	return []byte(strings.Join(ls, ""))
}

func toCRLF(data []byte) []byte { return bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n")) }

func withBOM(data []byte) []byte { return append([]byte("\xef\xbb\xbf"), data...) }

// tree lists what is under dir, relative to it: files (anything but a
// folder) and folders. A missing dir has neither.
func tree(t *testing.T, dir string) (files, dirs []string) {
	t.Helper()
	if _, err := os.Lstat(dir); err != nil {
		return nil, nil // missing, or below a regular file
	}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		switch {
		case rel == ".":
		case d.IsDir():
			dirs = append(dirs, filepath.ToSlash(rel))
		default:
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files, dirs
}

// specPlace is where a spec diagnostic must point: the first line of the
// spec containing line, at the first occurrence of token in it.
type specPlace struct{ line, token string }

// want returns the "file:line:col: error: summary" prefix and the snippet
// (source line and carets) WriteDiagnostics prints for p.
func (p specPlace) want(t *testing.T, specPath, src, summary string) (head, snippet string) {
	t.Helper()
	for i, l := range strings.Split(src, "\n") {
		if !strings.Contains(l, p.line) {
			continue
		}
		col := strings.Index(l, p.token)
		if col < 0 {
			t.Fatalf("token %q not in spec line %q", p.token, l)
		}
		head = fmt.Sprintf("%s:%d:%d: error: %s", specPath, i+1, col+1, summary)
		snippet = fmt.Sprintf("%5d | %s\n      | %s%s\n", i+1, l, strings.Repeat(" ", col), strings.Repeat("^", len(p.token)))
		return head, snippet
	}
	t.Fatalf("no line %q in the spec", p.line)
	return "", ""
}

// runEnv is one run case's files and outcome.
type runEnv struct {
	dir, spec, train, test, out string
	code                        int
	stdout, stderr              string
	// before is the case folder (spec, data, --out) as the run found it.
	before map[string]string
}

// TestBadInput feeds trellis broken, odd and hostile input: for every case
// the exit code, a message that names the place, and that nothing (no
// model, no predictions, no temporary file) is written when it fails.
func TestBadInput(t *testing.T) {
	train, test := chunkCorpora(t)

	// The reference run on the untouched corpus, for the cases that must
	// give the same predictions.
	refDir := filepath.Join(t.TempDir(), "ref")
	{
		dir := t.TempDir()
		for name, data := range map[string][]byte{"train.txt": train, "test.txt": test, "spec.hcl": []byte(badInputSpec(t))} {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		mustRun(t, "", "run", filepath.Join(dir, "spec.hcl"), "--out", refDir)
	}
	refPred := readFile(t, filepath.Join(refDir, "predictions", "hmm.txt"))
	refEval := readFile(t, filepath.Join(refDir, "eval", "hmm.tsv"))
	samePredictions := func(t *testing.T, e *runEnv) {
		if got := readFile(t, filepath.Join(e.out, "predictions", "hmm.txt")); !bytes.Equal(got, refPred) {
			t.Errorf("predictions differ from the run on the plain LF corpus (%d vs %d bytes)", len(got), len(refPred))
		}
		if got := readFile(t, filepath.Join(e.out, "eval", "hmm.tsv")); !bytes.Equal(got, refEval) {
			t.Errorf("eval/hmm.tsv differs from the run on the plain LF corpus")
		}
	}

	// IOB1-style labels (chunks begin with I-) under the spec's iob2.
	iob1Train, iob1Test := toIOB1(train), toIOB1(test)

	// A label only the test file has: "B-LOC" on line 4 (a token line).
	unknownLabel := replaceLine(test, 4, strings.Join(strings.Fields(strings.Split(string(test), "\n")[3])[:2], " ")+" B-LOC")

	runCases := []struct {
		name        string
		train, test []byte                   // nil: the chunk corpus
		edit        func(spec string) string // changes to the spec text
		// out returns --out (default: DIR/out, not yet existing).
		out  func(t *testing.T, e *runEnv) string
		args []string // more flags for trellis run
		code int
		// stderr holds substrings, with {spec}, {train}, {test}, {out}
		// and {dir} replaced by the paths.
		stderr []string
		// specErr: a spec error with this summary, at place, printed
		// with the source line; the run directory must not exist.
		specErr string
		place   specPlace
		check   func(t *testing.T, e *runEnv)
	}{
		// 1. empty corpus file
		{name: "empty train file", train: []byte{}, code: 1,
			stderr: []string{`trellis: error: {train}: corpus "train" has no sentences`}},
		{name: "empty test file", test: []byte{}, code: 1,
			stderr: []string{`trellis: error: {test}: corpus "test" has no sentences`}},
		// 2. only blank lines
		{name: "train file of blank lines", train: []byte("\n\n   \n\t\n\n"), code: 1,
			stderr: []string{`trellis: error: {train}: corpus "train" has no sentences`}},
		{name: "train file of CRLF blank lines", train: []byte("\r\n\r\n \r\n"), code: 1,
			stderr: []string{`trellis: error: {train}: corpus "train" has no sentences`}},
		{name: "test file of blank lines", test: []byte("\n\n\n"), code: 1,
			stderr: []string{`trellis: error: {test}: corpus "test" has no sentences`}},
		// 3. inconsistent column counts
		{name: "train line without its label column", train: insertLine(train, 21, "dog NN"), code: 2,
			stderr: []string{`trellis: error: {train}:21: expected 3 columns (word pos chunk), found 2`}},
		{name: "train line with one column", train: insertLine(train, 21, "dog"), code: 2,
			stderr: []string{`trellis: error: {train}:21: expected 3 columns (word pos chunk), found 1`}},
		{name: "train line with an extra column", train: insertLine(train, 30, "dog NN I-NP extra"), code: 2,
			stderr: []string{`trellis: error: {train}:30: expected 3 columns (word pos chunk), found 4`}},
		{name: "test line without its label column", test: insertLine(test, 21, "dog NN"), code: 2,
			stderr: []string{`trellis: error: {test}:21: expected 3 columns (word pos chunk), found 2`}},
		// 4. invalid UTF-8
		{name: "invalid UTF-8 in train", train: insertLine(train, 21, "caf\xe9 NN I-NP"), code: 2,
			stderr: []string{`trellis: error: {train}:21: invalid UTF-8`}},
		{name: "truncated UTF-8 sequence at the end of train", train: append(bytes.Clone(train), "\xe4\xb8"...), code: 2,
			stderr: []string{fmt.Sprintf(`trellis: error: {train}:%d: invalid UTF-8`, bytes.Count(train, []byte("\n"))+1)}},
		{name: "invalid UTF-8 in test", test: insertLine(test, 21, "caf\xe9 NN I-NP"), code: 2,
			stderr: []string{`trellis: error: {test}:21: invalid UTF-8`}},
		// 5. a byte-order mark: the readers strip it, so it must simply work.
		{name: "UTF-8 BOM in train and test", train: withBOM(train), test: withBOM(test), code: 0, check: samePredictions},
		// 6. CRLF line endings must simply work, with the LF predictions.
		{name: "CRLF train and test", train: toCRLF(train), test: toCRLF(test), code: 0, check: samePredictions},
		{name: "BOM and CRLF", train: withBOM(toCRLF(train)), test: withBOM(toCRLF(test)), code: 0, check: samePredictions},
		// 8. a label seen only in the test file: reported, not fatal.
		{name: "label only in the test file", test: unknownLabel, code: 0,
			stderr: []string{`"level":"warn"`, "labels unseen in training", `"B-LOC":1`},
			check: func(t *testing.T, e *runEnv) {
				var metrics map[string]struct {
					Unknown map[string]int `json:"unknown_test_labels"`
					Tokens  int            `json:"tokens"`
				}
				if err := json.Unmarshal(readFile(t, filepath.Join(e.out, "metrics.json")), &metrics); err != nil {
					t.Fatal(err)
				}
				if got := metrics["hmm"].Unknown; len(got) != 1 || got["B-LOC"] != 1 {
					t.Errorf(`unknown_test_labels = %v, want {"B-LOC": 1}`, got)
				}
				if metrics["hmm"].Tokens == 0 {
					t.Errorf("no test tokens evaluated")
				}
			}},
		// 9. a column the corpus does not have
		{name: "template on a missing column", edit: replace(`column    = "word"`, `column    = "wrod"`), code: 2,
			specErr: "Invalid template", place: specPlace{`column    = "wrod"`, `"wrod"`},
			stderr: []string{`unknown column "wrod"`, `"word", "pos", "chunk"`}},
		{name: "label column missing", edit: replace(`column = "chunk"`, `column = "ner"`), code: 2,
			specErr: "Unknown label column", place: specPlace{`column = "ner"`, `"ner"`},
			stderr: []string{`Corpus "train" has no column "ner"`}},
		{name: "join of a missing column", edit: replace(`transition "trans" {}`, "transition \"trans\" {}\n  emission \"wp\" {\n    join = [\"word[-1]\", \"tag[0]\"]\n  }"), code: 2,
			specErr: "Invalid template", place: specPlace{`join = [`, `["word[-1]", "tag[0]"]`},
			stderr: []string{`"tag"`}},
		// a learner setting the learner does not take: named, with the learners that take it
		{name: "c1 on pa", edit: replace(`type = "hmm"`, "type = \"pa\"\n  c1   = 0.5"), code: 2,
			specErr: "Unsupported learner setting", place: specPlace{`c1   = 0.5`, `c1`},
			stderr: []string{`Learner type pa does not take "c1". It is a setting of crf, maxent and memm.`}},
		{name: "variance on the perceptron", edit: replace(`type = "hmm"`, "type = \"perceptron\"\n  variance = 2"), code: 2,
			specErr: "Unsupported learner setting", place: specPlace{`variance = 2`, `variance`},
			stderr: []string{`Learner type perceptron does not take "variance". It is a setting of arow.`}},
		// 10. a missing corpus file
		{name: "missing test file", edit: replace(`"test.txt"`, `"nope.txt"`), code: 2,
			specErr: "Corpus file not found", place: specPlace{`"nope.txt"`, `"nope.txt"`},
			stderr: []string{"{dir}/nope.txt: no such file or directory"}},
		{name: "missing train file", edit: replace(`"train.txt"`, `"data/train.txt"`), code: 2,
			specErr: "Corpus file not found", place: specPlace{`"data/train.txt"`, `"data/train.txt"`},
			stderr: []string{"{dir}/data/train.txt"}},
		// 11. an unknown learner type, with a suggestion
		{name: "unknown learner type", edit: replace(`type = "hmm"`, `type = "percepton"`), code: 2,
			specErr: "Unknown learner type", place: specPlace{`type = "percepton"`, `"percepton"`},
			stderr: []string{`There is no learner type "percepton". Did you mean "perceptron"?`}},
		// 12. impossible hyper-parameters
		{name: "crf c2 = -1", edit: replace(`type = "hmm"`, "type = \"crf\"\n  c2   = -1"), code: 2,
			specErr: "Invalid CRF setting", place: specPlace{`c2   = -1`, `-1`},
			stderr: []string{"c2 must be a finite number >= 0, got -1"}},
		{name: "crf c1 = -0.5", edit: replace(`type = "hmm"`, "type = \"crf\"\n  c1   = -0.5"), code: 2,
			specErr: "Invalid CRF setting", place: specPlace{`c1   = -0.5`, `-0.5`},
			stderr: []string{"c1 must be a finite number >= 0, got -0.5"}},
		{name: "perceptron epochs = 0", edit: replace(`type = "hmm"`, "type   = \"perceptron\"\n  epochs = 0"), code: 2,
			specErr: "Invalid epochs", place: specPlace{`epochs = 0`, `0`},
			stderr: []string{"epochs must be between 1 and 100000 (0 only with init_model), got 0"}},
		{name: "perceptron epochs = -3", edit: replace(`type = "hmm"`, "type   = \"perceptron\"\n  epochs = -3"), code: 2,
			specErr: "Invalid epochs", place: specPlace{`epochs = -3`, `-3`},
			stderr: []string{"epochs must be between 1 and 100000 (0 only with init_model), got -3"}},
		{name: "hmm emission_smoothing = 0", edit: replace(`type = "hmm"`, "type               = \"hmm\"\n  emission_smoothing = 0"), code: 2,
			specErr: "Invalid smoothing", place: specPlace{`emission_smoothing = 0`, `0`},
			stderr: []string{"emission_smoothing must be a positive number"}},
		// 13. an output folder that cannot be written
		{name: "--out below a regular file", code: 1,
			out: func(t *testing.T, e *runEnv) string {
				f := filepath.Join(e.dir, "file")
				if err := os.WriteFile(f, []byte("keep\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				return filepath.Join(f, "out")
			},
			stderr: []string{"trellis: error: output folder: mkdir {dir}/file: not a directory"},
			check:  fileUntouched},
		{name: "--out is a regular file", code: 2,
			out: func(t *testing.T, e *runEnv) string {
				f := filepath.Join(e.dir, "file")
				if err := os.WriteFile(f, []byte("keep\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				return f
			},
			stderr: []string{"trellis: --out {dir}/file: {dir}/file is not a folder;", "--force"},
			check:  fileUntouched},
		{name: "--out is read-only", code: 1,
			out: func(t *testing.T, e *runEnv) string {
				if os.Geteuid() == 0 {
					t.Skip("root writes into a read-only folder")
				}
				out := filepath.Join(e.dir, "ro")
				if err := os.Mkdir(out, 0o500); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { os.Chmod(out, 0o755) })
				return out
			},
			stderr: []string{"trellis: error: output folder: {out} is read-only"}},
		// 15. --out holding what trellis did not write: refused (exit 2,
		// naming --force), nothing touched; --force sets it aside whole.
		{name: "--out holds the user's files", code: 2, out: userFolder,
			stderr: []string{"trellis: --out {out}: {out} holds files trellis did not write (checkpoints/, notes.txt)", "--force"}},
		{name: "--out is an earlier run plus the user's checkpoints folder", code: 2,
			out: func(t *testing.T, e *runEnv) string {
				mustRun(t, "", "run", e.spec, "--out", e.out)
				writeFiles(t, e.out, map[string]string{"checkpoints/mine.bin": "mine"})
				return e.out
			},
			stderr: []string{"holds files trellis did not write (checkpoints/)", "--force"}},
		{name: "--force sets the user's folder aside", code: 0, out: userFolder, args: []string{"--force"},
			stderr: []string{"the folder's earlier content was renamed, not deleted"},
			check: func(t *testing.T, e *runEnv) {
				aside, _ := filepath.Glob(e.out + ".set-aside-*")
				if len(aside) != 1 {
					t.Fatalf("set-aside folders: %v", aside)
				}
				kept := snapshot(t, aside[0])
				for name, content := range e.before {
					if rel, ok := strings.CutPrefix(name, "out/"); ok && rel != "" && kept[rel] != content {
						t.Errorf("%s was not kept in %s", rel, aside[0])
					}
				}
				if len(kept) != 3 {
					t.Errorf("the set-aside folder holds %v, want the user's three entries", keysOf(kept))
				}
				if _, err := os.Stat(filepath.Join(e.out, "models", "hmm.model")); err != nil {
					t.Errorf("the run is not in --out: %v", err)
				}
			}},
		// 16. a second run into a folder a run is writing: refused.
		{name: "--out is being written by another run", code: 1,
			out: func(t *testing.T, e *runEnv) string {
				r, err := rundir.Open(e.out, rundir.Options{Command: []string{"trellis", "run", "other.hcl"}})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { r.Abort(false) })
				return e.out
			},
			stderr: []string{fmt.Sprintf("trellis: error: another trellis run (pid %d, started", os.Getpid()), "trellis run other.hcl) is writing {out}; wait for it to end, or choose another --out"}},
		// 17. labels that contradict the declared scheme: a spec error at
		// the scheme in the training corpus, a warning in the test corpus.
		{name: "iob1 training labels under scheme iob2", train: iob1Train, code: 2,
			specErr: "Labels contradict the scheme", place: specPlace{`scheme = "iob2"`, `"iob2"`},
			stderr: []string{fmt.Sprintf(`{train}:%d: "I-NP" begins the sentence, which iob2 does not allow; %d of %d sentences of corpus "train" contradict iob2, and constrained decoding would forbid the gold labels of %d`,
				firstLineWith(train, " B-"), sentencesWith(train, " B-"), sentencesWith(train, ""), sentencesWith(train, " B-")), `The labels fit iob1: did you mean scheme = "iob1"?`}},
		{name: "iob1 training labels, constrained = false", train: iob1Train, code: 0,
			edit:   replace(`scheme = "iob2"`, "scheme = \"iob2\"\n  constrained = false"),
			stderr: []string{`warning: Labels contradict the scheme`, `did you mean scheme = "iob1"?`}},
		{name: "iob1 test labels under scheme iob2", test: iob1Test, code: 0,
			stderr: []string{fmt.Sprintf(`{spec}:20:12: warning: Labels contradict the scheme; {test}:%d: "I-NP" begins the sentence`, firstLineWith(test, " B-")),
				`did you mean scheme = "iob1"?`}},
		// A label without the scheme's prefixes is left unconstrained by
		// the decoder: a warning, and the run goes on.
		{name: "bioes training labels under scheme iob2", train: bytes.Replace(train, []byte("it PRP B-NP"), []byte("it PRP S-NP"), 1), code: 0,
			stderr: []string{fmt.Sprintf(`{spec}:20:12: warning: Labels contradict the scheme; {train}:%d: "S-NP" has none of the iob2 prefixes (B-, I-, O)`, firstLineWith(train, "it PRP B-NP"))}},
		// ... while a bigram the decoder forbids, after such a label, is
		// still an error.
		{name: "I-NP after O among unprefixed labels", train: bytes.Replace(bytes.Replace(train, []byte("it PRP B-NP"), []byte("it PRP S-NP"), 1), []byte("big JJ I-NP"), []byte("big JJ O"), 1), code: 2,
			specErr: "Labels contradict the scheme", place: specPlace{`scheme = "iob2"`, `"iob2"`},
			stderr: []string{fmt.Sprintf(`{train}:%d: "I-NP" follows "O"`, firstLineWith(train, "big JJ I-NP")+1), "would forbid the gold labels of 1"}},
	}
	for _, tc := range runCases {
		t.Run("run/"+tc.name, func(t *testing.T) {
			e := &runEnv{dir: t.TempDir()}
			e.spec, e.train, e.test = filepath.Join(e.dir, "spec.hcl"), filepath.Join(e.dir, "train.txt"), filepath.Join(e.dir, "test.txt")
			src := badInputSpec(t)
			if tc.edit != nil {
				src = tc.edit(src)
			}
			for path, data := range map[string][]byte{e.spec: []byte(src), e.train: or(tc.train, train), e.test: or(tc.test, test)} {
				if err := os.WriteFile(path, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			e.out = filepath.Join(e.dir, "out")
			if tc.out != nil {
				e.out = tc.out(t, e)
			}
			e.before = snapshot(t, e.dir)
			e.code, e.stdout, e.stderr = trellis(t, "", append([]string{"run", e.spec, "--out", e.out}, tc.args...)...)
			expand := strings.NewReplacer("{spec}", e.spec, "{train}", e.train, "{test}", e.test, "{out}", e.out, "{dir}", e.dir).Replace

			if e.code != tc.code {
				t.Errorf("exit %d, want %d\nstderr:\n%s", e.code, tc.code, e.stderr)
			}
			for _, s := range tc.stderr {
				if s = expand(s); !strings.Contains(e.stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, e.stderr)
				}
			}
			if tc.specErr != "" {
				head, snippet := tc.place.want(t, e.spec, src, tc.specErr)
				if !strings.Contains(e.stderr, head) {
					t.Errorf("stderr lacks %q:\n%s", head, e.stderr)
				}
				if !strings.Contains(e.stderr, snippet) {
					t.Errorf("stderr lacks the source snippet\n%s\nstderr:\n%s", snippet, e.stderr)
				}
			}
			if tc.check != nil {
				tc.check(t, e)
			}
			if e.code == 0 {
				return
			}

			// A failed run prints no table, writes nothing and leaves what
			// the user had as it was.
			if e.stdout != "" {
				t.Errorf("a failed run wrote to stdout:\n%s", e.stdout)
			}
			if after := snapshot(t, e.dir); !maps.Equal(after, e.before) {
				t.Errorf("a failed run changed the case's folder:\nbefore %v\nafter  %v", keysOf(e.before), keysOf(after))
			}
		})
	}

	// A run that fails on its data must not leave an empty run directory
	// either.
	t.Run("run/data error leaves no empty folders", func(t *testing.T) {
		dir := t.TempDir()
		spec := filepath.Join(dir, "spec.hcl")
		for path, data := range map[string][]byte{spec: []byte(badInputSpec(t)), filepath.Join(dir, "train.txt"): insertLine(train, 21, "caf\xe9 NN I-NP"), filepath.Join(dir, "test.txt"): test} {
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		out := filepath.Join(dir, "out")
		if code, _, stderr := trellis(t, "", "run", spec, "--out", out); code != exitUsage {
			t.Fatalf("exit %d, want %d (a data error)\n%s", code, exitUsage, stderr)
		}
		if _, err := os.Stat(out); err == nil {
			files, dirs := tree(t, out)
			t.Errorf("--out exists with folders %v and files %v", dirs, files)
		}
	})

	validateCases(t)
	tagCases(t)
	newerModelCases(t)
}

// validateCases: validate reads every corpus as run would (columns,
// encoding, sentences, the scheme check) unless --no-data, lists up to 10
// data errors with file:line and the line, exits 2 on them, and writes
// nothing.
func validateCases(t *testing.T) {
	train, test := chunkCorpora(t)
	// Twelve bad lines in train, two in test.
	manyBad := train
	for _, n := range []int{21, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130} {
		manyBad = insertLine(manyBad, n, fmt.Sprintf("dog%d", n))
	}
	twoBad := insertLine(insertLine(test, 5, "caf\xe9 NN I-NP"), 9, "dog NN")
	cases := []struct {
		name        string
		train, test []byte
		args        []string
		code        int
		stdout      []string // substrings, {train} and {test} replaced
		stderr      []string
		notStderr   []string
		// errors is the number of "trellis: error:" lines (0: unchecked).
		errors  int
		specErr string
	}{
		{name: "clean data", code: 0,
			stdout: []string{fmt.Sprintf(`corpus "train": {train}: %d sentences`, sentencesWith(train, "")),
				fmt.Sprintf(`corpus "test": {test}: %d sentences`, sentencesWith(test, "")), "ok (experiment"}},
		{name: "train line without its label column", train: insertLine(train, 21, "dog NN"), code: 2, errors: 1,
			stderr: []string{`trellis: error: {train}:21: expected 3 columns (word pos chunk), found 2 in "dog NN"; the label column "chunk" is missing`}},
		// The chunk tag in the last field is known from the lines before:
		// the line lacks its word or POS, not its label.
		{name: "train line without its POS column", train: insertLine(train, 21, "dog B-NP"), code: 2, errors: 1,
			stderr:    []string{`trellis: error: {train}:21: expected 3 columns (word pos chunk), found 2 in "dog B-NP"; "B-NP" is a value of the label column "chunk", so "word" or "pos" is missing`},
			notStderr: []string{"label column \"chunk\" is missing"}},
		{name: "--no-data does not read it", train: insertLine(train, 21, "dog NN"), args: []string{"--no-data"}, code: 0,
			stdout: []string{"ok (experiment"}},
		{name: "errors in both corpora", train: insertLine(train, 21, "dog"), test: insertLine(test, 7, "caf\xe9 NN I-NP"), code: 2, errors: 2,
			stderr: []string{`{train}:21: expected 3 columns (word pos chunk), found 1 in "dog"`, `{test}:7: invalid UTF-8 at byte 4 of "caf\xe9 NN I-NP"`}},
		{name: "every error of a corpus, not its first only", test: twoBad, code: 2, errors: 2,
			stderr: []string{`trellis: error: {test}:5: invalid UTF-8`, `trellis: error: {test}:9: expected 3 columns (word pos chunk), found 2 in "dog NN"`}},
		{name: "ten errors listed", train: manyBad, test: twoBad, code: 2, errors: 10,
			stderr: []string{`{train}:21: expected 3 columns (word pos chunk), found 1 in "dog21"`, `{train}:110: expected 3 columns (word pos chunk), found 1 in "dog110"`,
				"trellis: more data errors follow; these are the first 10"},
			notStderr: []string{"{train}:120:", "{test}:"}},
		{name: "empty test file", test: []byte{}, code: 2, errors: 1,
			stderr: []string{`{test}: corpus "test" has no sentences`}},
		{name: "iob1 training labels under scheme iob2", train: toIOB1(train), code: 2,
			specErr: "Labels contradict the scheme",
			stderr:  []string{fmt.Sprintf(`{train}:%d: "I-NP" begins the sentence, which iob2 does not allow`, firstLineWith(train, " B-")), `did you mean scheme = "iob1"?`}},
		{name: "iob1 test labels under scheme iob2", test: toIOB1(test), code: 0,
			stdout: []string{"ok (experiment"},
			stderr: []string{"warning: Labels contradict the scheme", `did you mean scheme = "iob1"?`}},
	}
	for _, tc := range cases {
		t.Run("validate/"+tc.name, func(t *testing.T) {
			dir := t.TempDir()
			spec, trainPath, testPath := filepath.Join(dir, "spec.hcl"), filepath.Join(dir, "train.txt"), filepath.Join(dir, "test.txt")
			src := badInputSpec(t)
			writeFiles(t, dir, map[string]string{"spec.hcl": src, "train.txt": string(or(tc.train, train)), "test.txt": string(or(tc.test, test))})
			before := snapshot(t, dir)
			code, stdout, stderr := trellis(t, "", append([]string{"validate", spec}, tc.args...)...)
			expand := strings.NewReplacer("{train}", trainPath, "{test}", testPath).Replace
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstderr:\n%s", code, tc.code, stderr)
			}
			for _, w := range tc.stdout {
				if w = expand(w); !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			for _, w := range tc.stderr {
				if w = expand(w); !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			for _, w := range tc.notStderr {
				if w = expand(w); strings.Contains(stderr, w) {
					t.Errorf("stderr has %q:\n%s", w, stderr)
				}
			}
			if n := strings.Count(stderr, "trellis: error: "); tc.errors > 0 && n != tc.errors {
				t.Errorf("%d errors listed, want %d:\n%s", n, tc.errors, stderr)
			}
			if tc.specErr != "" {
				head, snippet := specPlace{`scheme = "iob2"`, `"iob2"`}.want(t, spec, src, tc.specErr)
				if !strings.Contains(stderr, head) || !strings.Contains(stderr, snippet) {
					t.Errorf("stderr lacks %q with its snippet:\n%s", head, stderr)
				}
			}
			if code != 0 && strings.Contains(stdout, "ok (") {
				t.Errorf("a failing validate said ok:\n%s", stdout)
			}
			if after := snapshot(t, dir); !maps.Equal(after, before) {
				t.Errorf("validate changed the folder: %v → %v", keysOf(before), keysOf(after))
			}
		})
	}
}

// userFolder makes --out a folder of the user's: notes and a checkpoints
// folder that are not trellis's.
func userFolder(t *testing.T, e *runEnv) string {
	writeFiles(t, e.out, map[string]string{"notes.txt": "mine\n", "checkpoints/keep.bin": "mine too\n"})
	return e.out
}

// writeFiles creates files (path relative to dir → content).
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// snapshot maps everything under dir (relative path, '/' separated,
// folders with a trailing '/') to its content, with permissions.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case rel == ".":
		case d.IsDir():
			out[rel+"/"] = info.Mode().String()
		default:
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			out[rel] = info.Mode().String() + " " + string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func keysOf(m map[string]string) []string {
	return slices.Sorted(maps.Keys(m))
}

// toIOB1 rewrites IOB2 chunk labels as chunks beginning with I-.
func toIOB1(data []byte) []byte { return bytes.ReplaceAll(data, []byte(" B-"), []byte(" I-")) }

// firstLineWith is the 1-based number of the first line containing sub.
func firstLineWith(data []byte, sub string) int {
	for i, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, sub) {
			return i + 1
		}
	}
	return 0
}

// sentencesWith counts the blank-line separated sentences with a line
// containing sub ("" counts them all).
func sentencesWith(data []byte, sub string) int {
	n := 0
	for _, block := range strings.Split(strings.TrimSpace(string(data)), "\n\n") {
		if strings.Contains(block, sub) {
			n++
		}
	}
	return n
}

// or returns data, or def when data is nil.
func or(data, def []byte) []byte {
	if data == nil {
		return def
	}
	return data
}

func replace(old, new string) func(string) string {
	return func(s string) string {
		if !strings.Contains(s, old) {
			panic(fmt.Sprintf("spec has no %q", old))
		}
		return strings.Replace(s, old, new, 1)
	}
}

// fileUntouched checks that the regular file the --out case points into
// is as it was and that nothing appeared beside it.
func fileUntouched(t *testing.T, e *runEnv) {
	if got := string(readFile(t, filepath.Join(e.dir, "file"))); got != "keep\n" {
		t.Errorf("the regular file now holds %q", got)
	}
	files, dirs := tree(t, e.dir)
	if want := []string{"file", "spec.hcl", "test.txt", "train.txt"}; !slices.Equal(files, want) || len(dirs) > 0 {
		t.Errorf("the case's folder holds %v %v, want only %v", dirs, files, want)
	}
}

// tagCases checks tag and eval on bad input with a model trained on the
// chunk corpus (testdata/chunk.hcl, hmm).
func tagCases(t *testing.T) {
	model := filepath.Join(sharedRun(t, chunkSpec), "models", "hmm.model")
	_, test := chunkCorpora(t)
	want, _ := mustRun(t, "", "tag", "--model", model, chunkTest)

	// 100,000 tokens in one sentence, without labels.
	words := []string{"the DT", "big JJ", "dog NN", "sees VBZ", "a DT", "light NN", "in IN", "the DT", "house NN", ". ."}
	var long strings.Builder
	for i := range 100000 {
		long.WriteString(words[i%len(words)])
		long.WriteByte('\n')
	}

	// Enough sentences for several tagging batches, then a bad line: the
	// error comes after earlier batches were tagged.
	many := bytes.Repeat(test, 20)
	manyBadLine := bytes.Count(many, []byte("\n")) + 1
	manyBad := append(bytes.Clone(many), "caf\xe9 NN I-NP\n"...)

	labelLine := regexp.MustCompile(`^(B|I)-(NP|VP|PP)$|^O$`)
	cases := []struct {
		name  string
		cmd   string // tag or eval
		input []byte // written to DIR/in.txt, given as FILE
		stdin string // used when input is nil
		args  []string
		code  int
		// stderr holds substrings, {in} replaced by the input's name.
		stderr []string
		// stdout checks a successful command's output; a failing one must
		// print nothing unless partial is set.
		stdout  func(t *testing.T, got string)
		partial func(t *testing.T, got string)
	}{
		// 1, 2. nothing to tag is not an error for tag; eval has nothing
		// to score.
		{name: "empty file", cmd: "tag", input: []byte{}, code: 0, stdout: equals("")},
		{name: "blank lines", cmd: "tag", input: []byte("\n\n \n\r\n"), code: 0, stdout: equals("")},
		{name: "empty file", cmd: "eval", input: []byte{}, code: 1, stderr: []string{"{in}: no sentences"}},
		// 3. columns: tag may leave out the (last) label column, not more.
		{name: "line with one column", cmd: "tag", input: insertLine(test, 21, "dog"), code: 2,
			stderr: []string{"trellis: error: {in}:21: expected 3 columns (word pos chunk), found 1"}},
		{name: "line with an extra column", cmd: "tag", input: insertLine(test, 21, "dog NN B-NP x"), code: 2,
			stderr: []string{"trellis: error: {in}:21: expected 3 columns (word pos chunk), found 4"}},
		{name: "line without its label", cmd: "eval", input: insertLine(test, 21, "dog NN"), code: 2,
			stderr: []string{`trellis: error: {in}:21: expected 3 columns (word pos chunk), found 2 in "dog NN"; the label column "chunk" is missing`}},
		// 4. invalid UTF-8
		{name: "invalid UTF-8", cmd: "tag", input: insertLine(test, 21, "caf\xe9 NN"), code: 2,
			stderr: []string{"trellis: error: {in}:21: invalid UTF-8"}},
		{name: "invalid UTF-8 on stdin", cmd: "tag", stdin: string(insertLine(test, 3, "\xff\xfe NN")), code: 2,
			stderr: []string{"trellis: error: <stdin>:3: invalid UTF-8"}},
		{name: "invalid UTF-8", cmd: "eval", input: insertLine(test, 21, "caf\xe9 NN I-NP"), code: 2,
			stderr: []string{"trellis: error: {in}:21: invalid UTF-8"}},
		// An error after whole batches were tagged: tag streams, so what
		// it printed must be whole sentences of the right output, never
		// half a line or half a sentence (see the report on all-or-nothing).
		{name: "invalid UTF-8 after many sentences", cmd: "tag", stdin: string(manyBad), code: 2,
			stderr: []string{fmt.Sprintf("trellis: error: <stdin>:%d: invalid UTF-8", manyBadLine)},
			partial: func(t *testing.T, got string) {
				full := strings.Repeat(want, 20)
				if !strings.HasPrefix(full, got) || len(got) == len(full) {
					t.Errorf("stdout (%d bytes) is not a strict prefix of the output for the valid part (%d bytes)", len(got), len(full))
				}
				if got != "" && !strings.HasSuffix(got, "\n\n") {
					t.Errorf("stdout ends inside a sentence: ...%q", got[max(0, len(got)-40):])
				}
			}},
		// 5, 6. BOM and CRLF: the same output as the plain LF file.
		{name: "UTF-8 BOM", cmd: "tag", input: withBOM(test), code: 0, stdout: equals(want)},
		{name: "CRLF", cmd: "tag", input: toCRLF(test), code: 0, stdout: equals(want)},
		{name: "CRLF on stdin with BOM", cmd: "tag", stdin: string(withBOM(toCRLF(test))), code: 0, stdout: equals(want)},
		// 7. one sentence of 100,000 tokens
		{name: "100,000-token sentence", cmd: "tag", input: []byte(long.String()), code: 0,
			stdout: func(t *testing.T, got string) {
				if !strings.HasSuffix(got, "\n\n") {
					t.Errorf("output does not end with the sentence's blank line")
				}
				out := strings.Split(strings.TrimSuffix(got, "\n\n"), "\n")
				if len(out) != 100000 {
					t.Fatalf("%d output lines, want 100000", len(out))
				}
				for i, l := range out {
					label, ok := strings.CutPrefix(l, words[i%len(words)]+" ")
					if !ok || !labelLine.MatchString(label) {
						t.Fatalf("line %d: %q is not %q plus a chunk label", i+1, l, words[i%len(words)])
					}
				}
			}},
		// 8. a label the model does not know is scored as an error, not a failure.
		{name: "label unknown to the model", cmd: "eval", input: replaceLine(test, 1, strings.Join(strings.Fields(strings.Split(string(test), "\n")[0])[:2], " ")+" B-LOC"),
			args: []string{"--json"}, code: 0,
			stdout: func(t *testing.T, got string) {
				var res struct {
					Tokens  int     `json:"tokens"`
					Correct int     `json:"correct"`
					Acc     float64 `json:"accuracy"`
				}
				if err := json.Unmarshal([]byte(got), &res); err != nil {
					t.Fatalf("%v\n%s", err, got)
				}
				if res.Tokens == 0 || res.Correct >= res.Tokens {
					t.Errorf("the B-LOC token was scored as correct: %d of %d tokens correct", res.Correct, res.Tokens)
				}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.cmd+"/"+tc.name, func(t *testing.T) {
			in := "<stdin>"
			args := []string{tc.cmd, "--model", model}
			if tc.input != nil {
				in = filepath.Join(t.TempDir(), "in.txt")
				if err := os.WriteFile(in, tc.input, 0o644); err != nil {
					t.Fatal(err)
				}
				args = append(args, in)
			}
			code, stdout, stderr := trellis(t, tc.stdin, append(args, tc.args...)...)
			fail := t.Errorf
			if code != tc.code {
				fail("exit %d, want %d\nstderr:\n%s", code, tc.code, stderr)
			}
			for _, s := range tc.stderr {
				if s = strings.ReplaceAll(s, "{in}", in); !strings.Contains(stderr, s) {
					fail("stderr lacks %q:\n%s", s, stderr)
				}
			}
			switch {
			case code == 0 && tc.stdout != nil:
				tc.stdout(t, stdout)
			case code != 0 && tc.partial != nil:
				tc.partial(t, stdout)
			case code != 0 && stdout != "":
				fail("a failing %s wrote %d bytes to stdout:\n%.300s", tc.cmd, len(stdout), stdout)
			}
		})
	}
}

func equals(want string) func(t *testing.T, got string) {
	return func(t *testing.T, got string) {
		t.Helper()
		if got != want {
			t.Errorf("output (%d bytes) differs from the plain file's (%d bytes)\n--- got (start) ---\n%.300s", len(got), len(want), got)
		}
	}
}

// newerModelCases: 14. a model written by a newer trellis, whose format
// version is higher, is refused with the version and a hint to upgrade.
// This trellis reads versions 1 to 6 (2: locally normalized models, the
// MEMM, and others; 3: second-order models; 4: models with a neural
// encoder; 5: transition models; 6: reranked models), so "newer" is 7;
// the HMM's model is version 1.
func newerModelCases(t *testing.T) {
	model := readFile(t, filepath.Join(sharedRun(t, chunkSpec), "models", "hmm.model"))
	// The layout: 8 bytes of magic, the format version (uint32, little
	// endian), the JSON header's length (uint64) and the header, which
	// repeats the version; a SHA-256 of everything before it ends the file.
	const versionAt = 8
	version := binary.LittleEndian.Uint32(model[versionAt:])
	if version != 1 {
		t.Fatalf("the model's format version is %d; update this test", version)
	}
	headerAt := versionAt + 4 + 8
	if !bytes.HasPrefix(model[headerAt:], []byte(`{"version":1,`)) {
		t.Fatalf("the model header does not start with the version: %.40q", model[headerAt:])
	}
	reseal := func(b []byte) []byte {
		body := b[:len(b)-sha256.Size]
		sum := sha256.Sum256(body)
		return append(body, sum[:]...)
	}
	// Versions 2 (a model trained in an encoding), 3 (a second-order
	// model), 4 (a neural encoder), 5 (a transition model) and 6 (a
	// reranked model) are this trellis's own; the first it does not know
	// is 7.
	newer := func(field bool, header bool) []byte {
		b := bytes.Clone(model)
		if field {
			binary.LittleEndian.PutUint32(b[versionAt:], 7)
		}
		if header {
			copy(b[headerAt:], `{"version":7,`)
		}
		return reseal(b)
	}
	variants := []struct {
		name string
		data []byte
		msg  string
	}{
		{"version field and header", newer(true, true), "model file format version 7 is newer than this trellis supports (6); use a newer trellis"},
		{"version field, checksum not resealed", func() []byte {
			b := bytes.Clone(model)
			binary.LittleEndian.PutUint32(b[versionAt:], 8)
			return b
		}(), "model file format version 8 is newer than this trellis supports (6); use a newer trellis"},
		{"header only", newer(false, true), "model header says format version 7, newer than this trellis supports (6); use a newer trellis"},
	}
	for _, v := range variants {
		for _, cmd := range []string{"tag", "eval"} {
			t.Run("model/"+cmd+" "+v.name, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "newer.model")
				if err := os.WriteFile(path, v.data, 0o644); err != nil {
					t.Fatal(err)
				}
				code, stdout, stderr := trellis(t, "", cmd, "--model", path, chunkTest)
				if code != exitFailure {
					t.Errorf("exit %d, want %d\nstderr:\n%s", code, exitFailure, stderr)
				}
				if stdout != "" {
					t.Errorf("wrote to stdout:\n%.300s", stdout)
				}
				if want := "trellis: error: " + path + ": " + v.msg; !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			})
		}
	}
}
