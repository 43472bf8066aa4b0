package spec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/registry"
)

// Tune is a tune block: the values of one learner's settings to search,
// scored on the dev corpus, or by K-fold cross-validation on the train
// corpus when the spec has no dev corpus. The test corpus plays no part.
type Tune struct {
	Learner string `json:"learner"`
	// Method is "grid" (every combination) or "random" (Trials distinct
	// combinations drawn with the spec's seed).
	Method string `json:"method"`
	Trials int    `json:"trials,omitempty"`
	// Folds is the number of cross-validation folds (no dev corpus only).
	Folds    int           `json:"folds,omitempty"`
	Settings []TuneSetting `json:"settings"`
	Range    hcl.Range     `json:"-"`
}

// TuneSetting is one searched setting and its values, in spec order.
type TuneSetting struct {
	Name   string    `json:"name"`
	Values []float64 `json:"values"`
}

// MinCountSetting is the one tunable setting that is not the learner's:
// the features block's cut-off, which changes the encoded corpus.
const MinCountSetting = "min_count"

// DefaultTuneFolds is the number of cross-validation folds of a tune
// block that does not say.
const DefaultTuneFolds = 3

// MaxTuneGrid bounds the number of combinations a tune block may make.
const MaxTuneGrid = 100000

// Candidate is one combination of setting values, by setting name.
type Candidate map[string]float64

// Candidates returns the combinations the search tries, in a fixed order:
// the whole grid, or for random search Trials distinct combinations drawn
// with a generator seeded by seed and the learner's name (the same draw
// for any thread count or machine).
func (t *Tune) Candidates(seed uint64) []Candidate {
	size := 1
	for _, s := range t.Settings {
		size *= len(s.Values)
	}
	idx := make([]int, size)
	for i := range idx {
		idx[i] = i
	}
	if t.Method == "random" && t.Trials < size {
		h := uint64(14695981039346656037)
		for _, c := range []byte(t.Learner) {
			h = (h ^ uint64(c)) * 1099511628211
		}
		idx = rand.New(rand.NewPCG(seed, h)).Perm(size)[:t.Trials]
	}
	out := make([]Candidate, 0, len(idx))
	for _, k := range idx {
		c := Candidate{}
		// The last setting varies fastest.
		for i := len(t.Settings) - 1; i >= 0; i-- {
			s := t.Settings[i]
			c[s.Name] = s.Values[k%len(s.Values)]
			k /= len(s.Values)
		}
		out = append(out, c)
	}
	return out
}

// Tune returns the tune block of the named learner, or nil.
func (s *Spec) Tune(learner string) *Tune {
	for _, t := range s.Tunes {
		if t.Learner == learner {
			return t
		}
	}
	return nil
}

// NewLearner returns a new learner like li, its block decoded again, with
// the candidate's learner settings (min_count is not one) set.
func (s *Spec) NewLearner(li *LearnerInstance, c Candidate) (*LearnerInstance, error) {
	l, ok := s.LearnerTypes.New(li.Type)
	if !ok {
		return nil, fmt.Errorf("learner type %q is not registered", li.Type)
	}
	if d := learn.DecodeConfig(li.body, li.ctx, l.Config()); d.HasErrors() {
		return nil, d
	}
	names := make([]string, 0, len(c))
	for name := range c {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if name == MinCountSetting {
			continue
		}
		if err := setSetting(l.Config(), name, c[name]); err != nil {
			return nil, err
		}
	}
	if d := l.Validate(); d.HasErrors() {
		return nil, d
	}
	out := *li
	out.Learner, out.Config = l, l.Config()
	return &out, nil
}

// settingField returns the field of a learner's config struct that the
// spec sets with attribute name, and whether it holds a number.
func settingField(cfg any, name string) (reflect.Value, bool) {
	v := reflect.ValueOf(cfg)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}, false
	}
	v = v.Elem()
	for _, sf := range reflect.VisibleFields(v.Type()) { // with those of embedded structs
		tag, _, _ := strings.Cut(sf.Tag.Get("hcl"), ",")
		if tag != name {
			continue
		}
		f := v.FieldByIndex(sf.Index)
		k := f.Kind()
		if k == reflect.Pointer {
			k = f.Type().Elem().Kind()
		}
		switch k {
		case reflect.Int, reflect.Int64, reflect.Int32, reflect.Float64, reflect.Float32:
			return f, true
		}
		return f, false
	}
	return reflect.Value{}, false
}

