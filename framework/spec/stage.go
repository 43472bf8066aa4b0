package spec

import (
	"fmt"
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/registry"
)

// Stage is a learner's stage block: the learner is a second stage that
// reads, as one more input column, the labels of a first stage: another
// learner of the spec (From), jackknifed, or a trained model (Model).
//
//	learner "crf2" {
//	  type = "crf"
//	  stage {
//	    from   = "perceptron" # the first stage: a learner of this spec without a stage
//	    column = "pred"       # the column templates read it by (default: from's name)
//	    folds  = 10           # jackknifing folds on the train corpus (at least 2)
//	    by     = "document"   # folds of whole documents, or "sentence"
//	  }
//	}
//
// On the train corpus the column comes from K-fold jackknifing: the first
// stage is trained on all folds but one and predicts that one, so no
// prediction comes from a model that saw its sentence. On the dev and test
// corpora (and when the saved model tags) it comes from the first stage
// trained on the whole train corpus, which the second stage's model file
// carries. The first stage trains on the spec's templates that read no
// stage column; the second on those and the templates that read its own.
//
// A model stage names a trained model instead, a shipped one or a file
// (resolved as `trellis tag --model` resolves it, a path against the
// spec's folder):
//
//	stage {
//	  model  = "en-xpos" # a model that did not train on this corpus
//	  column = "xpos"    # required: the column its labels fill
//	}
//
// The model labels every train and dev sentence (no jackknifing, no folds
// or by: it never saw them), reading the corpus's word column and any
// other column it reads by name; the second stage's model file carries it
// and runs it before itself, as for a jackknifed stage. Its labels are a
// new column, never a corpus column: to learn from a tagger's output
// rather than the gold tags a corpus has, rename the gold column (columns
// = ["word", "gold_xpos", "chunk"]) and read the stage's column, so no
// template can read the gold one by mistake and tagging needs words only.
type Stage struct {
	Source StageSource `json:"-"`
	From   string      `json:"from"`
	// Model is the model as the spec names it (a model stage).
	Model  string `json:"model,omitempty"`
	Column string `json:"column"`
	Folds  int    `json:"folds"`
	By     string `json:"by"`
	// Range is the stage block's header; FromRange the from value,
	// ModelRange the model value.
	Range      hcl.Range `json:"-"`
	FromRange  hcl.Range `json:"-"`
	ModelRange hcl.Range `json:"-"`
	// Loaded is a model stage's model and SHA256 its file's, set when the
	// spec decodes without errors.
	Loaded *model.Model `json:"-"`
	SHA256 string       `json:"sha256,omitempty"`
}

// StageSource is where a stage's column comes from.
type StageSource int

const (
	// StageJackknifed: a first-stage learner of the spec, jackknifed on
	// the train corpus.
	StageJackknifed StageSource = iota
	// StageModel: a trained model (a shipped name or a file) run on every
	// sentence.
	StageModel
)

// DefaultStageFolds is the jackknifing folds of a stage that does not say.
const DefaultStageFolds = 10

// Fold units of a stage's by.
const (
	StageByDocument = "document"
	StageBySentence = "sentence"
)

var stageBy = []string{StageByDocument, StageBySentence}

// stageBlock is what a stage block decodes into.
type stageBlock struct {
	From   *string `hcl:"from,optional"`
	Model  *string `hcl:"model,optional"`
	Column *string `hcl:"column,optional"`
	Folds  *int    `hcl:"folds,optional"`
	By     *string `hcl:"by,optional"`
}

var stageSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "stage"}}}

// peekStageColumns returns the names of the columns the learners' stage
// blocks add (column, else from), read before the features are decoded so
// that templates can be checked against them. Mistakes are reported when
// the learners are decoded.
func peekStageColumns(blocks hcl.Blocks, ctx *hcl.EvalContext) []string {
	var cols []string
	for _, b := range blocks {
		content, _, _ := b.Body.PartialContent(stageSchema)
		for _, sb := range content.Blocks {
			attrs, _ := sb.Body.JustAttributes()
			for _, name := range []string{"column", "from"} {
				a, ok := attrs[name]
				if !ok {
					continue
				}
				var v string
				if d := gohcl.DecodeExpression(a.Expr, ctx, &v); !d.HasErrors() && v != "" && !slices.Contains(cols, v) {
					cols = append(cols, v)
				}
				break
			}
		}
	}
	return cols
}

// duplicateBlocks reports every block of blocks after the first, all of
// type typ inside one learner block, which takes at most one.
func duplicateBlocks(blocks hcl.Blocks, typ string) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, b := range blocks[1:] {
		diags = append(diags, errorAt(b.DefRange.Ptr(), "Duplicate "+typ+" block",
			fmt.Sprintf("A learner takes one %s block; the first is at %s.", typ, blocks[0].DefRange)))
	}
	return diags
}

