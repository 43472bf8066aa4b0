// joint.go holds Config (what a spec's consistency and constraint blocks
// ask for) and Joint, which decodes a document under it: the one joint
// decode the tagger and dev scoring share.

package dual

import (
	"errors"
	"fmt"

	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/scheme"
)

// The names of Config.Match and Config.Words.
const (
	MatchToken       = "token"
	MatchSpan        = "span"
	WordsAll         = "all"
	WordsCapitalized = "capitalized"
)

// Config is joint decoding as a spec or the command line declares it.
// The zero Config decodes nothing jointly.
type Config struct {
	// Match is what must agree across a document: MatchToken (the
	// occurrences of a repeated word), MatchSpan (the tokens of the
	// occurrences of a word sequence labelled as a span somewhere in the
	// document), or "" (no document consistency, limits only).
	Match string `json:"match,omitempty"`
	// Words, for MatchToken, is which repeated words form groups:
	// WordsAll (the default) or WordsCapitalized.
	Words string `json:"words,omitempty"`
	// Penalty, when set, makes agreement soft: a site pays it for a type
	// other than its group's. Nil is hard agreement.
	Penalty *float64 `json:"penalty,omitempty"`
	// Iterations and Step are Settings'; 0 means their defaults.
	Iterations int     `json:"iterations,omitempty"`
	Step       float64 `json:"step,omitempty"`
	// Limits bound the spans of a type in every sentence.
	Limits []LimitConfig `json:"limits,omitempty"`
}

// LimitConfig is one constraint block: at least Min and at most Max spans
// of type Type per sentence (Max < 0: no upper bound).
type LimitConfig struct {
	Type string `json:"type"`
	Min  int    `json:"min,omitempty"`
	Max  int    `json:"max"`
}

// Documents reports whether c decodes documents (consistency), not only
// sentences (limits).
func (c *Config) Documents() bool { return c != nil && c.Match != "" }

// Enabled reports whether c asks for any joint decoding.
func (c *Config) Enabled() bool { return c != nil && (c.Match != "" || len(c.Limits) > 0) }

// Validate checks the settings that do not depend on a model's labels.
func (c *Config) Validate() error {
	var errs []error
	switch c.Match {
	case "", MatchToken, MatchSpan:
	default:
		errs = append(errs, fmt.Errorf("match is %q; it is %q or %q", c.Match, MatchToken, MatchSpan))
	}
	switch {
	case c.Words != "" && c.Match != MatchToken:
		errs = append(errs, fmt.Errorf("words chooses the tokens of match = %q", MatchToken))
	case c.Words != "" && c.Words != WordsAll && c.Words != WordsCapitalized:
		errs = append(errs, fmt.Errorf("words is %q; it is %q or %q", c.Words, WordsAll, WordsCapitalized))
	}
	if c.Penalty != nil && !(*c.Penalty >= 0) {
		errs = append(errs, fmt.Errorf("penalty must be at least 0, got %v", *c.Penalty))
	}
	if c.Iterations < 0 {
		errs = append(errs, fmt.Errorf("iterations must be at least 1, got %d", c.Iterations))
	}
	if !(c.Step >= 0) {
		errs = append(errs, fmt.Errorf("step must be above 0, got %v", c.Step))
	}
	for _, l := range c.Limits {
		if l.Min < 0 || (l.Max >= 0 && l.Max < l.Min) || (l.Max < 0 && l.Min == 0) {
			errs = append(errs, fmt.Errorf("constraint %q: min %d, max %d bound nothing or nothing fits", l.Type, l.Min, l.Max))
		}
	}
	return errors.Join(errs...)
}

// settings returns the solver's settings.
func (c *Config) settings() Settings {
	s := Settings{Agreement: Hard{}, Iterations: c.Iterations, Step: c.Step}
	if c.Penalty != nil {
		s.Agreement = Soft{Penalty: *c.Penalty}
	}
	return s
}

// match returns the Match of c.Match (nil for none).
func (c *Config) match() Match {
	switch c.Match {
	case MatchToken:
		return Tokens{Capitalized: c.Words == WordsCapitalized}
	case MatchSpan:
		return Spans{}
	}
	return nil
}

