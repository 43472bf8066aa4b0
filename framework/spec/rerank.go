// rerank.go decodes a learner's rerank block: the learner is the first
// pass whose k-best lists a reranker with global features rescores
// (framework/rerank).

package spec

import (
	"fmt"
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"

	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/registry"
	"github.com/trellis-nlp/trellis/framework/rerank"
)

// Rerank is a learner's rerank block:
//
//	learner "crf" {
//	  type = "crf"
//	  rerank {
//	    k        = 20            # candidates per sentence (at least 2)
//	    folds    = 10            # jackknifing folds (at least 2)
//	    by       = "document"    # folds of whole documents, or "sentence"
//	    trainer  = "perceptron"  # or "maxent"
//	    epochs   = 20            # perceptron
//	    c2       = 0.1           # maxent: c2·‖w‖²
//	    max_iterations = 0       # maxent: L-BFGS bound, 0 until it converges
//	    features = ["ngram", "doc"] # feature groups (rerank.Groups); default all (but doc, by sentence)
//	  }
//	}
//
// The learner is the first pass: trained on all of train as without the
// block, then jackknifed (each fold of train documents, or sentences,
// listed by the learner trained on the others), the reranker trained on
// those lists, and the model file carries it; the tagger then decodes the
// k best and reranks them. Since the block sits inside its first pass, a reranker
// without one cannot be written.
//
// by = "sentence" deals sentences to the folds, for a train corpus
// without document boundaries (one document, fewer than the folds). It
// leaves out the doc feature group: a sentence's document features read
// the 1-best of its document's other sentences, and with sentence folds
// those come from fold models that trained on the sentence itself, so in
// training they would agree with its gold labels more than they can when
// tagging. The group is refused when listed, and the default features are
// the other groups.
type Rerank struct {
	K     int `json:"k"`
	Folds int `json:"folds"`
	// By is the fold unit as the stage's by: StageBySentence, or "" for
	// whole documents (the default; by = "document" is recorded so too,
	// which keeps the JSON of a block without by as it was). FoldUnit
	// reads it.
	By string `json:"by,omitempty"`
	// Settings are the reranker's (rerank.Settings.Seed is the spec's).
	Settings rerank.Settings `json:"settings"`
	// Range is the block's header.
	Range hcl.Range `json:"-"`
}

// Defaults of a rerank block.
const (
	DefaultRerankK      = 20
	DefaultRerankFolds  = 10
	DefaultRerankEpochs = 10
	DefaultRerankC2     = 1.0
)

// rerankBlock is what a rerank block decodes into.
type rerankBlock struct {
	K             *int      `hcl:"k,optional"`
	Folds         *int      `hcl:"folds,optional"`
	By            *string   `hcl:"by,optional"`
	Trainer       *string   `hcl:"trainer,optional"`
	Epochs        *int      `hcl:"epochs,optional"`
	C2            *float64  `hcl:"c2,optional"`
	MaxIterations *int      `hcl:"max_iterations,optional"`
	Features      *[]string `hcl:"features,optional"`
}

var rerankSchema = []hcl.BlockHeaderSchema{{Type: "rerank"}}

// decodeRerank decodes a learner block's rerank blocks (at most one); li
// is the learner (its decode, joint blocks and type are checked against
// the block).
func (s *Spec) decodeRerank(blocks hcl.Blocks, ctx *hcl.EvalContext, li *LearnerInstance, searches bool) (*Rerank, hcl.Diagnostics) {
	if len(blocks) == 0 {
		return nil, nil
	}
	diags := duplicateBlocks(blocks, "rerank")
	b := blocks[0]
	var rb rerankBlock
	if d := gohcl.DecodeBody(b.Body, ctx, &rb); d.HasErrors() {
		return nil, append(diags, d...)
	}
	if rb == (rerankBlock{}) {
		// The block's place says which learner is the first pass; an
		// empty one says nothing of the reranker, likely a placeholder.
		return nil, append(diags, errorAt(b.DefRange.Ptr(), "Empty rerank block",
			fmt.Sprintf(`A rerank block makes its learner the first pass of a reranker; say at least which trainer reranks (trainer = %q or %q). The other settings have defaults: k = %d, folds = %d, epochs = %d, c2 = %v, every feature group.`,
				rerank.TrainerPerceptron, rerank.TrainerMaxEnt, DefaultRerankK, DefaultRerankFolds, DefaultRerankEpochs, DefaultRerankC2)))
	}
	r := &Rerank{K: DefaultRerankK, Folds: DefaultRerankFolds, Range: b.DefRange,
		Settings: rerank.Settings{Trainer: rerank.TrainerPerceptron, Epochs: DefaultRerankEpochs, C2: DefaultRerankC2, ScoreInit: 1, Seed: s.Seed}}
	diags = append(diags, r.set(b, &rb)...)
	diags = append(diags, s.checkRerank(b, li, searches)...)
	return r, diags
}

