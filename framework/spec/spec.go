package spec

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/dual"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/registry"
	"github.com/trellis-nlp/trellis/framework/scheme"
)

// Spec is a decoded, validated experiment.
type Spec struct {
	File   string `json:"file"`
	Dir    string `json:"-"`
	Source []byte `json:"-"`
	// Hash is the SHA-256 of the spec source.
	Hash string `json:"hash"`

	Name        string            `json:"name"`
	Description string            `json:"description,omitempty"`
	Seed        uint64            `json:"seed"`
	Variables   map[string]string `json:"variables"`

	Corpora  []*Corpus          `json:"corpora"`
	Labels   Labels             `json:"labels"`
	Features Features           `json:"features"`
	Learners []*LearnerInstance `json:"learners"`
	// Encoders are the encoder blocks: neural encoders that learners name.
	Encoders   []*Encoder `json:"encoders,omitempty"`
	Evaluation Evaluation `json:"evaluation"`
	// Tunes are the tune blocks: learner settings picked on the dev
	// corpus or by cross-validation on the train corpus.
	Tunes []*Tune `json:"tunes,omitempty"`

	// LearnerTypes is the registry the learner blocks were decoded with:
	// it makes the learners of tuning candidates, and the spec and the run
	// ask it which types have a capability a learner lacks (nil for a Spec
	// built in code without one: messages then list no types).
	LearnerTypes *learn.Registry `json:"-"`

	// declared are all corpus names in the file, including corpora whose
	// blocks had errors, so references to them are not reported again.
	declared []string
}

// Corpus is one corpus block.
type Corpus struct {
	Name   string        `json:"name"`
	Path   string        `json:"path"`
	Format corpus.Config `json:"format"`
	Split  *Split        `json:"split,omitempty"`
	// Columns are the format's column names (fixed for conllu, slash, chars).
	Columns []string  `json:"columns"`
	Range   hcl.Range `json:"-"`
}

// Split selects part of a corpus by sentence index: sentence k belongs to
// fold k mod Folds; Take "fold" keeps fold Fold, "rest" keeps all others.
// It is how one file yields a train and a test part deterministically.
type Split struct {
	Folds int    `json:"folds" hcl:"folds"`
	Fold  int    `json:"fold" hcl:"fold"`
	Take  string `json:"take" hcl:"take"`
	// Seeded assigns sentences to folds by a seeded shuffle instead of by
	// index (cross-validation): each run of Folds consecutive sentences
	// is dealt to the folds in an order drawn from Seed and the run's
	// index, so folds stay balanced and need no corpus size up front.
	Seeded bool   `json:"seeded,omitempty"`
	Seed   uint64 `json:"seed,omitempty"`
}

// Keep reports whether sentence k (0-based) is in the selected part.
func (s *Split) Keep(k int) bool {
	if s == nil {
		return true
	}
	return (s.foldOf(k) == s.Fold) == (s.Take == "fold")
}

func (s *Split) foldOf(k int) int {
	if !s.Seeded {
		return k % s.Folds
	}
	rng := rand.New(rand.NewPCG(s.Seed, uint64(k/s.Folds)))
	return rng.Perm(s.Folds)[k%s.Folds]
}

// Labels is the labels block.
type Labels struct {
	Column string        `json:"column"`
	Scheme scheme.Scheme `json:"scheme"`
	// Encode, when not None, is the span scheme the learners train and
	// decode in (say BIOES for an IOB1 corpus): gold train and dev labels
	// are re-encoded after the scheme check, and predictions go back to
	// Scheme before they are written or scored.
	Encode scheme.Scheme `json:"encode,omitempty"`
	// Constrained decoding forbids ill-formed label bigrams of the scheme
	// the learners decode in (Training).
	Constrained bool `json:"constrained"`
	// SchemeRange is where the scheme is declared (the labels block when
	// it is not), for diagnostics about labels that contradict it.
	SchemeRange hcl.Range `json:"-"`
}

// Training is the scheme the learners train and decode in: Encode if the
// spec asks for an encoding, else the corpus's Scheme.
func (l Labels) Training() scheme.Scheme {
	if l.Encode != scheme.None {
		return l.Encode
	}
	return l.Scheme
}

// encodings are the values encode accepts: the span schemes, with BILOU
// (U for S, L for E) read as BIOES, whose labels it writes.
var encodings = map[string]scheme.Scheme{
	"iob1": scheme.IOB1, "iob2": scheme.IOB2, "bio": scheme.IOB2,
	"bioes": scheme.BIOES, "iobes": scheme.BIOES, "bilou": scheme.BIOES,
}

// Features is the features block.
type Features struct {
	MinCount int `json:"min_count"`
	// MinCountRange is where min_count is set (empty when it is not).
	MinCountRange hcl.Range           `json:"-"`
	Templates     []*TemplateInstance `json:"templates"`
	// Dataset is where the encoded training set is kept: DatasetMemory
	// (unset), DatasetDisk, or DatasetAuto (on disk past MemoryBudget).
	// It changes no result, only where the arrays live.
	Dataset string `json:"dataset,omitempty"`
	// DatasetRange is where dataset is set (empty when it is not).
	DatasetRange hcl.Range `json:"-"`
	// MemoryBudget is the memory the encoded training set may take, in
	// bytes: DatasetAuto moves it to disk past that (0: a quarter of the
	// machine's memory), and DatasetDisk keeps that much of it mapped
	// (0: 512 MiB).
	MemoryBudget int64 `json:"memory_budget,omitempty"`
}

// The dataset settings.
const (
	DatasetMemory = "memory"
	DatasetDisk   = "disk"
	DatasetAuto   = "auto"
)

// TemplateInstance is one template block.
type TemplateInstance struct {
	Type     string           `json:"type"`
	Name     string           `json:"name"`
	Template feature.Template `json:"config"`
	// Labels is the block's labels setting, which every template block
	// takes beside its own: "" (state features, labels = "unigram") or
	// feature.LabelsBigram (the attributes score label bigrams).
	Labels string    `json:"labels,omitempty"`
	Range  hcl.Range `json:"-"`
	// LabelsRange is where labels is set (the block header when unset).
	LabelsRange hcl.Range `json:"-"`
	// StageColumns are the stage columns (Stage.Column) the template
	// reads: only second stages with that column train on it.
	StageColumns []string `json:"-"`
	// OrderRange is where a transition template sets order = 2 (a
	// second-order model); empty otherwise.
	OrderRange hcl.Range `json:"-"`
}

// MarshalJSON writes the template block as the manifest records it: type,
// name, the template's settings (Config) and labels. The Template value
// itself keeps its settings in unexported fields and would marshal as {}.
func (t *TemplateInstance) MarshalJSON() ([]byte, error) {
	cfg := t.Template.Config()
	if mc, ok := t.Template.(ManifestConfiger); ok {
		cfg = mc.ManifestConfig()
	}
	return json.Marshal(struct {
		Type   string `json:"type"`
		Name   string `json:"name"`
		Config any    `json:"config"`
		Labels string `json:"labels,omitempty"`
	}{t.Type, t.Name, cfg, t.Labels})
}