// decodeStage decodes a learner block's stage blocks (at most one).
func decodeStage(blocks hcl.Blocks, ctx *hcl.EvalContext) (*Stage, hcl.Diagnostics) {
	if len(blocks) == 0 {
		return nil, nil
	}
	diags := duplicateBlocks(blocks, "stage")
	b := blocks[0]
	var sb stageBlock
	if d := gohcl.DecodeBody(b.Body, ctx, &sb); d.HasErrors() {
		return nil, append(diags, d...)
	}
	if sb.Model != nil {
		st, d := decodeModelStage(b, sb)
		return st, append(diags, d...)
	}
	if sb.From == nil {
		return nil, append(diags, errorAt(b.DefRange.Ptr(), "Stage without a first stage",
			`A stage block names its first stage: from = "LEARNER" (a learner of this spec, jackknifed) or model = "NAME" (a trained model, a shipped name or a file).`))
	}
	st := &Stage{From: *sb.From, Column: *sb.From, Folds: DefaultStageFolds, By: StageByDocument, Range: b.DefRange, FromRange: *attrRange(b, "from")}
	if sb.Column != nil {
		st.Column = *sb.Column
	}
	if sb.Folds != nil {
		st.Folds = *sb.Folds
	}
	if sb.By != nil {
		st.By = *sb.By
	}
	if st.Folds < 2 {
		diags = append(diags, errorAt(attrRange(b, "folds"), "Invalid folds",
			fmt.Sprintf("folds = %d: jackknifing needs at least 2 folds (each fold's predictions come from a model trained on the others).", st.Folds)))
	}
	if !slices.Contains(stageBy, st.By) {
		diags = append(diags, errorAt(attrRange(b, "by"), "Invalid by", registry.DidYouMean(st.By, stageBy, "fold unit")))
	}
	if st.Column == "" {
		diags = append(diags, errorAt(attrRange(b, "column"), "Invalid column", "The stage column needs a name."))
	}
	return st, diags
}

// decodeModelStage decodes a stage block with model: it names no learner
// and no jackknifing, and names its column.
func decodeModelStage(b *hcl.Block, sb stageBlock) (*Stage, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	st := &Stage{Source: StageModel, Model: *sb.Model, Range: b.DefRange, ModelRange: *attrRange(b, "model")}
	if sb.From != nil {
		diags = append(diags, errorAt(attrRange(b, "from"), "Stage with both from and model",
			fmt.Sprintf("The stage's column comes from a learner of this spec (from = %q, jackknifed) or from a trained model (model = %q), not both: remove one.", *sb.From, *sb.Model)))
	}
	for _, a := range []struct {
		name string
		set  bool
	}{{"folds", sb.Folds != nil}, {"by", sb.By != nil}} {
		if name := a.name; a.set {
			diags = append(diags, errorAt(attrRange(b, name), "Jackknifing setting with a model stage",
				fmt.Sprintf("%s sets how a first-stage learner is jackknifed; model = %q did not train on this corpus and labels every sentence as it is. Remove %s.", name, *sb.Model, name)))
		}
	}
	if st.Model == "" {
		diags = append(diags, errorAt(attrRange(b, "model"), "Invalid model", "model names a shipped model (trellis models lists them) or a model file."))
	}
	switch {
	case sb.Column == nil:
		diags = append(diags, errorAt(b.DefRange.Ptr(), "Missing stage column",
			fmt.Sprintf(`A model stage names the column its labels fill, the name templates read them by: column = "..." (model = %q).`, *sb.Model)))
	case *sb.Column == "":
		diags = append(diags, errorAt(attrRange(b, "column"), "Invalid column", "The stage column needs a name."))
	default:
		st.Column = *sb.Column
	}
	return st, diags
}

// checkStages checks the learners' stages against each other and the
// spec: from names another learner of the spec, which has no stage itself
// (two stages are supported, so a chain or a cycle is refused); the column
// is not a corpus column; a staged learner is not tuned and continues no
// model.
func (s *Spec) checkStages(tunes hcl.Blocks) hcl.Diagnostics {
	var diags hcl.Diagnostics
	var cols []string
	if train := s.Corpus(s.Evaluation.Train); train != nil {
		cols = train.Columns
	}
	firstStages := map[string]bool{} // first stages already checked
	for _, li := range s.Learners {
		st := li.Stage
		if st == nil {
			continue
		}
		if st.Source == StageJackknifed {
			diags = append(diags, s.checkFrom(li, firstStages, tunes)...)
		}
		if slices.Contains(cols, st.Column) {
			detail := fmt.Sprintf("The stage's column %q is a column of the train corpus; give the predictions another name with column = \"...\".", st.Column)
			if st.Source == StageModel {
				detail = fmt.Sprintf("The stage's column %q is a column of the train corpus; a model stage adds its labels as a new column. To read them instead of the corpus's own, rename the corpus's (columns = [..., \"gold_%s\", ...]); else give the stage another column name.", st.Column, st.Column)
			}
			diags = append(diags, errorAt(st.Range.Ptr(), "Stage column clashes with a corpus column", detail))
		}
		if li.InitModel != nil {
			diags = append(diags, errorAt(li.InitModel.Range.Ptr(), "init_model with a stage",
				"A second-stage learner cannot continue a model yet; remove init_model or the stage block."))
		}
		for _, tb := range tunes {
			if tb.Labels[0] != li.Name {
				continue
			}
			detail := fmt.Sprintf("Learner %q has a stage block; tuning a second stage is not supported yet (tune its first stage, %q, instead).", li.Name, st.From)
			if st.Source == StageModel {
				detail = fmt.Sprintf("Learner %q has a stage block; tuning a second stage is not supported yet (pick its settings on a dev corpus instead).", li.Name)
			}
			diags = append(diags, errorAt(tb.LabelRanges[0].Ptr(), "Tuning a second stage", detail))
		}
	}
	return diags
}

