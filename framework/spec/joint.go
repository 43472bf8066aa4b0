// joint.go decodes a learner's consistency and constraint blocks: joint
// decoding by dual decomposition (framework/dual).

package spec

import (
	"fmt"
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"

	"github.com/trellis-nlp/trellis/framework/dual"
	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/registry"
	"github.com/trellis-nlp/trellis/framework/scheme"
)

// A learner's joint decoding blocks:
//
//	learner "crf-dd" {
//	  type = "crf"
//	  consistency {            # a document's repeated words take one type
//	    match      = "token"   # or "span": word sequences labelled as spans
//	    words      = "all"     # or "capitalized" (match = "token" only)
//	    penalty    = 2         # soft agreement; absent: hard
//	    iterations = 200       # subgradient steps per document
//	    step       = 1         # the first step size
//	  }
//	  constraint "PER" {       # per sentence, spans of type PER
//	    max = 1
//	    min = 0
//	  }
//	}
//
// The model is trained as without them; the tagger and dev scoring
// decode each document jointly (dual.Joint).

var jointSchema = []hcl.BlockHeaderSchema{{Type: "consistency"}, {Type: "constraint", LabelNames: []string{"type"}}}

// learnerBlocks are the blocks a learner block holds besides its settings.
var learnerBlocks = append(append(slices.Clone(stageSchema.Blocks), jointSchema...), rerankSchema...)

// consistencyBlock is what a consistency block decodes into.
type consistencyBlock struct {
	Match      *string  `hcl:"match,optional"`
	Words      *string  `hcl:"words,optional"`
	Penalty    *float64 `hcl:"penalty,optional"`
	Iterations *int     `hcl:"iterations,optional"`
	Step       *float64 `hcl:"step,optional"`
}

// constraintBlock is what a constraint block decodes into.
type constraintBlock struct {
	Min *int `hcl:"min,optional"`
	Max *int `hcl:"max,optional"`
}

// decodeJoint decodes a learner block's consistency (at most one) and
// constraint blocks into a dual.Config, nil when it has neither. method
// and decodeRange are the learner's decode setting and where it is.
func (s *Spec) decodeJoint(blocks hcl.Blocks, ctx *hcl.EvalContext, method lattice.Method, decodeRange *hcl.Range) (*dual.Config, hcl.Diagnostics) {
	cons, limits := blocks.OfType("consistency"), blocks.OfType("constraint")
	if len(cons) == 0 && len(limits) == 0 {
		return nil, nil
	}
	cfg := &dual.Config{}
	var diags hcl.Diagnostics
	if len(cons) > 0 {
		diags = append(diags, duplicateBlocks(cons, "consistency")...)
		diags = append(diags, decodeConsistency(cons[0], ctx, cfg)...)
	}
	seen := map[string]hcl.Range{}
	for _, b := range limits {
		typ := b.Labels[0]
		if first, dup := seen[typ]; dup {
			diags = append(diags, errorAt(b.LabelRanges[0].Ptr(), "Duplicate constraint",
				fmt.Sprintf("Type %q is constrained twice; the first block is at %s.", typ, first)))
			continue
		}
		seen[typ] = b.DefRange
		diags = append(diags, decodeConstraint(b, ctx, cfg)...)
	}
	diags = append(diags, s.checkJoint(blocks, cfg, method, decodeRange)...)
	return cfg, diags
}

