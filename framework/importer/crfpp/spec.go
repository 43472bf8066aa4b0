package crfpp

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"

	"github.com/trellis-nlp/trellis/builtin/emission"
)

// Options are crf_learn's settings and what trellis needs beyond the
// template: the corpus columns and files.
type Options struct {
	// Columns names every column of the data, the last being the answer
	// (label) column, as in CRF++'s training files.
	Columns []string
	// Train, Test and Dev are the data files; an empty Train leaves the
	// spec's train variable without a default (--var train=FILE).
	Train, Test, Dev string
	// Scheme is the label scheme ("iob2", …); "" for none (token accuracy).
	Scheme string
	// C is crf_learn's -c (the cost, > 0; crf_learn's default is 1),
	// Algorithm its -a ("CRF", "CRF-L2" or "CRF-L1"; "" is "CRF"), Freq its
	// -f (attributes seen fewer times are dropped; 0 or 1 keeps all), Eta
	// its -e (> 0; crf_learn's default is 0.0001) and MaxIter its -m (0: no
	// limit).
	C         float64
	Algorithm string
	Freq      int
	Eta       float64
	MaxIter   int
	// Name is the experiment's name ("crfpp" when empty).
	Name string
	// Command, when set, is recorded in the spec's first comment.
	Command string
}

// Warning is something the spec cannot reproduce exactly but trains
// anyway, at a template's line.
type Warning = Error

// plan is what WriteSpec works out before printing anything, so that a
// mistake leaves the output empty.
type plan struct {
	opts        Options
	template    string
	c2, c1      float64
	emissions   []emissionBlock
	transitions *Template
	warnings    []*Warning
}

type emissionBlock struct {
	t      *Template
	name   string
	format string
	pad    bool
	// bigram: a B line with macros, whose attributes score label bigrams
	// (labels = "bigram").
	bigram bool
}

// WriteSpec writes the trellis spec equivalent to f with crf_learn's
// settings o. It returns the warnings (see the package doc) or, when the
// template or the options cannot be imported, an error (Errors for the
// template, *OptionsError for the options) and writes nothing; any other
// error is w's.
func WriteSpec(w io.Writer, f *File, o Options) ([]*Warning, error) {
	s, err := build(f, o)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	s.write(&b)
	if _, err := io.WriteString(w, b.String()); err != nil {
		return nil, err
	}
	return s.warnings, nil
}