// checkFrom checks a jackknifed stage's from: another learner of the
// spec, itself without a stage, checked as a first stage once
// (firstStages holds those checked).
func (s *Spec) checkFrom(li *LearnerInstance, firstStages map[string]bool, tunes hcl.Blocks) hcl.Diagnostics {
	var diags hcl.Diagnostics
	st := li.Stage
	from := s.Learner(st.From)
	if from != nil && from.Stage == nil && !firstStages[from.Name] {
		firstStages[from.Name] = true
		diags = append(diags, checkFirstStage(from, li, tunes)...)
	}
	switch {
	case st.From == li.Name:
		diags = append(diags, errorAt(st.FromRange.Ptr(), "Stage cycle",
			fmt.Sprintf("Learner %q cannot take its own predictions as input: from must name another learner (the first stage).", li.Name)))
	case from == nil:
		var others []string
		for _, l := range s.Learners {
			if l.Name != li.Name {
				others = append(others, l.Name)
			}
		}
		diags = append(diags, errorAt(st.FromRange.Ptr(), "Unknown learner", registry.DidYouMean(st.From, others, "learner")))
	case from.Stage != nil && from.Stage.From == li.Name:
		diags = append(diags, errorAt(st.FromRange.Ptr(), "Stage cycle",
			fmt.Sprintf("Learner %q takes the predictions of %q, whose stage (at %s) takes those of %q: a cycle.", li.Name, st.From, from.Stage.Range, li.Name)))
	case from.Stage != nil:
		diags = append(diags, errorAt(st.FromRange.Ptr(), "Unsupported stage chain",
			fmt.Sprintf("Learner %q is itself a second stage (its stage is at %s); two stages are supported: from must name a learner without a stage block.", st.From, from.Stage.Range)))
	}
	return diags
}

// checkFirstStage checks a learner that second (the first learner found
// to name it) takes as its first stage: it continues no model — every
// jackknifing fold model would start from weights that may have seen the
// sentences that fold predicts — and a tune block on it is warned about,
// once, since the stage trains it with its block's settings.
func checkFirstStage(first, second *LearnerInstance, tunes hcl.Blocks) hcl.Diagnostics {
	var diags hcl.Diagnostics
	if first.InitModel != nil {
		diags = append(diags, errorAt(first.InitModel.Range.Ptr(), "init_model on a first stage",
			fmt.Sprintf("Learner %q is the first stage of %q: each jackknifing fold model would start from this model, which may have been trained on the very sentences the fold predicts. Remove init_model from %q.", first.Name, second.Name, first.Name)))
	}
	for _, tb := range tunes {
		if tb.Labels[0] == first.Name {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Tuned first stage", Subject: tb.LabelRanges[0].Ptr(),
				Detail: fmt.Sprintf("Learner %q is tuned here, but as a first stage (of %q) it is trained, on the jackknifing folds and on all of train, with the settings its block declares.", first.Name, second.Name)})
		}
	}
	return diags
}

// stageReads returns the stage columns among cols[base:] that a compiled
// extractor declares it reads (feature.ColumnReader); nil for one that
// reads none or does not say.
func stageReads(x feature.Extractor, cols []string, base int) []string {
	cr, ok := x.(feature.ColumnReader)
	if !ok {
		return nil
	}
	var out []string
	for _, c := range cr.ReadColumns() {
		if c >= base && c < len(cols) && !slices.Contains(out, cols[c]) {
			out = append(out, cols[c])
		}
	}
	return out
}

// TemplatesFor returns the templates a learner trains on: those that read
// no stage column, and, for a second stage, those that read only its own.
func (s *Spec) TemplatesFor(li *LearnerInstance) []*TemplateInstance {
	var out []*TemplateInstance
	for _, t := range s.Features.Templates {
		ok := true
		for _, c := range t.StageColumns {
			if li == nil || li.Stage == nil || c != li.Stage.Column {
				ok = false
			}
		}
		if ok {
			out = append(out, t)
		}
	}
	return out
}
