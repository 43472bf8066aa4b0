package main

import (
	"flag"
	"strings"

	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/registry"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

// decodeFlags are --decode and --beam, shared by tag and eval.
type decodeFlags struct {
	method *string
	beam   *int
}

func addDecodeFlags(fs *flag.FlagSet) decodeFlags {
	return decodeFlags{
		method: fs.String("decode", "viterbi", "how labels are chosen: `"+strings.Join(lattice.MethodNames, "|")+"` (beam needs --beam)"),
		beam:   fs.Int("beam", 0, "the beam width `N` of --decode beam (1 is greedy; the number of labels or more is Viterbi)"),
	}
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
	return nil
}