func build(f *File, o Options) (*plan, error) {
	if err := checkOptions(&o); err != nil {
		return nil, err
	}
	s := &plan{opts: o, template: filepath.Base(f.Name)}
	switch o.Algorithm {
	case "CRF", "CRF-L2":
		s.c2 = 1 / (2 * o.C)
	case "CRF-L1":
		s.c1 = 1 / o.C
	}
	var errs Errors
	firstByID := map[string]*Template{}
	// "B" is the transition block's name (writeFeatures): a template
	// whose ID is B ("B:%x[0,0]") takes another.
	names := map[string]bool{"B": true}
	for _, t := range f.Templates {
		at := func(col int, format string, args ...any) *Error {
			return &Error{File: f.Name, Line: t.Line, Col: col, Msg: fmt.Sprintf(format, args...)}
		}
		if t.Kind == Bigram && len(t.Macros) == 0 {
			if s.transitions != nil {
				s.warnings = append(s.warnings, at(0, "a second B template: CRF++ would add the transition weights again (another copy, or the same weights counted twice when the lines are equal), which changes only how strongly they are regularized; the spec has one set of transitions (the B on line %d)", s.transitions.Line))
				continue
			}
			s.transitions = t
			continue
		}
		// A U line, or a B line with macros: an emission block, whose
		// attributes score label bigrams for a B line (input-conditioned
		// transitions).
		b := emissionBlock{t: t, bigram: t.Kind == Bigram}
		var lineErrs Errors
		b.format, b.pad, lineErrs = formatOf(t, o.Columns, at)
		errs = append(errs, lineErrs...)
		id := t.ID()
		if prev, dup := firstByID[id]; dup && id != "" {
			s.warnings = append(s.warnings, at(0, "the ID %q is also on line %d: CRF++ merges the two templates' features when their expanded strings coincide; the spec keeps them apart", id, prev.Line))
		} else {
			firstByID[id] = t
		}
		b.name = id
		if id == "" || names[id] {
			b.name = fmt.Sprintf("%c_line%d", t.Kind, t.Line)
		}
		for names[b.name] {
			b.name += "_"
		}
		names[b.name] = true
		s.emissions = append(s.emissions, b)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	if len(s.emissions) == 0 {
		return nil, Errors{{File: f.Name, Msg: "no U template and no B template with macros: the model would have no features of the input"}}
	}
	return s, nil
}

// OptionsError is a mistake in crf_learn's settings or the column names:
// the user's to fix on the command line.
type OptionsError struct{ Msg string }

func (e *OptionsError) Error() string { return e.Msg }

func optionsErrorf(format string, args ...any) error {
	return &OptionsError{fmt.Sprintf(format, args...)}
}

func checkOptions(o *Options) error {
	if len(o.Columns) < 2 {
		return optionsErrorf("--columns names every column of the data, the label (answer) column last: at least two, got %d", len(o.Columns))
	}
	seen := map[string]bool{}
	for _, c := range o.Columns {
		if c == "" || seen[c] {
			return optionsErrorf("--columns: column names must be distinct and non-empty, got %q", strings.Join(o.Columns, ","))
		}
		if strings.ContainsAny(c, "{}[]") {
			// A spec's format cell is "{column[row]}": such a name
			// could not be read back.
			return optionsErrorf("--columns: %q: a column name cannot contain { } [ or ]", c)
		}
		seen[c] = true
	}
	if o.Algorithm == "" {
		o.Algorithm = "CRF"
	}
	switch o.Algorithm {
	case "CRF", "CRF-L2", "CRF-L1":
	case "MIRA":
		return optionsErrorf(`-a MIRA: trellis has no MIRA learner (the averaged perceptron, learner type "perceptron", is the nearest); import with -a CRF or CRF-L1`)
	default:
		return optionsErrorf(`-a %q: want CRF (L2, the default), CRF-L2 or CRF-L1`, o.Algorithm)
	}
	switch {
	case !(o.C > 0) || math.IsInf(o.C, 0):
		return optionsErrorf("-c %v: the cost must be a positive number", o.C)
	case !(o.Eta > 0) || math.IsInf(o.Eta, 0):
		return optionsErrorf("-e %v: eta must be a positive number", o.Eta)
	case o.Freq < 0 || o.MaxIter < 0:
		return optionsErrorf("-f and -m must be >= 0")
	}
	if o.Name == "" {
		o.Name = "crfpp"
	}
	return nil
}

// formatOf is the emission format of a U template: the text after its ID
// (all of it when it has none), each macro as a "{column[row]}" cell.
func formatOf(t *Template, cols []string, at func(int, string, ...any) *Error) (string, bool, Errors) {
	var errs Errors
	var b strings.Builder
	pad := false
	lit0 := t.Literals[0]
	if id := t.ID(); id != "" {
		lit0 = lit0[len(id)+1:]
	}
	b.WriteString(emission.EscapeLiteral(lit0))
	inputs := len(cols) - 1
	for k, m := range t.Macros {
		if m.Column >= inputs {
			errs = append(errs, at(m.Col, "%%x[%d,%d]: column %d is not an input column: the data has %d (%s), numbered from 0, and then the answer column %q",
				m.Row, m.Column, m.Column, inputs, strings.Join(cols[:inputs], ", "), cols[inputs]))
			continue
		}
		pad = pad || m.Row != 0
		fmt.Fprintf(&b, "{%s[%d]}", cols[m.Column], m.Row)
		b.WriteString(emission.EscapeLiteral(t.Literals[k+1]))
	}
	return b.String(), pad, errs
}

// quote is s as an HCL string literal ("${" and "%{" escaped).
func quote(s string) string {
	return string(hclwrite.TokensForValue(cty.StringVal(s)).Bytes())
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func (s *plan) write(b *strings.Builder) {
	o := s.opts
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	s.writeHeader(b)
	p("\nexperiment %s {\n  seed        = 1\n  description = %s\n}\n", quote(o.Name),
		quote(fmt.Sprintf("Imported from the CRF++ template %q (crf_learn -a %s -c %s).", s.template, o.Algorithm, num(o.C))))
	s.writeCorpora(b)
	s.writeFeatures(b)
	s.writeLearner(b)
	p("\nevaluation {\n  train = \"train\"\n  test  = \"test\"\n")
	if o.Dev != "" {
		p("  dev   = \"dev\"\n")
	}
	p("}\n")
}

func (s *plan) writeHeader(b *strings.Builder) {
	o := s.opts
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("# The trellis spec of the CRF++ template %q, made by trellis import crfpp", s.template)
	if o.Command != "" {
		// A line break in an argument would end the comment.
		p(":\n#   %s\n", strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(o.Command))
	} else {
		p(".\n")
	}
	p("# It trains the model of crf_learn -a %s -c %s", o.Algorithm, num(o.C))
	if o.Freq > 1 {
		p(" -f %d", o.Freq)
	}
	p(" -e %s", num(o.Eta))
	if o.MaxIter > 0 {
		p(" -m %d", o.MaxIter)
	}
	p(":\n")
	p("#   - each U line is an emission block whose format has a cell {column[row]} for each\n")
	p("#     %%x[row,col]; outside the sentence a cell reads \"_B-1\", \"_B-2\", … before it and\n")
	p("#     \"_B+1\", … after it (pad = true), CRF++'s strings;\n")
	if s.hasBigramLines() {
		p("#   - each B line with macros is an emission block with labels = \"bigram\": its attributes\n")
		p("#     score the label bigram (y[i-1], y[i]) into their token; only the (attribute, bigram)\n")
		p("#     pairs seen in training get weights, where CRF++ gives every attribute all of them;\n")
	}
	if s.transitions != nil {
		p("#   - B is the transition block (trellis also weighs the first and the last label, which\n")
		p("#     CRF++ does not);\n")
	} else {
		p("#   - there is no B line, so no transition block: each token is labelled on its own;\n")
	}
	if o.Algorithm == "CRF-L1" {
		p("#   - CRF++ minimises C·Σ −log p(y|x) + ‖w‖₁ (-a CRF-L1), the same minimiser as\n")
		p("#     Σ −log p(y|x) + ‖w‖₁/C; trellis's crf minimises Σ −log p(y|x) + c1·‖w‖₁ + c2·‖w‖²,\n")
		p("#     so c1 = 1/C = %s and c2 = 0;\n", num(s.c1))
	} else {
		p("#   - CRF++ minimises C·Σ −log p(y|x) + ½‖w‖² (-a CRF), the same minimiser as\n")
		p("#     Σ −log p(y|x) + ‖w‖²/(2C); trellis's crf minimises Σ −log p(y|x) + c2·‖w‖²,\n")
		p("#     so c2 = 1/(2C) = %s;\n", num(s.c2))
	}
	p("#   - CRF++ gives every attribute a weight for every label: features = \"all\";\n")
	p("#   - CRF++ stops after 3 evaluations in a row that change the objective by less than\n")
	p("#     -e (relatively); here period = 3, delta = -e: the improvement over the last 3\n")
	p("#     iterations below -e, which never stops earlier;\n")
	p("#   - decoding is unconstrained, as in CRF++.\n")
}

// hasBigramLines reports whether a B line with macros became an emission
// block.
func (s *plan) hasBigramLines() bool {
	for _, e := range s.emissions {
		if e.bigram {
			return true
		}
	}
	return false
}

func (s *plan) writeCorpora(b *strings.Builder) {
	o := s.opts
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	files := []struct{ name, path, what string }{
		{"train", o.Train, "Training data, crf_learn's train_file"},
		{"test", o.Test, "Test data, crf_test's input"},
		{"dev", o.Dev, "Development data, scored during training for the learning curve"},
	}
	// Train and test are always there (a spec needs both); without a
	// file, their variables have no default and take --var NAME=FILE.
	cols := make([]string, len(o.Columns))
	for i, c := range o.Columns {
		cols[i] = quote(c)
	}
	for _, f := range files {
		if f.path == "" && f.name == "dev" {
			continue
		}
		p("\nvariable %q {\n", f.name)
		if f.path != "" {
			p("  default     = %s\n", quote(f.path))
		}
		p("  description = %s\n}\n", quote(f.what+" (--var "+f.name+"=FILE)."))
	}
	for _, f := range files {
		if f.path == "" && f.name == "dev" {
			continue
		}
		p("\ncorpus %q {\n  path    = var.%s\n  format  = \"conll\"\n  columns = [%s]\n}\n", f.name, f.name, strings.Join(cols, ", "))
	}
	label := quote(o.Columns[len(o.Columns)-1])
	if o.Scheme == "" {
		p("\nlabels {\n  column = %s\n}\n", label)
		return
	}
	p("\nlabels {\n  column      = %s\n  scheme      = %s\n  constrained = false # CRF++ decodes without constraints\n}\n", label, quote(o.Scheme))
}
func (s *plan) writeFeatures(b *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("\nfeatures {\n")
	if s.opts.Freq > 1 {
		p("  min_count = %d # crf_learn -f\n\n", s.opts.Freq)
	}
	for k, e := range s.emissions {
		if k > 0 {
			p("\n")
		}
		if len(e.t.Macros) == 0 {
			// A line without macros is one constant feature: a bias.
			p("  # %s\n  bias %s {}\n", e.t.Text, quote(e.name))
			continue
		}
		p("  # %s\n  emission %s {\n    format = %s\n", e.t.Text, quote(e.name), quote(e.format))
		if e.pad {
			p("    pad    = true\n")
		}
		if e.bigram {
			p("    labels = \"bigram\"\n")
		}
		p("  }\n")
	}
	if t := s.transitions; t != nil {
		p("\n  # %s\n  transition \"B\" {}\n", t.Text)
	}
	p("}\n")
}

func (s *plan) writeLearner(b *strings.Builder) {
	o := s.opts
	attrs := [][2]string{{"type", `"crf"`}}
	if o.Algorithm == "CRF-L1" {
		attrs = append(attrs, [2]string{"c1", num(s.c1) + " # 1/C"}, [2]string{"c2", "0"})
	} else {
		attrs = append(attrs, [2]string{"c2", num(s.c2) + " # 1/(2C)"})
	}
	attrs = append(attrs, [2]string{"features", `"all"`}, [2]string{"period", "3"}, [2]string{"delta", num(o.Eta) + " # -e"})
	if o.MaxIter > 0 {
		attrs = append(attrs, [2]string{"max_iterations", strconv.Itoa(o.MaxIter) + " # -m"})
	}
	width := 0
	for _, a := range attrs {
		width = max(width, len(a[0]))
	}
	b.WriteString("\nlearner \"crf\" {\n")
	for _, a := range attrs {
		fmt.Fprintf(b, "  %-*s = %s\n", width, a[0], a[1])
	}
	b.WriteString("}\n")
}
