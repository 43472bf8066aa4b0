// encoder.go decodes encoder blocks (a neural encoder, framework/neural)
// and checks the learners that name one.

package spec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/neural"
)

// Encoder is one encoder block: a neural encoder whose label scores a
// learner that names it (encoder = "name") adds to its templates'.
type Encoder struct {
	Name   string        `json:"name"`
	Config neural.Config `json:"config"`
	Range  hcl.Range     `json:"-"`
	block  *hcl.Block    // for diagnostics placed at its attributes
}

// Encoder returns the named encoder block, nil if there is none.
func (s *Spec) Encoder(name string) *Encoder {
	for _, e := range s.Encoders {
		if e.Name == name {
			return e
		}
	}
	return nil
}

// VectorsPath is the encoder's vectors file, resolved against the spec's
// folder ("" without one).
func (s *Spec) VectorsPath(e *Encoder) string {
	if e.Config.Vectors == "" {
		return ""
	}
	return s.path(e.Config.Vectors)
}

// decodeEncoders decodes the encoder blocks: their settings (defaults
// filled, each error at its attribute) and the columns they read, which
// the training corpus must have.
func (s *Spec) decodeEncoders(blocks hcl.Blocks, ctx *hcl.EvalContext, trainName string) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, b := range blocks {
		name := b.Labels[0]
		if s.Encoder(name) != nil {
			diags = append(diags, errorAt(b.LabelRanges[0].Ptr(), "Duplicate encoder", fmt.Sprintf("Encoder %q is declared twice.", name)))
			continue
		}
		e := &Encoder{Name: name, Range: b.DefRange, block: b}
		if d := gohcl.DecodeBody(b.Body, ctx, &e.Config); d.HasErrors() {
			diags = append(diags, d...)
			continue
		}
		if d := e.Config.Resolve(func(n string) *hcl.Range { return attrRange(b, n) }); d.HasErrors() {
			diags = append(diags, d...)
			continue
		}
		diags = append(diags, s.checkEncoderColumns(e, trainName)...)
		s.Encoders = append(s.Encoders, e)
	}
	return diags
}

// checkEncoderColumns places an error at column or columns when the
// training corpus lacks a column the encoder reads, and fills in the
// default word column.
func (s *Spec) checkEncoderColumns(e *Encoder, trainName string) hcl.Diagnostics {
	train := s.Corpus(trainName)
	if train == nil {
		return nil // the evaluation block's diagnostic says why
	}
	var diags hcl.Diagnostics
	label := slices.Index(train.Columns, s.Labels.Column)
	if e.Config.Column == "" {
		if w := corpus.WordColumn(train.Format.Name, train.Columns, label); w >= 0 {
			e.Config.Column = train.Columns[w]
		}
	}
	for _, c := range append([]string{e.Config.Column}, neural.ColumnNames(&e.Config)...) {
		attr := "columns"
		if c == e.Config.Column {
			attr = "column"
		}
		switch {
		case c == "" || !slices.Contains(train.Columns, c):
			diags = append(diags, errorAt(attrRange(e.block, attr), "Unknown encoder column",
				fmt.Sprintf("Encoder %q reads column %q, which corpus %q lacks (its columns: %s).", e.Name, c, train.Name, strings.Join(train.Columns, ", "))))
		case c == s.Labels.Column:
			diags = append(diags, errorAt(attrRange(e.block, attr), "Encoder reads the labels",
				fmt.Sprintf("Encoder %q reads column %q, the label column: it would see the answers.", e.Name, c)))
		}
	}
	return diags
}