// Stats count the problems a Joint solved: all of them (a document, or a
// sentence decoded alone under the limits), the documents among them
// (Marked: consistency applies to these only), those certified optimal,
// and the subgradient steps, summed and at most.
type Stats struct {
	Problems   int `json:"problems"`
	Marked     int `json:"marked"`
	Certified  int `json:"certified"`
	Iterations int `json:"iterations"`
	Most       int `json:"most_iterations"`
}

// Add counts r, the result of a document (marked) or a sentence.
func (s *Stats) Add(r Result, marked bool) {
	s.Problems++
	if marked {
		s.Marked++
	}
	s.Iterations += r.Iterations
	s.Most = max(s.Most, r.Iterations)
	if r.Certified {
		s.Certified++
	}
}

// Merge adds o's counts to s.
func (s *Stats) Merge(o Stats) {
	s.Problems += o.Problems
	s.Marked += o.Marked
	s.Certified += o.Certified
	s.Iterations += o.Iterations
	s.Most = max(s.Most, o.Most)
}

// Joint decodes documents under a Config with one model's labels. It is
// not safe for concurrent use: each goroutine builds its own.
type Joint struct {
	match   Match
	sch     scheme.Scheme
	labels  []string // the model's label names
	states  int      // states per label (a latent model's k; else 1)
	solver  *Solver
	problem Problem
	grouper Grouper
	// spans and names are the first pass's spans and label names per
	// sentence, for MatchSpan.
	spans [][]scheme.Chunk
	names []string
	Stats Stats
}

// NewJoint returns a Joint for a model with the given labels, decoded in
// scheme sch over states states per label (1 unless latent), each sentence
// decoded by decode.
func NewJoint(c *Config, labels []string, states int, sch scheme.Scheme, decode Decoder) (*Joint, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	types, _, err := Types(labels, sch)
	if err != nil {
		return nil, err
	}
	j := &Joint{match: c.match(), sch: sch, labels: labels, states: states, solver: NewSolver(decode, c.settings())}
	j.problem.Types, j.problem.NumTypes = expand(types, states), int(maxType(types))+1
	for _, l := range c.Limits {
		starts, err := Starts(labels, sch, l.Type)
		if err != nil {
			return nil, err
		}
		j.problem.Limits = append(j.problem.Limits, Limit{Starts: expand(starts, states), Min: l.Min, Max: l.Max})
	}
	return j, nil
}

// Decode writes the state paths of a problem's sentences into dst: a
// document's, with words [k] sentence k's tokens, or one sentence's, with
// words nil (the limits alone then hold).
func (j *Joint) Decode(dst [][]int32, lats []*lattice.Scores, words [][]string) Result {
	j.problem.Lattices, j.problem.Groups = lats, nil
	if j.match != nil && words != nil {
		if _, ok := j.match.(Spans); ok {
			j.firstPass(dst, lats)
		}
		j.problem.Groups = j.grouper.Groups(j.match, words, j.spans)
	}
	r := j.solver.Solve(dst, &j.problem)
	j.Stats.Add(r, words != nil)
	return r
}

// firstPass decodes each sentence alone and keeps its spans.
func (j *Joint) firstPass(dst [][]int32, lats []*lattice.Scores) {
	j.spans = j.spans[:0]
	for k, lat := range lats {
		j.solver.decodeOne(dst[k], lat)
		j.names = j.names[:0]
		for _, s := range dst[k] {
			j.names = append(j.names, j.labels[int(s)/j.states])
		}
		if k < cap(j.spans) {
			j.spans = j.spans[:k+1]
		} else {
			j.spans = append(j.spans, nil)
		}
		j.spans[k] = scheme.Chunks(j.spans[k][:0], j.names, j.sch)
	}
}

// expand repeats each label's entry for each of its states.
func expand[T any](labels []T, states int) []T {
	out := make([]T, 0, len(labels)*states)
	for _, v := range labels {
		for range states {
			out = append(out, v)
		}
	}
	return out
}

func maxType(types []int32) int32 {
	m := int32(0)
	for _, t := range types {
		m = max(m, t)
	}
	return m
}