// ManifestConfiger is implemented by templates whose settings carry data
// (a lexicon's word list, which the model file must keep) that the
// manifest records by digest and size instead of in full.
type ManifestConfiger interface {
	ManifestConfig() any
}

// Spec returns how a model file records the template.
func (t *TemplateInstance) Spec() (feature.TemplateSpec, error) {
	cfg, err := json.Marshal(t.Template.Config())
	return feature.TemplateSpec{Type: t.Type, Name: t.Name, Config: cfg, Labels: t.Labels}, err
}

// BlockDecoder is implemented by templates that decode their block
// themselves rather than through gohcl struct tags: plugin templates, whose
// config schema is known only once the plugin runs. dir is the spec's
// folder, against which relative paths are resolved.
type BlockDecoder interface {
	DecodeHCL(block *hcl.Block, ctx *hcl.EvalContext, dir string) hcl.Diagnostics
}

// DecodeTemplate decodes a template block (without the labels setting,
// which every block takes) into t, as a spec does: by t itself when it is
// a BlockDecoder, else by its Config's hcl tags; then checks it
// (Validate, each diagnostic placed at the setting it names) and, for a
// feature.FileTemplate, reads its file from dir (Prepare), an error placed
// at the setting it concerns.
func DecodeTemplate(t feature.Template, b *hcl.Block, ctx *hcl.EvalContext, dir string) hcl.Diagnostics {
	var diags hcl.Diagnostics
	if bd, ok := t.(BlockDecoder); ok {
		diags = bd.DecodeHCL(b, ctx, dir)
	} else {
		diags = gohcl.DecodeBody(b.Body, ctx, t.Config())
	}
	if diags.HasErrors() {
		return diags
	}
	for _, vd := range t.Validate() {
		if vd.Subject == nil {
			vd.Subject = subjectFor(b, vd)
		}
		diags = append(diags, vd)
	}
	if ft, ok := t.(feature.FileTemplate); ok && !diags.HasErrors() {
		if err := ft.Prepare(dir); err != nil {
			diags = append(diags, fileError(b, err, dir))
		}
	}
	return diags
}

// fileError places a FileTemplate's Prepare error at the setting it
// concerns (path unless a feature.FileError says otherwise).
func fileError(b *hcl.Block, err error, dir string) *hcl.Diagnostic {
	attr, summary, detail := "path", "Cannot read the template's file", err.Error()
	var fe *feature.FileError
	if errors.As(err, &fe) {
		attr, summary = fe.Attr, fe.Summary
	}
	if errors.Is(err, fs.ErrNotExist) {
		detail = fmt.Sprintf("%s (a relative path is relative to the spec file's folder, %s).", detail, dir)
	}
	return errorAt(attrRange(b, attr), summary, detail)
}

// CompileDiagnoser is implemented by templates that can place an error of
// their Compile in the spec (ok false: place it the default way).
type CompileDiagnoser interface {
	CompileDiagnostics(err error) (diags hcl.Diagnostics, ok bool)
}

// LearnerInstance is one learner block.
type LearnerInstance struct {
	Name    string        `json:"name"`
	Type    string        `json:"type"`
	Learner learn.Learner `json:"-"`
	Config  any           `json:"config"`
	Range   hcl.Range     `json:"-"`
	// Decode is how the learner's model tags the test corpus and how dev
	// scoring labels the dev corpus (decode = "viterbi", the default,
	// "greedy", "beam", "posterior" or "labelpath"); Beam is
	// the width of "beam". They are settings of every learner, decoded
	// beside type (decodeDecoding).
	Decode lattice.Method `json:"decode,omitempty"`
	Beam   int            `json:"beam,omitempty"`
	// body and ctx decode the block again for a tuning candidate; block
	// places diagnostics at its settings (SettingRange).
	body  hcl.Body
	ctx   *hcl.EvalContext
	block *hcl.Block
	// Stage, when set, makes the learner a second stage (stage.go).
	Stage *Stage `json:"stage,omitempty"`
	// Joint, when set, is the learner's consistency and constraint
	// blocks: the tagger and dev scoring decode each document jointly
	// (joint.go).
	Joint *dual.Config `json:"joint,omitempty"`
	// Rerank, when set, makes the learner the first pass of a reranker
	// (rerank.go): the model file carries the reranker and the tagger
	// reranks the learner's k best.
	Rerank *Rerank `json:"rerank,omitempty"`
	// InitModel is the model a learner with init_model continues
	// training from (see initmodel.go), nil for the others.
	InitModel *InitModel `json:"init_model,omitempty"`
	// Encoder is the encoder block the learner trains with its model
	// (encoder = "name"), nil for a learner of templates only.
	Encoder *Encoder `json:"encoder,omitempty"`
}

// SettingRange is where the learner block sets name (its value), or the
// block's header when it does not: for a diagnostic on a setting found
// wrong only once the data is read.
func (li *LearnerInstance) SettingRange(name string) hcl.Range {
	if li.block == nil {
		return li.Range
	}
	return *attrRange(li.block, name)
}

// Evaluation is the evaluation block.
type Evaluation struct {
	Train string `json:"train"`
	Test  string `json:"test"`
	Dev   string `json:"dev,omitempty"`
	// Folds > 1 asks for K-fold cross-validation on the train corpus
	// (seeded folds); Test is then not used.
	Folds int `json:"folds,omitempty"`
}

// Corpus returns the named corpus.
func (s *Spec) Corpus(name string) *Corpus {
	for _, c := range s.Corpora {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// Learner returns the named learner.
func (s *Spec) Learner(name string) *LearnerInstance {
	for _, l := range s.Learners {
		if l.Name == name {
			return l
		}
	}
	return nil
}

// Registries are what spec decoding needs to know about templates and
// learners.
type Registries struct {
	Templates *feature.Registry
	Learners  *learn.Registry
}

// LoadFile reads and decodes a spec file. vars are --var overrides.
func LoadFile(path string, vars map[string]string, reg Registries) (*Spec, hcl.Diagnostics) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read spec", Detail: err.Error()}}
	}
	return Decode(path, src, vars, reg)
}

var rootSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{},
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "variable", LabelNames: []string{"name"}},
		{Type: "experiment", LabelNames: []string{"name"}},
		{Type: "corpus", LabelNames: []string{"name"}},
		{Type: "labels"},
		{Type: "features"},
		{Type: "learner", LabelNames: []string{"name"}},
		{Type: "encoder", LabelNames: []string{"name"}},
		{Type: "evaluation"},
		{Type: "tune", LabelNames: []string{"learner"}},
	},
}