// decodeConsistency decodes a consistency block into cfg.
func decodeConsistency(b *hcl.Block, ctx *hcl.EvalContext, cfg *dual.Config) hcl.Diagnostics {
	var cb consistencyBlock
	if d := gohcl.DecodeBody(b.Body, ctx, &cb); d.HasErrors() {
		return d
	}
	var diags hcl.Diagnostics
	cfg.Match = dual.MatchToken
	if cb.Match != nil {
		cfg.Match = *cb.Match
	}
	matches := []string{dual.MatchToken, dual.MatchSpan}
	if !slices.Contains(matches, cfg.Match) {
		diags = append(diags, errorAt(attrRange(b, "match"), "Invalid match", registry.DidYouMean(cfg.Match, matches, "match")))
	}
	if cb.Words != nil {
		cfg.Words = *cb.Words
		words := []string{dual.WordsAll, dual.WordsCapitalized}
		switch {
		case cfg.Match != dual.MatchToken:
			diags = append(diags, errorAt(attrRange(b, "words"), "words without match = \"token\"",
				`words chooses which repeated words must agree; with match = "span" the spans choose. Remove words.`))
		case !slices.Contains(words, cfg.Words):
			diags = append(diags, errorAt(attrRange(b, "words"), "Invalid words", registry.DidYouMean(cfg.Words, words, "words")))
		}
	}
	if cfg.Penalty = cb.Penalty; cfg.Penalty != nil && !(*cfg.Penalty >= 0) {
		diags = append(diags, errorAt(attrRange(b, "penalty"), "Invalid penalty",
			fmt.Sprintf("penalty is what a token pays for a type other than its group's: at least 0, got %v (leave it out for hard agreement).", *cfg.Penalty)))
	}
	if cb.Iterations != nil {
		if cfg.Iterations = *cb.Iterations; cfg.Iterations < 1 {
			diags = append(diags, errorAt(attrRange(b, "iterations"), "Invalid iterations",
				fmt.Sprintf("iterations is the most subgradient steps per document: at least 1, got %d.", cfg.Iterations)))
		}
	}
	if cb.Step != nil {
		if cfg.Step = *cb.Step; !(cfg.Step > 0) {
			diags = append(diags, errorAt(attrRange(b, "step"), "Invalid step",
				fmt.Sprintf("step is the first subgradient step size: above 0, got %v.", cfg.Step)))
		}
	}
	return diags
}

// decodeConstraint decodes a constraint block into a limit of cfg.
func decodeConstraint(b *hcl.Block, ctx *hcl.EvalContext, cfg *dual.Config) hcl.Diagnostics {
	var cb constraintBlock
	if d := gohcl.DecodeBody(b.Body, ctx, &cb); d.HasErrors() {
		return d
	}
	l := dual.LimitConfig{Type: b.Labels[0], Max: -1}
	if cb.Min != nil {
		l.Min = *cb.Min
	}
	if cb.Max != nil {
		l.Max = *cb.Max
	}
	switch {
	case cb.Min == nil && cb.Max == nil:
		return hcl.Diagnostics{errorAt(b.DefRange.Ptr(), "Empty constraint",
			fmt.Sprintf("A constraint block bounds the spans of type %q in a sentence: give max = N, min = N or both.", l.Type))}
	case l.Min < 0:
		return hcl.Diagnostics{errorAt(attrRange(b, "min"), "Invalid min", fmt.Sprintf("min must be at least 0, got %d.", l.Min))}
	case cb.Max != nil && l.Max < l.Min:
		return hcl.Diagnostics{errorAt(attrRange(b, "max"), "Invalid max",
			fmt.Sprintf("max (%d) is below min (%d): no sentence could satisfy the constraint.", l.Max, l.Min))}
	}
	cfg.Limits = append(cfg.Limits, l)
	return nil
}

// checkJoint checks joint decoding against the learner's decode method
// and the labels' scheme.
func (s *Spec) checkJoint(blocks hcl.Blocks, cfg *dual.Config, method lattice.Method, decodeRange *hcl.Range) hcl.Diagnostics {
	var diags hcl.Diagnostics
	if method != lattice.DecodeViterbi {
		diags = append(diags, errorAt(decodeRange, "Joint decoding needs viterbi",
			fmt.Sprintf("consistency and constraint blocks decode each sentence with viterbi inside the joint decode (its certificate of optimality needs exact decoding); this learner decodes with %s. Remove decode or the blocks.", method)))
	}
	sch := s.Labels.Training()
	if sch.IsSegmentation() {
		diags = append(diags, errorAt(blocks[0].DefRange.Ptr(), "Joint decoding without types",
			fmt.Sprintf("The labels' scheme is %s: its labels mark word boundaries and carry no types to agree on or count.", sch)))
		return diags
	}
	if len(cfg.Limits) > 0 && sch == scheme.IOB1 {
		diags = append(diags, errorAt(blocks.OfType("constraint")[0].DefRange.Ptr(), "Constraints need iob2 or bioes",
			`Under iob1 a span's first label depends on the label before it, so a span count is not a sum of label scores. Train in another encoding: encode = "iob2" in the labels block.`))
	}
	return diags
}