// set copies the block's values into r and checks each.
func (r *Rerank) set(b *hcl.Block, rb *rerankBlock) hcl.Diagnostics {
	var diags hcl.Diagnostics
	if rb.K != nil {
		if r.K = *rb.K; r.K < 2 {
			diags = append(diags, errorAt(attrRange(b, "k"), "Invalid k",
				fmt.Sprintf("k is the candidates per sentence the first pass lists: at least 2 (with 1 there is nothing to rerank), got %d.", r.K)))
		}
	}
	if rb.Folds != nil {
		if r.Folds = *rb.Folds; r.Folds < 2 {
			diags = append(diags, errorAt(attrRange(b, "folds"), "Invalid folds",
				fmt.Sprintf("folds = %d: jackknifing needs at least 2 folds (each fold's lists come from a model trained on the others).", r.Folds)))
		}
	}
	diags = append(diags, r.setBy(b, rb)...)
	st := &r.Settings
	trainers := []string{rerank.TrainerPerceptron, rerank.TrainerMaxEnt}
	if rb.Trainer != nil {
		if st.Trainer = *rb.Trainer; !slices.Contains(trainers, st.Trainer) {
			diags = append(diags, errorAt(attrRange(b, "trainer"), "Invalid trainer", registry.DidYouMean(st.Trainer, trainers, "reranker trainer")))
		}
	}
	only := func(name, trainer string) {
		if st.Trainer != trainer && slices.Contains(trainers, st.Trainer) {
			diags = append(diags, errorAt(attrRange(b, name), "Unsupported rerank setting",
				fmt.Sprintf("%s is a setting of trainer = %q; this reranker's trainer is %q. Remove %s.", name, trainer, st.Trainer, name)))
		}
	}
	if rb.Epochs != nil {
		only("epochs", rerank.TrainerPerceptron)
		if st.Epochs = *rb.Epochs; st.Epochs < 1 {
			diags = append(diags, errorAt(attrRange(b, "epochs"), "Invalid epochs", fmt.Sprintf("epochs must be at least 1, got %d.", st.Epochs)))
		}
	}
	if rb.C2 != nil {
		only("c2", rerank.TrainerMaxEnt)
		if st.C2 = *rb.C2; !(st.C2 >= 0) {
			diags = append(diags, errorAt(attrRange(b, "c2"), "Invalid c2", fmt.Sprintf("c2 weighs the penalty c2·‖w‖²: at least 0, got %v.", st.C2)))
		}
	}
	if rb.MaxIterations != nil {
		only("max_iterations", rerank.TrainerMaxEnt)
		if st.MaxIterations = *rb.MaxIterations; st.MaxIterations < 0 {
			diags = append(diags, errorAt(attrRange(b, "max_iterations"), "Invalid max_iterations",
				fmt.Sprintf("max_iterations bounds L-BFGS's iterations (0: until it converges): at least 0, got %d.", st.MaxIterations)))
		}
	}
	if rb.Features != nil {
		st.Features = slices.Clone(*rb.Features)
		if st.Features == nil {
			st.Features = []string{} // features = []: the score feature alone
		}
		for _, g := range st.Features {
			if !slices.Contains(rerank.Groups, g) {
				diags = append(diags, errorAt(attrRange(b, "features"), "Unknown feature group", registry.DidYouMean(g, rerank.Groups, "rerank feature group")))
			}
		}
	}
	return diags
}

// FoldUnit is the unit the jackknifing folds deal: StageByDocument or
// StageBySentence.
func (r *Rerank) FoldUnit() string {
	if r.By == "" {
		return StageByDocument
	}
	return r.By
}