// Decode parses and decodes spec source. filename is used in diagnostics
// and relative paths are resolved against its directory.
func Decode(filename string, src []byte, vars map[string]string, reg Registries) (*Spec, hcl.Diagnostics) {
	file, diags := hclsyntax.ParseConfig(src, filename, hcl.Pos{Line: 1, Column: 1})
	if diags.HasErrors() {
		return nil, diags
	}
	content, d := file.Body.Content(rootSchema)
	diags = append(diags, d...)

	sum := sha256.Sum256(src)
	s := &Spec{File: filename, Dir: filepath.Dir(filename), Source: src, Hash: hex.EncodeToString(sum[:]), Variables: map[string]string{}, LearnerTypes: reg.Learners}

	ctx, d := decodeVariables(content.Blocks.OfType("variable"), vars, s)
	diags = append(diags, d...)
	if diags.HasErrors() {
		return nil, diags
	}

	diags = append(diags, s.decodeExperiment(content, ctx)...)
	diags = append(diags, s.decodeCorpora(content.Blocks.OfType("corpus"), ctx)...)
	diags = append(diags, s.decodeLabels(content, ctx)...)
	diags = append(diags, s.decodeFeatures(content, ctx, reg.Templates, peekStageColumns(content.Blocks.OfType("learner"), ctx))...)
	diags = append(diags, s.decodeEncoders(content.Blocks.OfType("encoder"), ctx, s.evalTrainName(content, ctx))...)
	diags = append(diags, s.decodeLearners(content.Blocks.OfType("learner"), ctx, reg.Learners)...)
	diags = append(diags, s.checkBigramLearners()...)
	diags = append(diags, s.checkOrderLearners()...)
	diags = append(diags, s.checkDecisionLearners()...)
	diags = append(diags, s.checkTemplateLearners()...)
	diags = append(diags, s.decodeEvaluation(content, ctx)...)
	diags = append(diags, s.decodeTunes(content.Blocks.OfType("tune"), ctx)...)
	diags = append(diags, s.checkStages(content.Blocks.OfType("tune"))...)
	diags = append(diags, s.checkReranks(content.Blocks.OfType("tune"))...)
	if !diags.HasErrors() {
		diags = append(diags, s.loadInitModels()...)
		diags = append(diags, s.loadStageModels(reg.Templates)...)
	}
	if diags.HasErrors() {
		return nil, dropFollowUps(diags)
	}
	return s, diags
}

// dropFollowUps removes the "value must be known" errors that gohcl adds
// after HCL has already reported why an expression has no value (an
// undefined variable or attribute): without functions, a spec has unknown
// values only after such an error.
func dropFollowUps(diags hcl.Diagnostics) hcl.Diagnostics {
	out := diags[:0:0]
	for _, d := range diags {
		if d.Severity == hcl.DiagError && strings.HasSuffix(d.Detail, "value must be known") {
			continue
		}
		out = append(out, d)
	}
	if !out.HasErrors() {
		return diags
	}
	return out
}

func errorAt(rng *hcl.Range, summary, detail string) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: rng}
}

// single returns the one block of a type, reporting duplicates and, when
// required, absence.
func single(content *hcl.BodyContent, typ string, required bool) (*hcl.Block, hcl.Diagnostics) {
	blocks := content.Blocks.OfType(typ)
	var diags hcl.Diagnostics
	if len(blocks) == 0 {
		if required {
			diags = append(diags, errorAt(&content.MissingItemRange, "Missing "+typ+" block", fmt.Sprintf("A spec needs one %s block.", typ)))
		}
		return nil, diags
	}
	for _, b := range blocks[1:] {
		diags = append(diags, errorAt(b.DefRange.Ptr(), "Duplicate "+typ+" block",
			fmt.Sprintf("Only one %s block is allowed; the first is at %s.", typ, blocks[0].DefRange)))
	}
	return blocks[0], diags
}

func decodeVariables(blocks hcl.Blocks, overrides map[string]string, s *Spec) (*hcl.EvalContext, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	values := map[string]cty.Value{}
	seen := map[string]*hcl.Block{}
	for _, b := range blocks {
		name := b.Labels[0]
		if prev, dup := seen[name]; dup {
			diags = append(diags, errorAt(b.LabelRanges[0].Ptr(), "Duplicate variable", fmt.Sprintf("Variable %q was already declared at %s.", name, prev.DefRange)))
			continue
		}
		seen[name] = b
		var cfg struct {
			Default     cty.Value `hcl:"default,optional"`
			Description string    `hcl:"description,optional"`
		}
		// Variables cannot refer to each other: decode with no context.
		diags = append(diags, gohcl.DecodeBody(b.Body, nil, &cfg)...)
		v := cfg.Default
		if !v.IsWhollyKnown() {
			// A default that failed to evaluate (say "${A}0": no variables
			// here) is unknown, and its error is already in diags; going
			// on would panic rendering it (AsString of an unknown value).
			continue
		}
		if raw, ok := overrides[name]; ok {
			var err error
			if v, err = parseOverride(raw, v); err != nil {
				diags = append(diags, errorAt(attrRange(b, "default"), "Invalid --var value",
					fmt.Sprintf("--var %s=%s: %s.", name, raw, err)))
				continue
			}
		}
		if v.IsNull() {
			diags = append(diags, errorAt(b.DefRange.Ptr(), "Variable without a value",
				fmt.Sprintf("Variable %q has no default; give it one or pass --var %s=VALUE.", name, name)))
			continue
		}
		values[name] = v
		s.Variables[name] = renderValue(v)
	}
	var names []string
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	// Report unknown overrides in a fixed order (map order would make the
	// output differ from run to run), each pointing at the declaration it
	// most likely meant, or else at the first declaration.
	var unknown []string
	for name := range overrides {
		if _, ok := seen[name]; !ok {
			unknown = append(unknown, name)
		}
	}
	sort.Strings(unknown)
	for _, name := range unknown {
		detail := fmt.Sprintf("--var %s does not match a variable of this spec", name)
		var subject *hcl.Range
		if sug := registry.Suggest(name, names); sug != "" {
			detail += fmt.Sprintf("; did you mean %q?", sug)
			subject = seen[sug].LabelRanges[0].Ptr()
		} else if len(names) > 0 {
			detail += fmt.Sprintf(" (it declares %s).", strings.Join(names, ", "))
			subject = blocks[0].DefRange.Ptr()
		} else {
			detail += " (it declares no variables)."
		}
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unknown variable", Detail: detail, Subject: subject})
	}
	ctx := &hcl.EvalContext{Variables: map[string]cty.Value{"var": cty.ObjectVal(values)}}
	return ctx, diags
}

// parseOverride gives a --var value the type of the variable's default, so
// --var seed=7 is a number where the default is a number.
func parseOverride(raw string, def cty.Value) (cty.Value, error) {
	if !def.IsNull() {
		switch def.Type() {
		case cty.Number:
			n, err := cty.ParseNumberVal(raw)
			if err != nil {
				return cty.NilVal, fmt.Errorf("the variable is a number (its default is %s)", renderValue(def))
			}
			return n, nil
		case cty.Bool:
			b, err := strconv.ParseBool(raw)
			if err != nil {
				return cty.NilVal, fmt.Errorf("the variable is true or false (its default is %s)", renderValue(def))
			}
			return cty.BoolVal(b), nil
		}
	}
	return cty.StringVal(raw), nil
}

