package run

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/trellis-nlp/trellis/framework/eval"
	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/scheme"
)

// evalFile is where a run keeps one learner's gold and predicted labels per
// test token ("gold<TAB>pred<TAB>oov", a blank line between sentences):
// what `trellis compare` needs to test runs against each other without
// re-reading corpora in their own formats.
func evalFile(dir, learner string) string { return filepath.Join(dir, "eval", learner+".tsv") }

func writeEvalTSV(path string, sents []eval.Sentence) error {
	var b bytes.Buffer
	for _, s := range sents {
		for i := range s.Gold {
			oov := "0"
			if s.OOV != nil && s.OOV[i] {
				oov = "1"
			}
			b.WriteString(s.Gold[i])
			b.WriteByte('\t')
			b.WriteString(s.Pred[i])
			b.WriteByte('\t')
			b.WriteString(oov)
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return model.WriteFileAtomic(path, b.Bytes())
}

func readEvalTSV(path string) ([]eval.Sentence, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []eval.Sentence
	var cur eval.Sentence
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if text == "" {
			if len(cur.Gold) > 0 {
				out = append(out, cur)
			}
			cur = eval.Sentence{}
			continue
		}
		fields := strings.Split(text, "\t")
		if len(fields) != 3 {
			return nil, fmt.Errorf("%s:%d: want gold, predicted and oov fields, got %d fields", path, line, len(fields))
		}
		cur.Gold = append(cur.Gold, fields[0])
		cur.Pred = append(cur.Pred, fields[1])
		cur.OOV = append(cur.OOV, fields[2] == "1")
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(cur.Gold) > 0 {
		out = append(out, cur)
	}
	return out, nil
}

// runManifest is the part of manifest.json that compare and reproduce read.
type runManifest struct {
	Experiment string            `json:"experiment"`
	SpecFile   string            `json:"spec_file"`
	SpecHash   string            `json:"spec_sha256"`
	DataHashes map[string]string `json:"data_sha256"`
	TestCorpus string            `json:"test_corpus"`
	Scheme     scheme.Scheme     `json:"scheme"`
	Seed       uint64            `json:"seed"`
	Command    []string          `json:"command"`
	Dir        string            `json:"working_directory"`
	Learners   map[string]any    `json:"learners"`
}

func readManifest(dir string) (*runManifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return nil, fmt.Errorf("%s is not a run directory: %w", dir, err)
	}
	var m runManifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s/manifest.json: %w", dir, err)
	}
	return &m, nil
}

func readMetrics(dir string) (map[string]*LearnerMetrics, error) {
	b, err := os.ReadFile(filepath.Join(dir, "metrics.json"))
	if err != nil {
		return nil, err
	}
	var m map[string]*LearnerMetrics
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s/metrics.json: %w", dir, err)
	}
	return m, nil
}

// CompareDirs puts the learners of earlier runs side by side — the same
// table, intervals and significance tests a single run prints — naming
// each "DIR:learner" when there is more than one directory. Runs must have
// tested on the same data (same test file hash and the same gold labels).
func CompareDirs(dirs []string, seed uint64, w io.Writer) (*Result, error) {
	if len(dirs) == 0 {
		return nil, &UsageError{"compare needs at least one run directory"}
	}
	res := &Result{Metrics: map[string]*LearnerMetrics{}}
	var sch scheme.Scheme
	var testHash, firstDir string
	for k, dir := range dirs {
		man, err := readManifest(dir)
		if err != nil {
			return nil, err
		}
		metrics, err := readMetrics(dir)
		if err != nil {
			return nil, err
		}
		h := man.DataHashes[man.TestCorpus]
		if k == 0 {
			sch, testHash, firstDir = man.Scheme, h, dir
		} else {
			if h != testHash || h == "" {
				return nil, fmt.Errorf("%s and %s were tested on different data (test corpus SHA-256 %.12s… vs %.12s…); their scores are not comparable", firstDir, dir, testHash, h)
			}
			if man.Scheme != sch {
				return nil, fmt.Errorf("%s uses label scheme %s and %s uses %s", firstDir, sch, dir, man.Scheme)
			}
		}
		names := make([]string, 0, len(metrics))
		for n := range metrics {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			lm := metrics[n]
			sents, err := readEvalTSV(evalFile(dir, n))
			if err != nil {
				return nil, fmt.Errorf("learner %q of %s: %w", n, dir, err)
			}
			lm.Result = eval.Evaluate(sents, eval.Options{Scheme: sch})
			lm.test = sents
			label := n
			if len(dirs) > 1 {
				label = dir + ":" + n
			}
			res.Metrics[label] = lm
			res.Order = append(res.Order, label)
		}
	}
	if err := compareLearners(res, sch, seed); err != nil {
		return nil, err
	}
	WriteTable(w, res, sch)
	return res, nil
}
