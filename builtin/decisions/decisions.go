// Package decisions is the builtin "decisions" template: features of the
// decision history, the labels a transition-based labeler (learner type
// "transition") has already assigned left to right. Its attributes are
// not extracted from the input: the learner and the tagger compute them
// during the search (framework/transition), so the extractor emits
// nothing. The block:
//
//	decisions "hist" {
//	  previous = 2      # the previous 2 labels as an n-gram with the label (1–3)
//	  span     = true   # the open span's type and length (1, 2, 3, 4+)
//	  document = true   # types given to earlier occurrences of the word
//	  column   = "word" # the column document reads
//	}
//
// The attributes, named "NAME/…" and conjoined with every label, are laid
// out from the label set once the labels are known (transition.Layout)
// and appended to the model's attribute list, so `trellis inspect` shows
// their weights by name.
package decisions

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
)

// Config is the template's block.
type Config struct {
	// Previous is the number of previous labels read as one n-gram (1–3;
	// default 1: only the transition weights, which every model has).
	Previous int `hcl:"previous,optional" json:"previous,omitempty"`
	// Span adds the open span's type and length bucket.
	Span bool `hcl:"span,optional" json:"span,omitempty"`
	// Document adds the types given to the word's earlier occurrences in
	// the document (committed in earlier sentences, or along the
	// hypothesis in the same sentence).
	Document bool `hcl:"document,optional" json:"document,omitempty"`
	// Column is the column whose values document compares ("word" when
	// unset); only document reads it.
	Column string `hcl:"column,optional" json:"column,omitempty"`
}

// MaxPrevious bounds previous: (L+1)^previous attributes.
const MaxPrevious = 3

// Template is the decisions template.
type Template struct{ cfg Config }

var (
	_ feature.Template         = (*Template)(nil)
	_ feature.DecisionTemplate = (*Template)(nil)
)

// New returns a zero decisions template.
func New() feature.Template { return &Template{} }

// Config implements feature.Template.
func (t *Template) Config() any { return &t.cfg }

// Validate implements feature.Template. Details begin with the setting's
// name: the spec places the diagnostic at it.
func (t *Template) Validate() hcl.Diagnostics {
	var diags hcl.Diagnostics
	if p := t.cfg.Previous; p < 0 || p > MaxPrevious {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid previous",
			Detail: fmt.Sprintf("previous must be between 1 and %d (the previous labels read as one n-gram), got %d", MaxPrevious, p)})
	}
	if t.cfg.Column != "" && !t.cfg.Document {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Column without document",
			Detail: fmt.Sprintf("column = %q is read only by document = true; add that or remove column.", t.cfg.Column)})
	}
	return diags
}

// Decisions implements feature.DecisionTemplate.
func (t *Template) Decisions() feature.Decisions { return settings(t.cfg) }

// settings are cfg with its defaults filled in.
func settings(cfg Config) feature.Decisions {
	d := feature.Decisions{Previous: max(cfg.Previous, 1), Span: cfg.Span, Document: cfg.Document}
	if cfg.Document {
		d.Column = cfg.Column
		if d.Column == "" {
			d.Column = "word"
		}
	}
	return d
}

// Compile implements feature.Template: an extractor that emits nothing
// and declares the column document reads.
func (t *Template) Compile(_ string, cols feature.Columns) (feature.Extractor, error) {
	x := &extractor{d: settings(t.cfg), column: -1}
	if !x.d.Document {
		return x, nil
	}
	col, err := cols.Index(x.d.Column)
	if err != nil {
		return nil, err
	}
	x.column = col
	// A document-reading extractor makes the tagger batch whole
	// documents, which the document history needs.
	return &docExtractor{x}, nil
}

// extractor is the compiled template. column is the column document reads
// (-1 without document).
type extractor struct {
	d      feature.Decisions
	column int
}

var (
	_ feature.ColumnReader      = (*extractor)(nil)
	_ feature.DecisionTemplate  = (*extractor)(nil)
	_ feature.DecisionColumn    = (*extractor)(nil)
	_ feature.DocumentExtractor = (*docExtractor)(nil)
)

// Extract implements feature.Extractor: the history has no attributes in
// the input.
func (x *extractor) Extract(*corpus.Sentence, feature.Sink) error { return nil }

// ReadColumns implements feature.ColumnReader.
func (x *extractor) ReadColumns() []int {
	if x.column < 0 {
		return nil
	}
	return []int{x.column}
}

// Decisions implements feature.DecisionTemplate.
func (x *extractor) Decisions() feature.Decisions { return x.d }

// DecisionColumn implements feature.DecisionColumn.
func (x *extractor) DecisionColumn() int { return x.column }

// docExtractor is the extractor of a template with document = true: a
// feature.DocumentExtractor, so that batches never cut a document.
type docExtractor struct{ *extractor }

// Documents implements feature.DocumentExtractor: nothing to index.
func (x *docExtractor) Documents([]*corpus.Sentence) error { return nil }