func renderValue(v cty.Value) string {
	switch v.Type() {
	case cty.String:
		return v.AsString()
	case cty.Number:
		return v.AsBigFloat().Text('g', -1)
	case cty.Bool:
		return strconv.FormatBool(v.True())
	}
	return v.GoString()
}

func (s *Spec) decodeExperiment(content *hcl.BodyContent, ctx *hcl.EvalContext) hcl.Diagnostics {
	b, diags := single(content, "experiment", true)
	if b == nil {
		return diags
	}
	var cfg struct {
		Seed        *int64 `hcl:"seed,optional"`
		Description string `hcl:"description,optional"`
	}
	diags = append(diags, gohcl.DecodeBody(b.Body, ctx, &cfg)...)
	s.Name = b.Labels[0]
	s.Description = cfg.Description
	s.Seed = 1
	if cfg.Seed != nil {
		if *cfg.Seed < 0 {
			diags = append(diags, errorAt(attrRange(b, "seed"), "Invalid seed", "seed must be a non-negative integer."))
		}
		s.Seed = uint64(*cfg.Seed)
	}
	return diags
}

// subjectFor places a template's or learner's own diagnostic, which has
// no range: at the attribute its detail starts by naming ("emission_smoothing
// must be ..."), else at the block header.
func subjectFor(b *hcl.Block, d *hcl.Diagnostic) *hcl.Range {
	if sb, ok := b.Body.(*hclsyntax.Body); ok {
		for name, a := range sb.Attributes {
			if strings.HasPrefix(d.Detail, name+" ") || strings.HasPrefix(d.Detail, strconv.Quote(name)+" ") {
				return a.Expr.Range().Ptr()
			}
		}
	}
	return b.DefRange.Ptr()
}

// attrRange returns the range of a block's attribute, or of the block
// header when the attribute is absent, so diagnostics point at the value
// that is wrong.
func attrRange(b *hcl.Block, name string) *hcl.Range {
	if sb, ok := b.Body.(*hclsyntax.Body); ok {
		if a, ok := sb.Attributes[name]; ok {
			return a.Expr.Range().Ptr()
		}
	}
	return b.DefRange.Ptr()
}

func (s *Spec) decodeCorpora(blocks hcl.Blocks, ctx *hcl.EvalContext) hcl.Diagnostics {
	var diags hcl.Diagnostics
	// The formats a spec may name are those corpus.New accepts; listed in
	// their registration order, most common first.
	formats := corpus.Formats()
	for _, b := range blocks {
		var cfg struct {
			Path       string   `hcl:"path"`
			Format     string   `hcl:"format"`
			Columns    []string `hcl:"columns,optional"`
			Separator  string   `hcl:"separator,optional"`
			CharScheme string   `hcl:"char_scheme,optional"`
			Split      *Split   `hcl:"split,block"`
		}
		d := gohcl.DecodeBody(b.Body, ctx, &cfg)
		diags = append(diags, d...)
		name := b.Labels[0]
		s.declared = append(s.declared, name)
		if d.HasErrors() {
			continue
		}
		if s.Corpus(name) != nil {
			diags = append(diags, errorAt(b.LabelRanges[0].Ptr(), "Duplicate corpus", fmt.Sprintf("Corpus %q is declared twice.", name)))
			continue
		}
		if _, ok := formats.Lookup(cfg.Format); !ok {
			diags = append(diags, errorAt(attrRange(b, "format"), "Unknown corpus format",
				registry.DidYouMean(cfg.Format, formats.RegistrationOrder(), "format")))
			continue
		}
		path := cfg.Path
		if !filepath.IsAbs(path) {
			path = filepath.Join(s.Dir, path)
		}
		if st, err := os.Stat(path); err != nil {
			diags = append(diags, errorAt(attrRange(b, "path"), "Corpus file not found",
				fmt.Sprintf("%s (paths are relative to the spec file's folder, %s).", err, s.Dir)))
		} else if st.IsDir() {
			diags = append(diags, errorAt(attrRange(b, "path"), "Corpus path is a folder", path+" is a folder, not a file."))
		}
		fc := corpus.Config{Name: cfg.Format, Columns: cfg.Columns, Separator: cfg.Separator, CharScheme: cfg.CharScheme}
		if cfg.Format == corpus.NameCoNLL && len(cfg.Columns) == 0 {
			diags = append(diags, errorAt(b.DefRange.Ptr(), "Missing columns", `A "conll" corpus needs columns = [...] naming its columns in file order, e.g. ["word", "pos", "chunk"].`))
			continue
		}
		f, err := corpus.New(fc)
		if err != nil {
			diags = append(diags, errorAt(b.DefRange.Ptr(), "Invalid corpus format", err.Error()))
			continue
		}
		if sp := cfg.Split; sp != nil {
			if sp.Folds < 2 || sp.Fold < 0 || sp.Fold >= sp.Folds || (sp.Take != "fold" && sp.Take != "rest") {
				diags = append(diags, errorAt(b.DefRange.Ptr(), "Invalid split",
					`split needs folds >= 2, 0 <= fold < folds, and take = "fold" or "rest".`))
			}
		}
		s.Corpora = append(s.Corpora, &Corpus{Name: name, Path: path, Format: fc, Split: cfg.Split, Columns: f.Columns(), Range: b.DefRange})
	}
	return diags
}

func (s *Spec) decodeLabels(content *hcl.BodyContent, ctx *hcl.EvalContext) hcl.Diagnostics {
	b, diags := single(content, "labels", true)
	if b == nil {
		return diags
	}
	var cfg struct {
		Column      string `hcl:"column"`
		Scheme      string `hcl:"scheme,optional"`
		Encode      string `hcl:"encode,optional"`
		Constrained *bool  `hcl:"constrained,optional"`
	}
	d := gohcl.DecodeBody(b.Body, ctx, &cfg)
	if diags = append(diags, d...); d.HasErrors() {
		return diags
	}
	s.Labels.Column = cfg.Column
	s.Labels.Scheme = scheme.None
	s.Labels.SchemeRange = *attrRange(b, "scheme")
	if cfg.Scheme != "" {
		sc, err := scheme.Parse(cfg.Scheme)
		if err != nil {
			return append(diags, errorAt(attrRange(b, "scheme"), "Unknown label scheme",
				registry.DidYouMean(cfg.Scheme, []string{"none", "iob1", "iob2", "bio", "bioes", "bmes", "bi"}, "scheme")))
		}
		s.Labels.Scheme = sc
	}
	if cfg.Encode != "" {
		diags = append(diags, s.decodeEncode(b, cfg.Encode)...)
	}
	// Constrained decoding is on by default where the scheme the learners
	// decode in makes some label bigrams impossible (the issue's
	// IOB2/BIOES; BMES likewise).
	tr := s.Labels.Training()
	s.Labels.Constrained = tr == scheme.IOB2 || tr == scheme.BIOES || tr == scheme.BMES
	if cfg.Constrained != nil {
		s.Labels.Constrained = *cfg.Constrained
	}
	for _, c := range s.Corpora {
		if !slices.Contains(c.Columns, cfg.Column) {
			diags = append(diags, errorAt(attrRange(b, "column"), "Unknown label column",
				fmt.Sprintf("Corpus %q has no column %q.%s", c.Name, cfg.Column, registry.Hint(cfg.Column, c.Columns))))
			continue
		}
		// Resolved here, once: every reader of the spec's corpora reads
		// them with their labels.
		c.Format.Label = cfg.Column
	}
	return diags
}