// decodeLearnerEncoder reads a learner block's encoder setting and checks
// that the learner can train the encoder it names, with only the
// settings it reads when it does.
func (s *Spec) decodeLearnerEncoder(li *LearnerInstance, head *hcl.BodyContent, rest hcl.Body, ctx *hcl.EvalContext) hcl.Diagnostics {
	a, ok := head.Attributes["encoder"]
	if !ok {
		return nil
	}
	var name string
	if d := gohcl.DecodeExpression(a.Expr, ctx, &name); d.HasErrors() {
		return d
	}
	e := s.Encoder(name)
	if e == nil {
		names := make([]string, len(s.Encoders))
		for i, e := range s.Encoders {
			names[i] = fmt.Sprintf("%q", e.Name)
		}
		detail := fmt.Sprintf("No encoder block is named %q.", name)
		if len(names) > 0 {
			detail += " The spec declares " + strings.Join(names, ", ") + "."
		}
		return hcl.Diagnostics{errorAt(a.Expr.Range().Ptr(), "Unknown encoder", detail)}
	}
	el, ok := li.Learner.(learn.EncoderLearner)
	if !ok || !el.TrainsEncoder() {
		return hcl.Diagnostics{errorAt(a.NameRange.Ptr(), "Learner cannot train an encoder",
			fmt.Sprintf("Learner %q (type %s) cannot train a neural encoder: %s.", li.Name, li.Type, s.encoderModels()))}
	}
	if e.Config.Transition == neural.Conditioned && !learn.TrainsPairs(li.Learner) {
		return hcl.Diagnostics{errorAt(a.NameRange.Ptr(), "Conditioned transitions without transitions",
			fmt.Sprintf("Encoder %q has transition = \"conditioned\" (label transitions read from its states), which learner %q (type %s) cannot train: %s.", e.Name, li.Name, li.Type, s.conditionedTypes()))}
	}
	if li.Stage != nil {
		return hcl.Diagnostics{errorAt(a.NameRange.Ptr(), "Encoder on a second stage",
			fmt.Sprintf("Learner %q is a second stage; an encoder trains on a first-stage learner only (for now).", li.Name))}
	}
	for _, t := range s.Features.Templates {
		if t.OrderRange.Filename != "" {
			return hcl.Diagnostics{errorAt(a.NameRange.Ptr(), "Encoder with a second-order model",
				fmt.Sprintf("Learner %q trains an encoder, which takes a first-order model; template %q (at %s) makes the model second order.", li.Name, t.Name, t.Range))}
		}
	}
	li.Encoder = e
	return encoderSettings(li, el, rest)
}

// encoderModels says what each learner type that trains an encoder
// (learn.CanEncoder) makes with one: "crf (without hidden_states) gives a
// BiLSTM-CRF and maxent a BiLSTM-softmax".
func (s *Spec) encoderModels() string {
	var parts []string
	for i, a := range s.LearnerTypes.Able(learn.CanEncoder) {
		l, _ := s.LearnerTypes.New(a.Type)
		verb := " "
		if i == 0 {
			verb = " gives "
		}
		parts = append(parts, a.String()+verb+l.(learn.EncoderLearner).EncoderModel())
	}
	return andList(parts)
}

// conditionedTypes names the learner types that train both an encoder and
// pair features, which transitions conditioned on the encoder need: "a crf
// can".
func (s *Spec) conditionedTypes() string {
	var types []string
	for _, a := range s.LearnerTypes.Able(learn.CanEncoder) {
		l, _ := s.LearnerTypes.New(a.Type)
		if learn.TrainsPairs(l) {
			types = append(types, a.Type)
		}
	}
	if len(types) == 1 {
		return "a " + types[0] + " can"
	}
	return andList(types) + " can"
}

// encoderSettings refuses the learner's settings that it does not read
// when it trains an encoder.
func encoderSettings(li *LearnerInstance, el learn.EncoderLearner, rest hcl.Body) hcl.Diagnostics {
	attrs, _ := rest.JustAttributes()
	var names []string
	for n := range attrs {
		if !slices.Contains(el.EncoderSettings(), n) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	var diags hcl.Diagnostics
	for _, n := range names {
		diags = append(diags, errorAt(attrs[n].NameRange.Ptr(), "Unsupported setting with an encoder",
			fmt.Sprintf("Learner %q trains encoder %q, which its %s setting does not apply to: a %s with an encoder takes %s (and decode, beam); the encoder block sets the training (optimizer, learning_rate, epochs, batch_size, clip, patience).",
				li.Name, li.Encoder.Name, n, li.Type, andList(el.EncoderSettings()))))
	}
	return diags
}
