// Reading corpora and checking data (CheckData).

package run

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/spec"
)

// scanCorpus reads a corpus block through, applying its split, and calls
// visit with every sentence it keeps. It fails on a data error (file:line),
// when the split keeps no sentence, and with visit's error, at once.
func scanCorpus(c *spec.Corpus, visit func(*corpus.Sentence) error) error {
	f, err := corpus.New(c.Format)
	if err != nil {
		return err
	}
	fh, err := os.Open(c.Path)
	if err != nil {
		return err
	}
	defer fh.Close()
	r := f.NewReader(fh, c.Path, corpus.ReadOptions{})
	kept := 0
	for i := 0; ; i++ {
		s, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if c.Split.Keep(i) {
			kept++
			if err := visit(s); err != nil {
				return err
			}
		}
	}
	if kept == 0 {
		return fmt.Errorf("%s: corpus %q has no sentences", c.Path, c.Name)
	}
	return nil
}

// readCorpus reads all sentences of a corpus block, applying its split.
func readCorpus(c *spec.Corpus) ([]*corpus.Sentence, error) {
	var out []*corpus.Sentence
	err := scanCorpus(c, func(s *corpus.Sentence) error {
		out = append(out, s)
		return nil
	})
	return out, err
}

// labelColumn is the index of the spec's label column in corpus c.
func labelColumn(c *spec.Corpus) (int, error) {
	f, err := corpus.New(c.Format)
	if err != nil {
		return -1, err
	}
	return f.LabelColumn(), nil
}

// CorpusStats describe one corpus as CheckData read it.
type CorpusStats struct {
	Name, Path string
	Sentences  int
	Tokens     int
	// Labels counts the distinct gold labels.
	Labels int
}

// CheckData reads the named corpora of s (all when names is empty), their
// splits applied, exactly as a run reads them, and checks their gold
// labels against the declared scheme. Data errors (each corpus's first,
// with file:line) are joined in err; what the scheme check finds comes
// back as diagnostics on the spec's scheme (see schemeCheck.diagnostic).
func CheckData(s *spec.Spec, names []string) ([]CorpusStats, hcl.Diagnostics, error) {
	if len(names) == 0 {
		for _, c := range s.Corpora {
			names = append(names, c.Name)
		}
	}
	var stats []CorpusStats
	var diags hcl.Diagnostics
	var errs []error
	for _, name := range names {
		st, d, err := checkCorpus(s, name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		stats = append(stats, st)
		if d != nil {
			diags = append(diags, d)
		}
	}
	return stats, diags, errors.Join(errs...)
}

// checkCorpus reads one corpus of s through, keeping nothing: its data
// error, or its figures and what the scheme check says of its labels.
func checkCorpus(s *spec.Spec, name string) (CorpusStats, *hcl.Diagnostic, error) {
	c := s.Corpus(name)
	st := CorpusStats{Name: name, Path: c.Path}
	labelCol, err := labelColumn(c)
	if err == nil && labelCol < 0 {
		err = fmt.Errorf("%s: corpus %q has no label column %q", c.Path, name, s.Labels.Column)
	}
	if err != nil {
		return st, nil, err
	}
	training := name == s.Evaluation.Train
	labels := map[string]bool{}
	check := newSchemeCheck(s, c, labelCol)
	var unlabelled error
	err = scanCorpus(c, func(sent *corpus.Sentence) error {
		st.Sentences++
		st.Tokens += sent.Len()
		for i, tok := range sent.Tokens {
			labels[tok[labelCol]] = true
			if training && tok[labelCol] == "" && unlabelled == nil {
				unlabelled = fmt.Errorf("%s:%d: training token without a label", sent.File, sent.TokenLineNo[i])
			}
		}
		check.add(sent)
		return nil
	})
	if err == nil {
		err = unlabelled
	}
	if err != nil {
		return st, nil, err
	}
	st.Labels = len(labels)
	return st, check.diagnostic(s, training), nil
}