// decodeEncode reads the labels block's encode value: a span scheme, for a
// corpus whose scheme has spans. Encoding in the corpus's own scheme is no
// encoding (the model stays a plain one).
func (s *Spec) decodeEncode(b *hcl.Block, value string) hcl.Diagnostics {
	rng := attrRange(b, "encode")
	enc, ok := encodings[strings.ToLower(strings.TrimSpace(value))]
	if !ok {
		return hcl.Diagnostics{errorAt(rng, "Unknown training encoding",
			registry.DidYouMean(value, []string{"iob1", "iob2", "bioes", "bilou"}, "encoding"))}
	}
	if !s.Labels.Scheme.HasSpans() {
		return hcl.Diagnostics{errorAt(rng, "Encoding without spans",
			fmt.Sprintf("encode re-encodes the chunks of a span scheme (iob1, iob2, bioes); the labels' scheme is %s.", s.Labels.Scheme))}
	}
	if enc != s.Labels.Scheme {
		s.Labels.Encode = enc
	}
	return nil
}

// decodeDataset reads the features block's dataset and memory_budget.
func (s *Spec) decodeDataset(fc *hcl.BodyContent, ctx *hcl.EvalContext) hcl.Diagnostics {
	var diags hcl.Diagnostics
	if a, ok := fc.Attributes["dataset"]; ok {
		diags = append(diags, gohcl.DecodeExpression(a.Expr, ctx, &s.Features.Dataset)...)
		s.Features.DatasetRange = a.Expr.Range()
		switch s.Features.Dataset {
		case DatasetMemory, DatasetDisk, DatasetAuto:
		default:
			if !diags.HasErrors() {
				diags = append(diags, errorAt(a.Expr.Range().Ptr(), "Invalid dataset",
					fmt.Sprintf(`dataset must be "memory" (the default), "disk" or "auto" (on disk past memory_budget), got %q.`, s.Features.Dataset)))
			}
		}
	}
	a, ok := fc.Attributes["memory_budget"]
	if !ok {
		return diags
	}
	var text string
	if d := gohcl.DecodeExpression(a.Expr, ctx, &text); d.HasErrors() {
		return append(diags, d...)
	}
	n, err := ParseBytes(text)
	if err != nil || n <= 0 {
		return append(diags, errorAt(a.Expr.Range().Ptr(), "Invalid memory_budget",
			fmt.Sprintf(`memory_budget is a size such as "4GiB" or "512MB", got %q.`, text)))
	}
	if s.Features.Dataset != DatasetAuto && s.Features.Dataset != DatasetDisk {
		diags = append(diags, errorAt(a.Expr.Range().Ptr(), "memory_budget with the training set in memory",
			"memory_budget is the memory the training set may take: dataset = \"auto\" moves it to disk past that, and a set on disk keeps that much of it mapped. In memory it takes what it takes; set dataset = \"auto\" or \"disk\", or drop memory_budget."))
	}
	s.Features.MemoryBudget = n
	return diags
}

// Vars collects repeated --var name=value settings of a spec's variables:
// a flag.Value, and LoadFile's vars.
type Vars map[string]string

func (v Vars) String() string { return "" }

// Set takes one name=value.
func (v Vars) Set(s string) error {
	name, value, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return fmt.Errorf("want name=value, got %q", s)
	}
	v[name] = value
	return nil
}

// ParseBytes reads a size: a number with an optional unit, B, KB, MB, GB,
// TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024).
func ParseBytes(text string) (int64, error) {
	t := strings.TrimSpace(text)
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := t, ""
	if i >= 0 {
		num, unit = t[:i], strings.TrimSpace(t[i:])
	}
	units := map[string]float64{"": 1, "B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
		"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}
	mult, ok := units[unit]
	x, err := strconv.ParseFloat(num, 64)
	if !ok || err != nil || x*mult >= math.MaxInt64 {
		return 0, fmt.Errorf("not a size: %q", text)
	}
	return int64(x * mult), nil
}

func (s *Spec) decodeFeatures(content *hcl.BodyContent, ctx *hcl.EvalContext, reg *feature.Registry, stageCols []string) hcl.Diagnostics {
	b, diags := single(content, "features", true)
	if b == nil {
		return diags
	}
	schema := &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "min_count"}, {Name: "dataset"}, {Name: "memory_budget"}}}
	for _, t := range reg.Names() {
		schema.Blocks = append(schema.Blocks, hcl.BlockHeaderSchema{Type: t, LabelNames: []string{"name"}})
	}
	fc, d := b.Body.Content(schema)
	diags = append(diags, d...)
	s.Features.MinCount = 1
	if a, ok := fc.Attributes["min_count"]; ok {
		diags = append(diags, gohcl.DecodeExpression(a.Expr, ctx, &s.Features.MinCount)...)
		s.Features.MinCountRange = a.Expr.Range()
		if s.Features.MinCount < 1 {
			diags = append(diags, errorAt(a.Expr.Range().Ptr(), "Invalid min_count", "min_count must be at least 1."))
		}
	}
	diags = append(diags, s.decodeDataset(fc, ctx)...)
	var cols []string
	label := -1
	base := 0
	if train := s.Corpus(s.evalTrainName(content, ctx)); train != nil {
		cols = slices.Clone(train.Columns)
		label = slices.Index(cols, s.Labels.Column)
		base = len(cols)
		// The learners' stage columns follow the corpus's (a name that
		// clashes with one is reported at its stage block).
		for _, c := range stageCols {
			if !slices.Contains(cols, c) {
				cols = append(cols, c)
			}
		}
	}
	names := map[string]hcl.Range{}
	transitions := 0
	for _, tb := range fc.Blocks {
		name := tb.Labels[0]
		if prev, dup := names[name]; dup {
			diags = append(diags, errorAt(tb.LabelRanges[0].Ptr(), "Duplicate template name",
				fmt.Sprintf("Template %q is already declared at %s; names must be unique, they prefix every attribute.", name, prev)))
			continue
		}
		names[name] = tb.DefRange
		t, _ := reg.NewTemplate(tb.Type)
		labels, labelsRange, rest, d := decodeTemplateLabels(tb, ctx)
		if diags = append(diags, d...); d.HasErrors() {
			continue
		}
		own := *tb // the block without labels, for the template's own decoding
		own.Body = rest
		if diags = append(diags, DecodeTemplate(t, &own, ctx, s.Dir)...); diags.HasErrors() {
			continue
		}
		if st, ok := t.(feature.StructureTemplate); ok && st.Transitions() {
			transitions++
			if labels != "" {
				diags = append(diags, errorAt(labelsRange.Ptr(), "Invalid labels",
					fmt.Sprintf(`The %s template is the label bigrams themselves; labels = %q is for templates that emit attributes.`, tb.Type, labels)))
				continue
			}
		}
		var reads []string
		if cols != nil {
			x, err := t.Compile(name, feature.Columns{Names: cols, Label: label})
			if err != nil {
				if cd, ok := t.(CompileDiagnoser); ok {
					if ds, ok := cd.CompileDiagnostics(err); ok {
						diags = append(diags, ds...)
						continue
					}
				}
				diags = append(diags, errorAt(compileErrorRange(tb, err), "Invalid template", fmt.Sprintf("%s %q: %s%s", tb.Type, name, err, columnSuggestion(err))))
				continue
			}
			reads = stageReads(x, cols, base)
		}
		ti := &TemplateInstance{Type: tb.Type, Name: name, Template: t, Range: tb.DefRange,
			Labels: labels, LabelsRange: labelsRange, StageColumns: reads}
		if feature.TemplateOrder(t) == 2 {
			ti.OrderRange = *attrRange(&own, "order")
		}
		s.Features.Templates = append(s.Features.Templates, ti)
	}
	if transitions > 1 {
		diags = append(diags, errorAt(b.DefRange.Ptr(), "More than one transition template", "A first-order model has one set of transition weights; keep one transition block."))
	}
	return diags
}