// setSetting sets the numeric setting name of cfg to v.
func setSetting(cfg any, name string, v float64) error {
	f, ok := settingField(cfg, name)
	if !ok {
		return fmt.Errorf("the learner has no number setting %q", name)
	}
	if f.Kind() == reflect.Pointer {
		f.Set(reflect.New(f.Type().Elem()))
		f = f.Elem()
	}
	switch f.Kind() {
	case reflect.Float64, reflect.Float32:
		f.SetFloat(v)
	default:
		if v != math.Trunc(v) {
			return fmt.Errorf("%s takes whole numbers, not %v", name, v)
		}
		f.SetInt(int64(v))
	}
	return nil
}

// decodeTunes decodes the tune blocks; learners and the evaluation block
// are decoded first.
func (s *Spec) decodeTunes(blocks hcl.Blocks, ctx *hcl.EvalContext) hcl.Diagnostics {
	var diags hcl.Diagnostics
	var names []string
	for _, l := range s.Learners {
		names = append(names, l.Name)
	}
	for _, b := range blocks {
		name := b.Labels[0]
		li := s.Learner(name)
		if li == nil {
			diags = append(diags, errorAt(b.LabelRanges[0].Ptr(), "Unknown learner", registry.DidYouMean(name, names, "learner")))
			continue
		}
		if s.Tune(name) != nil {
			diags = append(diags, errorAt(b.LabelRanges[0].Ptr(), "Duplicate tune block", fmt.Sprintf("Learner %q is tuned twice.", name)))
			continue
		}
		if li.InitModel != nil {
			// Candidates would have to start from the model and grow its
			// dictionaries on every fold: not built, so refused.
			diags = append(diags, errorAt(b.LabelRanges[0].Ptr(), "Tuning a continued learner",
				fmt.Sprintf("Learner %q continues from init_model, which a tune block does not support; tune a learner without init_model, or set the value by hand.", name)))
			continue
		}
		t, d := s.decodeTune(b, ctx, li)
		if diags = append(diags, d...); !d.HasErrors() {
			s.Tunes = append(s.Tunes, t)
		}
	}
	return diags
}

// tuneOptions are a tune block's attributes that are not settings.
var tuneOptions = []string{"method", "trials", "folds"}

func (s *Spec) decodeTune(b *hcl.Block, ctx *hcl.EvalContext, li *LearnerInstance) (*Tune, hcl.Diagnostics) {
	attrs, diags := b.Body.JustAttributes()
	if diags.HasErrors() {
		return nil, diags
	}
	t := &Tune{Learner: li.Name, Method: "grid", Range: b.DefRange}
	sorted := make([]*hcl.Attribute, 0, len(attrs))
	for _, a := range attrs {
		sorted = append(sorted, a)
	}
	// Source order: the grid's order, and the order of the diagnostics.
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Range.Start.Byte < sorted[j].Range.Start.Byte })
	settings := settingNames(li.Learner.Config())
	for _, a := range sorted {
		switch a.Name {
		case "method":
			diags = append(diags, gohcl.DecodeExpression(a.Expr, ctx, &t.Method)...)
			if t.Method != "grid" && t.Method != "random" {
				diags = append(diags, errorAt(a.Expr.Range().Ptr(), "Unknown tuning method", registry.DidYouMean(t.Method, []string{"grid", "random"}, "method")))
			}
		case "trials":
			diags = append(diags, gohcl.DecodeExpression(a.Expr, ctx, &t.Trials)...)
		case "folds":
			diags = append(diags, gohcl.DecodeExpression(a.Expr, ctx, &t.Folds)...)
		default:
			st, d := s.decodeTuneSetting(a, ctx, li, settings)
			if diags = append(diags, d...); !d.HasErrors() {
				t.Settings = append(t.Settings, st)
			}
		}
	}
	if diags.HasErrors() {
		return nil, diags
	}
	if diags = append(diags, s.checkTune(t, b, attrs)...); diags.HasErrors() {
		return nil, diags
	}
	return t, append(diags, s.checkCandidates(t, b, li)...)
}