// setBy checks by (the stage's values, stageBy) and, for folds of
// sentences, leaves the doc group out of the features (see Rerank): an
// error at features when it lists doc, and every other group when it is
// not given.
func (r *Rerank) setBy(b *hcl.Block, rb *rerankBlock) hcl.Diagnostics {
	if rb.By == nil {
		return nil
	}
	switch by := *rb.By; by {
	case StageByDocument:
		return nil
	case StageBySentence:
		r.By = by
	default:
		return hcl.Diagnostics{errorAt(attrRange(b, "by"), "Invalid by", registry.DidYouMean(by, stageBy, "fold unit"))}
	}
	if rb.Features == nil {
		r.Settings.Features = slices.DeleteFunc(slices.Clone(rerank.Groups), func(g string) bool { return g == rerank.GroupDoc })
		return nil
	}
	if slices.Contains(*rb.Features, rerank.GroupDoc) {
		return hcl.Diagnostics{errorAt(attrRange(b, "features"), "Document features with sentence folds",
			fmt.Sprintf(`by = %q deals a document's sentences to different folds, so the 1-best of its other sentences, which the %q group reads, comes from fold models that trained on the sentence itself: in training they would echo its gold labels. Remove %q from features, or set by = %q (folds of whole documents).`,
				StageBySentence, rerank.GroupDoc, rerank.GroupDoc, StageByDocument))}
	}
	return nil
}

// checkRerank refuses a rerank block on what it cannot rerank: labels
// without typed spans (the features and the oracle read spans), decoding
// other than viterbi (the lists are n-best Viterbi's), a learner that
// decodes by its own search (no lattice, no n-best) and one with joint
// decoding blocks, a stage block, init_model or an encoder (not supported
// yet: each would need its own jackknifing).
func (s *Spec) checkRerank(b *hcl.Block, li *LearnerInstance, searches bool) hcl.Diagnostics {
	var diags hcl.Diagnostics
	refuse := func(summary, detail string) {
		diags = append(diags, errorAt(b.DefRange.Ptr(), summary, detail))
	}
	if sch := s.Labels.Scheme; !sch.HasSpans() {
		refuse("Reranking without spans",
			fmt.Sprintf("The labels' scheme is %s: reranking's features (span types, lengths, document consistency) and its oracle read typed spans, which only iob1, iob2 and bioes labels have.", sch))
	}
	switch {
	case searches:
		refuse("Reranking a transition learner",
			fmt.Sprintf("Learner type %s decodes by its own left-to-right search, which gives no k-best list to rerank. Rerank a lattice learner (crf, perceptron, …).", li.Type))
	case li.Decode != lattice.DecodeViterbi:
		refuse("Reranking needs viterbi",
			fmt.Sprintf("The reranker rescores the first pass's k best Viterbi paths; this learner decodes with %s. Remove decode or the rerank block.", li.Decode))
	}
	if li.Joint.Enabled() {
		refuse("Reranking with joint decoding",
			"A learner takes a rerank block or consistency/constraint blocks, not both: joint decoding gives one labelling per document, no k-best list.")
	}
	if li.Stage != nil {
		refuse("Reranking a second stage", "A second stage (a stage block) cannot be reranked yet; rerank its first stage or remove the stage block.")
	}
	return diags
}

// checkReranks refuses what a reranked learner cannot have yet: init_model
// (every jackknifing fold model would start from weights that may have
// seen the sentences the fold lists) and a tune block (the fold models
// would be trained with the block's settings, not the tuning's pick).
func (s *Spec) checkReranks(tunes hcl.Blocks) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, li := range s.Learners {
		if li.Rerank == nil {
			continue
		}
		if li.InitModel != nil {
			diags = append(diags, errorAt(li.InitModel.Range.Ptr(), "init_model with a rerank block",
				fmt.Sprintf("Learner %q is reranked: each jackknifing fold model would start from this model, which may have been trained on the very sentences the fold lists. Remove init_model or the rerank block.", li.Name)))
		}
		for _, tb := range tunes {
			if tb.Labels[0] == li.Name {
				diags = append(diags, errorAt(tb.LabelRanges[0].Ptr(), "Tuning a reranked learner",
					fmt.Sprintf("Learner %q has a rerank block; tuning a reranked learner is not supported yet. Remove the tune block or the rerank block.", li.Name)))
			}
		}
	}
	return diags
}