// templateLabels are the values of a template block's labels setting.
var templateLabels = []string{"unigram", feature.LabelsBigram}

// decodeTemplateLabels reads the labels setting that every template block
// takes beside its own (so plugins get it too): "unigram" (the default:
// attributes conjoined with their token's label) or "bigram" (with the
// label bigram into their token, input-conditioned transitions). It
// returns the value as TemplateSpec.Labels records it ("" for unigram),
// where it was set, and the rest of the body for the template.
func decodeTemplateLabels(tb *hcl.Block, ctx *hcl.EvalContext) (string, hcl.Range, hcl.Body, hcl.Diagnostics) {
	head, rest, diags := tb.Body.PartialContent(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "labels"}}})
	a, ok := head.Attributes["labels"]
	if !ok || diags.HasErrors() {
		return "", tb.DefRange, rest, diags
	}
	var v string
	if d := gohcl.DecodeExpression(a.Expr, ctx, &v); d.HasErrors() {
		return "", a.Expr.Range(), rest, append(diags, d...)
	}
	switch v {
	case "unigram":
		return "", a.Expr.Range(), rest, diags
	case feature.LabelsBigram:
		return v, a.Expr.Range(), rest, diags
	}
	return "", a.Expr.Range(), rest, append(diags, errorAt(a.Expr.Range().Ptr(), "Invalid labels",
		registry.DidYouMean(v, templateLabels, "labels value")))
}

// checkBigramLearners refuses, at the template's labels setting, a spec
// whose bigram templates one of its learners cannot train
// (learn.TrainsPairs), naming the types that can (learn.CanPairs).
func (s *Spec) checkBigramLearners() hcl.Diagnostics {
	var bigram *TemplateInstance
	for _, t := range s.Features.Templates {
		if t.Labels == feature.LabelsBigram {
			bigram = t
			break
		}
	}
	if bigram == nil {
		return nil
	}
	var diags hcl.Diagnostics
	for _, l := range s.Learners {
		if !learn.TrainsPairs(l.Learner) {
			diags = append(diags, errorAt(bigram.LabelsRange.Ptr(), "Bigram template with a learner that cannot train it",
				fmt.Sprintf(`Template %q has labels = "bigram" (input-conditioned transitions), which learner %q (type %s, at %s:%d) cannot train: %s can. Remove the learner or the setting.`,
					bigram.Name, l.Name, l.Type, l.Range.Filename, l.Range.Start.Line, andList(learn.Noted(s.LearnerTypes.Able(learn.CanPairs))))))
		}
	}
	return diags
}

// checkOrderLearners refuses, at the transition template's order setting,
// a second-order spec one of whose learners cannot train it
// (learn.TrainsSecondOrder), naming the types that can
// (learn.CanSecondOrder).
func (s *Spec) checkOrderLearners() hcl.Diagnostics {
	second := s.secondOrderTemplate()
	if second == nil {
		return nil
	}
	var diags hcl.Diagnostics
	for _, l := range s.Learners {
		if l.Decode == lattice.DecodeGreedy || l.Decode == lattice.DecodeBeam {
			diags = append(diags, errorAt(second.OrderRange.Ptr(), "Second-order model with greedy or beam decoding",
				fmt.Sprintf(`Template %q has order = 2 (a second-order model), which learner %q (at %s:%d) would decode with %s search; that search reads first-order scores only. Use decode = "viterbi" or "posterior", or remove the setting.`,
					second.Name, l.Name, l.Range.Filename, l.Range.Start.Line, l.Decode)))
		}
		if !learn.TrainsSecondOrder(l.Learner) {
			diags = append(diags, errorAt(second.OrderRange.Ptr(), "Second-order model with a learner that cannot train it",
				fmt.Sprintf(`Template %q has order = 2 (a second-order model, label trigrams), which learner %q (type %s, at %s:%d) cannot train: %s can. Remove the learner or the setting.`,
					second.Name, l.Name, l.Type, l.Range.Filename, l.Range.Start.Line, andList(learn.Noted(s.LearnerTypes.Able(learn.CanSecondOrder))))))
		}
	}
	return diags
}

// checkTemplateLearners refuses, at the learner block, a learner that
// trains only with certain templates (learn.TemplateChecker: tnt) when
// the templates it would train on are not those.
func (s *Spec) checkTemplateLearners() hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, l := range s.Learners {
		tc, ok := l.Learner.(learn.TemplateChecker)
		if !ok {
			continue
		}
		var ts []learn.TemplateInfo
		for _, t := range s.TemplatesFor(l) {
			info := learn.TemplateInfo{Name: t.Name, Type: t.Type, Order: feature.TemplateOrder(t.Template)}
			if st, ok := t.Template.(feature.StructureTemplate); ok {
				info.Transitions = st.Transitions()
			}
			ts = append(ts, info)
		}
		if err := tc.CheckTemplates(ts); err != nil {
			diags = append(diags, errorAt(l.Range.Ptr(), "Templates the learner cannot train on",
				fmt.Sprintf("Learner %q (type %s): %v.", l.Name, l.Type, err)))
		}
		if d := pruningRefusal(l, float64(s.Features.MinCount)); d != "" {
			diags = append(diags, errorAt(s.Features.MinCountRange.Ptr(), "Pruning with a learner that reads every attribute",
				d+"; remove min_count or the learner."))
		}
	}
	return diags
}