// checkCandidates refuses a tune block one of whose candidates the
// learner refuses. Each value passed checkValue alone; a rule between two
// settings (warm_start_epochs needs c1 = 0) shows only in a combination,
// which would otherwise fail the run after earlier candidates trained.
// The search's own candidates are checked (the whole grid, or the random
// draw of the spec's seed); the first refused one is reported.
func (s *Spec) checkCandidates(t *Tune, b *hcl.Block, li *LearnerInstance) hcl.Diagnostics {
	for _, c := range t.Candidates(s.Seed) {
		_, err := s.NewLearner(li, c)
		if err == nil {
			continue
		}
		msg := strings.TrimSuffix(refusalDetail(err), ".") + "."
		var values []string
		for _, st := range t.Settings {
			values = append(values, fmt.Sprintf("%s = %v", st.Name, c[st.Name]))
		}
		return hcl.Diagnostics{errorAt(b.DefRange.Ptr(), "Invalid combination of values",
			fmt.Sprintf("The candidate %s of learner %q is refused: %s Leave that combination out of the search (one tune block searches every combination of its lists).", strings.Join(values, ", "), li.Name, msg))}
	}
	return nil
}

// checkTune checks how a decoded tune block searches.
func (s *Spec) checkTune(t *Tune, b *hcl.Block, attrs hcl.Attributes) hcl.Diagnostics {
	var diags hcl.Diagnostics
	at := func(name string) *hcl.Range {
		if a, ok := attrs[name]; ok {
			return a.Expr.Range().Ptr()
		}
		return b.DefRange.Ptr()
	}
	if len(t.Settings) == 0 {
		diags = append(diags, errorAt(b.DefRange.Ptr(), "Nothing to tune",
			fmt.Sprintf(`A tune block lists settings of learner %q with the values to try, e.g. c2 = [0.1, 0.3, 1].`, t.Learner)))
	}
	size := 1
	for _, st := range t.Settings {
		if size *= len(st.Values); size > MaxTuneGrid {
			diags = append(diags, errorAt(b.DefRange.Ptr(), "Grid too large",
				fmt.Sprintf("The settings make more than %d combinations; list fewer values.", MaxTuneGrid)))
			break
		}
	}
	switch {
	case t.Method == "random" && t.Trials < 1:
		diags = append(diags, errorAt(at("trials"), "Invalid trials", "Random search needs trials = N, at least 1."))
	case t.Method == "grid" && t.Trials != 0:
		diags = append(diags, errorAt(at("trials"), "Trials with a grid", `A grid search tries every combination; trials is for method = "random".`))
	}
	_, hasFolds := attrs["folds"]
	switch {
	case s.Evaluation.Dev != "" && hasFolds:
		diags = append(diags, errorAt(at("folds"), "Folds with a dev corpus",
			fmt.Sprintf("Tuning scores every candidate on the dev corpus %q; folds (cross-validation on the train corpus) is for specs without one.", s.Evaluation.Dev)))
	case s.Evaluation.Dev == "" && !hasFolds:
		t.Folds = DefaultTuneFolds
	case s.Evaluation.Dev == "" && (t.Folds < 2 || t.Folds > 20):
		diags = append(diags, errorAt(at("folds"), "Invalid number of folds", fmt.Sprintf("folds must be between 2 and 20, got %d.", t.Folds)))
	}
	return diags
}

