package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/trellis-nlp/trellis/framework/dual"
	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/registry"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

// decodeFlags are --decode and --beam, and joint decoding's flags (a
// learner's consistency and constraint blocks), shared by tag and eval.
type decodeFlags struct {
	method      *string
	beam        *int
	consistency *string
	words       *string
	penalty     *string
	iterations  *int
	step        *float64
	limits      *limitFlags
}

func addDecodeFlags(fs *flag.FlagSet) decodeFlags {
	d := decodeFlags{
		method:      fs.String("decode", "viterbi", "how labels are chosen: `"+strings.Join(lattice.MethodNames, "|")+"` (beam needs --beam)"),
		beam:        fs.Int("beam", 0, "the beam width `N` of --decode beam (1 is greedy; the number of labels or more is Viterbi)"),
		consistency: fs.String("consistency", "", "decode each document jointly so that its repeated `token`s, or the tokens of its repeated spans (span), take one type"),
		words:       fs.String("consistency-words", "", "with --consistency token, which repeated words agree: `all` (the default) or capitalized"),
		penalty:     fs.String("penalty", "", "soft agreement: what a token `X` pays for a type other than its group's (default: hard agreement)"),
		iterations:  fs.Int("dd-iterations", 0, "the most subgradient steps `N` of joint decoding per document (default 200)"),
		step:        fs.Float64("dd-step", 0, "the first subgradient step size `X` of joint decoding (default 1)"),
		limits:      &limitFlags{},
	}
	fs.Var(d.limits, "constraint", "bound the spans of a type per sentence, `TYPE<=N`, TYPE>=N or TYPE=N (repeatable); decodes jointly")
	return d
}

// limitFlags are the --constraint flags.
type limitFlags []dual.LimitConfig

func (l *limitFlags) String() string { return "" }

// Set parses TYPE<=N, TYPE>=N or TYPE=N.
func (l *limitFlags) Set(v string) error {
	for _, op := range []string{"<=", ">=", "="} {
		typ, num, ok := strings.Cut(v, op)
		if !ok {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(num))
		if err != nil || n < 0 || typ == "" {
			break
		}
		lim := dual.LimitConfig{Type: strings.TrimSpace(typ), Min: n, Max: n}
		switch op {
		case "<=":
			lim.Min = 0
		case ">=":
			lim.Max = -1
		}
		*l = append(*l, lim)
		return nil
	}
	return fmt.Errorf("%q is not TYPE<=N, TYPE>=N or TYPE=N with N a count", v)
}

// joint returns the joint decoding the flags ask for, nil for none.
func (d decodeFlags) joint() (*dual.Config, error) {
	c := &dual.Config{Match: *d.consistency, Words: *d.words, Iterations: *d.iterations, Step: *d.step, Limits: *d.limits}
	if *d.penalty != "" {
		p, err := strconv.ParseFloat(*d.penalty, 64)
		if err != nil {
			return nil, usagef("--penalty: %q is not a number", *d.penalty)
		}
		c.Penalty = &p
	}
	if !c.Enabled() {
		if c.Words != "" || c.Penalty != nil || c.Iterations != 0 || c.Step != 0 {
			return nil, usagef("--consistency-words, --penalty, --dd-iterations and --dd-step set joint decoding: add --consistency or --constraint")
		}
		return nil, nil
	}
	if err := c.Validate(); err != nil {
		return nil, usagef("joint decoding: %v", err)
	}
	return c, nil
}

// apply sets opt's decoding from the flags; a bad combination is a usage
// error. nbest is the --nbest of tag (1 for eval): the k best paths are
// Viterbi's, so they do not combine with another method.
func (d decodeFlags) apply(opt *tagger.Options, nbest int) error {
	m, ok := lattice.ParseMethod(*d.method)
	if !ok {
		return usagef("--decode: %s", registry.DidYouMean(*d.method, lattice.MethodNames, "decoding method"))
	}
	switch {
	case m == lattice.DecodeBeam && *d.beam < 1:
		return usagef("--decode beam needs --beam N with N >= 1 (got %d)", *d.beam)
	case m != lattice.DecodeBeam && *d.beam != 0:
		return usagef("--beam is the width of --decode beam; add --decode beam or leave --beam out")
	case m != lattice.DecodeViterbi && nbest > 1:
		return usagef("--nbest lists Viterbi's k best paths; it does not combine with --decode %s", m)
	}
	opt.Decode, opt.Beam = m, *d.beam
	joint, err := d.joint()
	if err != nil {
		return err
	}
	switch {
	case joint != nil && m != lattice.DecodeViterbi:
		return usagef("--consistency and --constraint decode each sentence with viterbi; leave out --decode %s", m)
	case joint != nil && nbest > 1:
		return usagef("--consistency and --constraint give one labelling; they do not combine with --nbest")
	}
	opt.Joint = joint
	return nil
}

// logJoint logs how tg's joint decoding went (cfg, its Options.Joint;
// nothing without one): the problems, documents and certificates, and a
// warning when consistency found no document to apply to.
func (a *app) logJoint(tg *tagger.Tagger, cfg *dual.Config) {
	if !cfg.Enabled() {
		return
	}
	st := tg.JointStats()
	a.log.Info().Int("problems", st.Problems).Int("documents", st.Marked).Int("certified", st.Certified).
		Int("iterations", st.Iterations).Int("most_iterations", st.Most).Msg("joint decoding")
	if cfg.Documents() && st.Problems > 0 && st.Marked == 0 {
		a.log.Warn().Msg("the input has no document boundaries: consistency keeps a document's words consistent, so it changed nothing (constraints still apply)")
	}
}