// compileErrorRange places an error of a template's Compile. A column the
// template cannot read (*feature.ColumnError, however the template wraps
// it) is placed at the attribute that names it, column or else join; any
// other error, and a column named nowhere in the block (the attributes
// template's fixed column), at the block header.
func compileErrorRange(tb *hcl.Block, err error) *hcl.Range {
	var ce *feature.ColumnError
	if !errors.As(err, &ce) {
		return tb.DefRange.Ptr()
	}
	if rng := attrNaming(tb, ce.Column); rng != nil {
		return rng
	}
	if rng := attrRange(tb, "column"); *rng != tb.DefRange {
		return rng
	}
	return attrRange(tb, "join")
}

// columnSuggestion is ". Did you mean "x"?" for an unknown column close
// to a corpus column, else "".
func columnSuggestion(err error) string {
	var ce *feature.ColumnError
	if !errors.As(err, &ce) || ce.Label {
		return ""
	}
	if s := registry.Suggest(ce.Column, ce.Have); s != "" {
		return fmt.Sprintf(". Did you mean %q?", s)
	}
	return ""
}

// attrNaming returns the range of tb's attribute whose value is the
// literal string name (history's predicted, say), nil if none is.
func attrNaming(tb *hcl.Block, name string) *hcl.Range {
	sb, ok := tb.Body.(*hclsyntax.Body)
	if !ok {
		return nil
	}
	keys := slices.Sorted(maps.Keys(sb.Attributes))
	for _, k := range keys {
		a := sb.Attributes[k]
		if v, d := a.Expr.Value(nil); !d.HasErrors() && v.Type() == cty.String && v.IsKnown() && !v.IsNull() && v.AsString() == name {
			return a.Expr.Range().Ptr()
		}
	}
	return nil
}

// evalTrainName peeks at the evaluation block's train corpus so templates
// can be checked against its columns while the features are decoded (a
// variable, train = var.train, evaluated in ctx).
func (s *Spec) evalTrainName(content *hcl.BodyContent, ctx *hcl.EvalContext) string {
	blocks := content.Blocks.OfType("evaluation")
	if len(blocks) == 0 {
		return ""
	}
	attrs, _ := blocks[0].Body.JustAttributes()
	if a, ok := attrs["train"]; ok {
		var name string
		if diags := gohcl.DecodeExpression(a.Expr, ctx, &name); !diags.HasErrors() {
			return name
		}
	}
	return ""
}

func (s *Spec) decodeLearners(blocks hcl.Blocks, ctx *hcl.EvalContext, reg *learn.Registry) hcl.Diagnostics {
	var diags hcl.Diagnostics
	if len(blocks) == 0 {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "No learner",
			Detail: fmt.Sprintf(`A spec needs at least one learner block, e.g. learner "hmm" { type = "hmm" } (types: %s).`, strings.Join(reg.Names(), ", "))})
	}
	for _, b := range blocks {
		name := b.Labels[0]
		if s.Learner(name) != nil {
			diags = append(diags, errorAt(b.LabelRanges[0].Ptr(), "Duplicate learner", fmt.Sprintf("Learner %q is declared twice.", name)))
			continue
		}
		l, typ, d := learnerType(b, ctx, reg)
		if diags = append(diags, d...); d.HasErrors() {
			continue
		}
		// A learner that searches by itself (transition) takes beam as
		// its own setting, and no decode.
		schema := &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
			{Name: "type", Required: true}, {Name: "decode"}, {Name: "beam"}, {Name: "encoder"}}, Blocks: learnerBlocks}
		searches := learn.SearchBeam(l) > 0
		if searches {
			schema.Attributes = slices.DeleteFunc(slices.Clone(schema.Attributes), func(a hcl.AttributeSchema) bool { return a.Name == "beam" })
		}
		head, rest, d := b.Body.PartialContent(schema)
		if diags = append(diags, d...); d.HasErrors() {
			continue
		}
		if a, ok := head.Attributes["decode"]; ok && searches {
			diags = append(diags, errorAt(a.NameRange.Ptr(), "Unsupported learner setting",
				fmt.Sprintf("Learner type %s decodes by its own left-to-right search; its width is the learner's beam setting (1 is greedy). Remove decode.", typ)))
			continue
		}
		method, beam, d := decodeDecoding(head, ctx)
		if diags = append(diags, d...); d.HasErrors() {
			continue
		}
		stage, d := decodeStage(head.Blocks.OfType("stage"), ctx)
		if diags = append(diags, d...); d.HasErrors() {
			continue
		}
		var decodeRange *hcl.Range
		if a, ok := head.Attributes["decode"]; ok {
			decodeRange = a.Expr.Range().Ptr()
		}
		joint, d := s.decodeJoint(head.Blocks, ctx, method, decodeRange)
		if diags = append(diags, d...); d.HasErrors() {
			continue
		}
		unsupported := unsupportedSettings(rest, typ, l, reg)
		d = learn.DecodeConfig(rest, ctx, l.Config())
		if len(unsupported) > 0 {
			// Ours say which learners take the setting; drop gohcl's
			// "not expected here" for the same attributes.
			d = dropUnsupported(d)
		}
		d = append(unsupported, d...)
		if diags = append(diags, d...); d.HasErrors() {
			continue
		}
		for _, vd := range l.Validate() {
			if vd.Subject == nil {
				vd.Subject = subjectFor(b, vd)
			}
			diags = append(diags, vd)
		}
		li := &LearnerInstance{Name: name, Type: typ, Learner: l, Config: l.Config(), Range: b.DefRange,
			Decode: method, Beam: beam, Stage: stage, Joint: joint, body: rest, ctx: ctx, block: b}
		if d := s.decodeLearnerEncoder(li, head, rest, ctx); d.HasErrors() {
			diags = append(diags, d...)
			continue
		}
		if c, ok := l.(learn.Continuer); ok && c.InitModel() != "" {
			li.InitModel = &InitModel{Path: s.path(c.InitModel()), Range: *attrRange(b, "init_model")}
		}
		if li.Rerank, d = s.decodeRerank(head.Blocks.OfType("rerank"), ctx, li, searches); d.HasErrors() {
			diags = append(diags, d...)
			continue
		}
		s.Learners = append(s.Learners, li)
	}
	return diags
}

// learnerType reads a learner block's type and makes a learner of it.
func learnerType(b *hcl.Block, ctx *hcl.EvalContext, reg *learn.Registry) (learn.Learner, string, hcl.Diagnostics) {
	head, _, d := b.Body.PartialContent(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "type", Required: true}}})
	if d.HasErrors() {
		return nil, "", d
	}
	var typ string
	if d := gohcl.DecodeExpression(head.Attributes["type"].Expr, ctx, &typ); d.HasErrors() {
		return nil, "", d
	}
	l, ok := reg.New(typ)
	if !ok {
		return nil, "", hcl.Diagnostics{errorAt(head.Attributes["type"].Expr.Range().Ptr(), "Unknown learner type", registry.DidYouMean(typ, reg.Names(), "learner type"))}
	}
	return l, typ, nil
}