// decodeTuneSetting decodes one searched setting: a list of numbers, each
// a value the learner accepts.
func (s *Spec) decodeTuneSetting(a *hcl.Attribute, ctx *hcl.EvalContext, li *LearnerInstance, settings []string) (TuneSetting, hcl.Diagnostics) {
	st := TuneSetting{Name: a.Name}
	rng := a.NameRange.Ptr()
	if a.Name != MinCountSetting {
		if _, ok := settingField(li.Learner.Config(), a.Name); !ok {
			if slices.Contains(settings, a.Name) {
				return st, hcl.Diagnostics{errorAt(rng, "Setting is not a number",
					fmt.Sprintf("Learner %q (type %s) setting %q is not a number; tune searches number settings.", li.Name, li.Type, a.Name))}
			}
			candidates := append(append([]string(nil), settings...), MinCountSetting)
			candidates = append(candidates, tuneOptions...)
			return st, hcl.Diagnostics{errorAt(rng, "Unknown learner setting",
				fmt.Sprintf("Learner %q (type %s) has no setting %q.%s", li.Name, li.Type, a.Name, registry.Hint(a.Name, candidates)))}
		}
	}
	var vals []cty.Value
	d := gohcl.DecodeExpression(a.Expr, ctx, &vals)
	if d.HasErrors() || len(vals) == 0 {
		return st, append(d, errorAt(a.Expr.Range().Ptr(), "Invalid values", fmt.Sprintf("%s = [...] lists the numbers to try, at least one.", a.Name)))
	}
	exprs := listItems(a.Expr)
	for i, v := range vals {
		rng := a.Expr.Range().Ptr()
		if i < len(exprs) {
			rng = exprs[i].Range().Ptr()
		}
		if v.IsNull() || !v.IsKnown() || v.Type() != cty.Number {
			return st, hcl.Diagnostics{errorAt(rng, "Invalid value", fmt.Sprintf("%s values must be numbers.", a.Name))}
		}
		f, _ := v.AsBigFloat().Float64()
		if d := s.checkValue(li, a.Name, f); d != "" {
			return st, hcl.Diagnostics{errorAt(rng, "Invalid value", d)}
		}
		st.Values = append(st.Values, f)
	}
	return st, nil
}

// checkValue says what is wrong with value v of a setting, or "".
func (s *Spec) checkValue(li *LearnerInstance, name string, v float64) string {
	if name == MinCountSetting {
		if v < 1 || v != math.Trunc(v) {
			return fmt.Sprintf("min_count must be a whole number, at least 1, got %v.", v)
		}
		if d := pruningRefusal(li, v); d != "" {
			return d + "."
		}
		return ""
	}
	cand, err := s.NewLearner(li, Candidate{name: v})
	if err == nil && s.hasBigramTemplate() && !learn.TrainsPairs(cand.Learner) {
		return fmt.Sprintf(`%s = %v makes learner %q one that cannot train the spec's templates with labels = "bigram" (a latent CRF cannot).`, name, v, li.Name)
	}
	if err == nil && s.secondOrder() && !learn.TrainsSecondOrder(cand.Learner) {
		return fmt.Sprintf(`%s = %v makes learner %q one that cannot train the spec's second-order model (transition order = 2; a latent CRF cannot).`, name, v, li.Name)
	}
	if _, ok := err.(hcl.Diagnostics); ok {
		return fmt.Sprintf("%s = %v: %s", name, v, refusalDetail(err))
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

// refusalDetail is what a learner's refusal (NewLearner's error) says:
// its diagnostics' details joined, or the error's text.
func refusalDetail(err error) string {
	d, ok := err.(hcl.Diagnostics)
	if !ok {
		return err.Error()
	}
	details := make([]string, len(d))
	for k, x := range d {
		details[k] = x.Detail
	}
	return strings.Join(details, "; ")
}

// pruningRefusal says why min_count = v cannot apply to learner li, or ""
// when it can: a learner that checks its templates (learn.TemplateChecker,
// tnt) reads their attributes at every token, so no attribute may be
// dropped for being rare.
func pruningRefusal(li *LearnerInstance, v float64) string {
	if _, reads := li.Learner.(learn.TemplateChecker); !reads || v <= 1 {
		return ""
	}
	return fmt.Sprintf("min_count = %v would drop rare attributes, which learner %q (type %s, at %s:%d) needs at every token",
		v, li.Name, li.Type, li.Range.Filename, li.Range.Start.Line)
}

// listItems returns the element expressions of a list literal (nil for
// any other expression), to place a diagnostic at the bad value.
func listItems(e hcl.Expression) []hcl.Expression {
	t, ok := e.(*hclsyntax.TupleConsExpr)
	if !ok {
		return nil
	}
	out := make([]hcl.Expression, len(t.Exprs))
	for i, x := range t.Exprs {
		out[i] = x
	}
	return out
}