// decodeDecoding reads a learner block's decode and beam: the decoding
// method by name (Viterbi when absent) and the beam width, which only
// decode = "beam" takes and which it needs.
func decodeDecoding(head *hcl.BodyContent, ctx *hcl.EvalContext) (lattice.Method, int, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	method := lattice.DecodeViterbi
	da, hasDecode := head.Attributes["decode"]
	if hasDecode {
		var name string
		if d := gohcl.DecodeExpression(da.Expr, ctx, &name); d.HasErrors() {
			return method, 0, d
		}
		m, ok := lattice.ParseMethod(name)
		if !ok {
			return method, 0, hcl.Diagnostics{errorAt(da.Expr.Range().Ptr(), "Unknown decoding method",
				registry.DidYouMean(name, lattice.MethodNames, "decoding method"))}
		}
		method = m
	}
	beam := 0
	ba, hasBeam := head.Attributes["beam"]
	if hasBeam {
		if d := gohcl.DecodeExpression(ba.Expr, ctx, &beam); d.HasErrors() {
			return method, 0, d
		}
	}
	switch {
	case hasBeam && method != lattice.DecodeBeam:
		diags = append(diags, errorAt(ba.NameRange.Ptr(), "Unsupported learner setting",
			fmt.Sprintf(`beam is the width of beam decoding; this learner decodes with %s. It is a setting of decode = "beam": add that, or remove beam.`, method)))
	case method == lattice.DecodeBeam && !hasBeam:
		diags = append(diags, errorAt(da.Expr.Range().Ptr(), "Missing beam width",
			`decode = "beam" needs beam = N, the number of partial paths kept per position (1 is greedy; the number of labels or more is Viterbi).`))
	case hasBeam && beam < 1:
		diags = append(diags, errorAt(ba.Expr.Range().Ptr(), "Invalid beam width",
			fmt.Sprintf("beam must be at least 1, got %d", beam)))
	}
	return method, beam, diags
}

// unsupportedSettings reports each attribute of a learner block (type
// aside) that a learner of type typ does not take, at the attribute's
// name, naming the learner types that do take it or, when none does, the
// closest of typ's own settings.
func unsupportedSettings(body hcl.Body, typ string, l learn.Learner, reg *learn.Registry) hcl.Diagnostics {
	attrs, d := body.JustAttributes()
	if d.HasErrors() {
		return nil // blocks in a learner body: gohcl's diagnostics say so
	}
	own := settingNames(l.Config())
	var names []string
	for name := range attrs {
		if !slices.Contains(own, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names) // one diagnostic per name, in a fixed order
	var diags hcl.Diagnostics
	for _, name := range names {
		var takers []string
		for _, t := range reg.Names() {
			if o, ok := reg.New(t); ok && slices.Contains(settingNames(o.Config()), name) {
				takers = append(takers, t)
			}
		}
		detail := fmt.Sprintf("Learner type %s does not take %q.", typ, name)
		if len(takers) > 0 {
			detail += fmt.Sprintf(" It is a setting of %s.", andList(takers))
		}
		// Every learner also takes decode and beam (decodeDecoding).
		if hint := registry.Suggest(name, append(slices.Clip(own), "decode", "beam")); hint != "" || len(takers) == 0 {
			detail += fmt.Sprintf(" Type %s takes: %s (and decode, beam).", typ, strings.Join(own, ", "))
			if hint != "" {
				detail += fmt.Sprintf(" Did you mean %q?", hint)
			}
		}
		diags = append(diags, errorAt(attrs[name].NameRange.Ptr(), "Unsupported learner setting", detail))
	}
	return diags
}

// settingNames lists the attributes a learner config decodes, sorted.
func settingNames(cfg any) []string {
	schema := learn.ConfigSchema(cfg)
	var names []string
	for _, a := range schema.Attributes {
		names = append(names, a.Name)
	}
	slices.Sort(names)
	return names
}

// andList joins names as "a", "a and b", "a, b and c".
func andList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// dropUnsupported removes gohcl's "Unsupported argument" diagnostics,
// replaced by unsupportedSettings'.
func dropUnsupported(diags hcl.Diagnostics) hcl.Diagnostics {
	var out hcl.Diagnostics
	for _, d := range diags {
		if d.Summary != "Unsupported argument" {
			out = append(out, d)
		}
	}
	return out
}

func (s *Spec) decodeEvaluation(content *hcl.BodyContent, ctx *hcl.EvalContext) hcl.Diagnostics {
	b, diags := single(content, "evaluation", true)
	if b == nil {
		return diags
	}
	var cfg Evaluation
	d := gohcl.DecodeBody(b.Body, ctx, &struct {
		Train *string `hcl:"train"`
		Test  *string `hcl:"test,optional"`
		Dev   *string `hcl:"dev,optional"`
		Folds *int    `hcl:"folds,optional"`
	}{&cfg.Train, &cfg.Test, &cfg.Dev, &cfg.Folds})
	if diags = append(diags, d...); d.HasErrors() {
		return diags
	}
	switch {
	case cfg.Folds < 0 || cfg.Folds == 1 || cfg.Folds > 100:
		diags = append(diags, errorAt(attrRange(b, "folds"), "Invalid number of folds",
			fmt.Sprintf("folds must be between 2 and 100 for cross-validation (or left out), got %d", cfg.Folds)))
	case cfg.Folds == 0 && cfg.Test == "":
		diags = append(diags, errorAt(&b.DefRange, "Missing test corpus",
			`The evaluation block needs test = "<corpus>", or folds = K for cross-validation on the train corpus.`))
	case cfg.Folds > 1 && cfg.Test != "":
		diags = append(diags, errorAt(attrRange(b, "test"), "Test corpus with folds",
			"With folds = K every fold of the train corpus is tested in turn; leave test out."))
	}
	if tc := s.Corpus(cfg.Train); cfg.Folds > 1 && tc != nil && tc.Split != nil {
		diags = append(diags, errorAt(attrRange(b, "folds"), "Cross-validation of a split corpus",
			fmt.Sprintf("corpus %q already has a split block; cross-validation splits the corpus itself", cfg.Train)))
	}
	var names []string
	for _, c := range s.Corpora {
		names = append(names, c.Name)
	}
	for _, role := range []struct{ attr, name string }{{"train", cfg.Train}, {"test", cfg.Test}, {"dev", cfg.Dev}} {
		if role.name == "" && role.attr != "train" {
			continue
		}
		if s.Corpus(role.name) == nil && !slices.Contains(s.declared, role.name) {
			diags = append(diags, errorAt(attrRange(b, role.attr), "Unknown corpus", registry.DidYouMean(role.name, names, "corpus")))
		}
	}
	s.Evaluation = cfg
	return diags
}
