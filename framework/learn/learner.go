package learn

import (
	"context"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/linear"
	"github.com/trellis-nlp/trellis/framework/neural"
	"github.com/trellis-nlp/trellis/framework/progress"
	"github.com/trellis-nlp/trellis/framework/registry"
)

// Problem is everything a learner may use. Strings have stopped at the
// feature mapper: a learner sees only IDs and sizes.
type Problem struct {
	Train *feature.Dataset
	// Dev is an optional held-out set; DevScore evaluates a model on it
	// with the experiment's main metric (higher is better). Both are nil
	// without a dev corpus.
	Dev      *feature.Dataset
	DevScore func(m *linear.Model) float64

	NumAttrs  int
	NumLabels int
	// Mapper is the feature mapper that encoded Train (a *feature.Mapper
	// in a run): which template emitted each attribute, and the attribute
	// that stands for each template's values unseen in training. Only a
	// learner that models templates separately (the HMM) reads it.
	Mapper Mapper
	// Transitions is false when the spec has no transition template: the
	// model is then a per-token classifier and the learner must leave the
	// transition, start and stop weights at zero.
	Transitions bool
	// Constraints, when set, forbid label bigrams that the label scheme
	// makes ill-formed; learners that decode while training (the
	// perceptron) decode under them.
	Constraints *lattice.Constraints

	Seed    uint64
	Threads int
	Log     zerolog.Logger
	// Progress, when set, shows epochs and iterations on a terminal.
	Progress *progress.Meter
	// Checkpoints, when set, asks the learner to save its training state
	// regularly and, if it holds one, to continue from a saved state.
	Checkpoints *Checkpoints
	// Observe, when set, receives one point per epoch or iteration (the
	// learning curve in the report).
	Observe func(Point)
	// Pairs, when set, marks the attributes of templates with labels =
	// "bigram" (feature.Mapper.PairAttrs): NewModel gives them pair
	// features (input-conditioned transitions) instead of state features.
	// Only a PairLearner that says so trains them; Registry.Refuse
	// refuses the others.
	Pairs []bool
	// Order is the model's Markov order (feature.Mapper.Order): 2 makes
	// NewModel second order (linear.WithTrigrams); 0 or 1 is first order.
	// Only an OrderLearner that says so trains it; Registry.Refuse
	// refuses the others.
	Order int
	// Init, when set, is a trained model to continue from (init_model):
	// its attribute and label IDs are a prefix of this Problem's (see
	// feature.FitOptions Base). NewModel starts from its weights.
	Init *linear.Model
	// Encoder, when set, is a neural encoder to train jointly with the
	// model (the learner's encoder setting): its label scores are added
	// to the templates' state scores. Only an EncoderLearner takes it.
	Encoder *Encoder
	// History, when set, is the decision history a DecisionLearner reads
	// (decisions.go); nil for other learners.
	History *History
}

// Encoder is a neural encoder and its training inputs.
type Encoder struct {
	// Net holds the initial weights; training changes them in place, so
	// DevScore, which reads Net, scores the current ones.
	Net *neural.Network
	// Train holds the input IDs of each training sentence, in Train's
	// order; Counts[id] is how often word id occurs in them.
	Train  []neural.Encoded
	Counts []int32
}

// EncoderLearner is implemented by learners that train a neural encoder
// jointly with their model (Problem.Encoder, CanEncoder). The spec refuses
// an encoder on any other learner with a diagnostic, and Registry.Refuse
// does at training time.
type EncoderLearner interface {
	TrainsEncoder() bool
	// EncoderSettings are the learner's own settings that it still reads
	// when it trains an encoder (the encoder block has the others: the
	// optimizer, epochs, batches); the spec refuses the rest.
	EncoderSettings() []string
	// EncoderModel names what the learner makes with an encoder, for
	// messages ("a BiLSTM-CRF").
	EncoderModel() string
}

// TrainsEncoder reports whether learner l trains a neural encoder.
func TrainsEncoder(l Learner) bool {
	el, ok := l.(EncoderLearner)
	return ok && el.TrainsEncoder()
}

// PairLearner is implemented by learners that can train input-conditioned
// transitions (templates with labels = "bigram", Problem.Pairs, CanPairs).
// A learner that does not implement it, or whose TrainsPairs is false, is
// refused by the spec with a diagnostic, and by Registry.Refuse at
// training time.
type PairLearner interface {
	TrainsPairs() bool
}

// TrainsPairs reports whether learner l trains input-conditioned
// transitions.
func TrainsPairs(l Learner) bool {
	pl, ok := l.(PairLearner)
	return ok && pl.TrainsPairs()
}

// HasPairs reports whether p marks any attribute for pair features.
func (p *Problem) HasPairs() bool {
	for _, b := range p.Pairs {
		if b {
			return true
		}
	}
	return false
}

// OrderLearner is implemented by learners that can train a second-order
// model (Problem.Order 2, CanSecondOrder). The others are refused by the
// spec with a diagnostic, and by Registry.Refuse at training time.
type OrderLearner interface {
	TrainsSecondOrder() bool
}

// TrainsSecondOrder reports whether learner l trains second-order models.
func TrainsSecondOrder(l Learner) bool {
	ol, ok := l.(OrderLearner)
	return ok && ol.TrainsSecondOrder()
}

// Continuer is a learner that can start from a trained model's weights
// (Problem.Init): its config has init_model, the model file's path.
type Continuer interface {
	// InitModel is the init_model setting as written ("" when unset).
	InitModel() string
}

// Mapper is what a learner may know of the feature mapper behind a
// Problem's attribute IDs.
type Mapper interface {
	// NumGroups is the number of templates that emit attributes.
	NumGroups() int
	// AttrGroups()[a] is the template (group) that emitted attribute a
	// (the HMM normalizes its emissions per template).
	AttrGroups() []int32
	// UnknownAttrs()[g] is the attribute that stands for values of
	// template g unseen in training (-1: none): the mapper maps such
	// values to it at test time. It never occurs in training data, so
	// only a learner that estimates it explicitly (the HMM, from values
	// seen once) gives it weights.
	UnknownAttrs() []int32
	// GroupTypes()[g] is the template type of group g ("emission",
	// "suffix_trie", …): a learner that reads particular templates (tnt)
	// finds their groups by it.
	GroupTypes() []string
}

var _ Mapper = (*feature.Mapper)(nil)

// Point is one step of a learning curve.
type Point struct {
	Step     int           `json:"step"`
	Loss     float64       `json:"loss,omitempty"`
	DevScore float64       `json:"dev_score,omitempty"`
	Elapsed  time.Duration `json:"elapsed_ns"`
	// Unit is what Step counts, the same for every point of a curve
	// (empty in curves recorded before points carried it).
	Unit StepUnit `json:"unit,omitempty"`
}

// StepUnit is what one step of a learning curve is: curves in different
// units do not share an x-axis (an epoch is not an L-BFGS iteration).
type StepUnit string

// The units of the learners' curves.
const (
	Epoch          StepUnit = "epoch"     // a pass over the training sentences
	SGDEpoch       StepUnit = "SGD epoch" // an epoch of the CRF's SGD
	LBFGSIteration StepUnit = "L-BFGS iteration"
	OWLQNIteration StepUnit = "OWL-QN iteration"
)

// Checkpoints is where a learner saves its training state and finds the
// state to resume from. A learner resumed from a state saved on the same
// Problem must end with exactly the weights (to the bit) and Info of an
// uninterrupted run; its learning curve up to the state is replayed
// through Observe.
type Checkpoints struct {
	// Every is the number of epochs or iterations between saves.
	Every int
	// Save stores a state; the caller writes it atomically.
	Save func(state []byte) error
	// Resume is the last state saved by an interrupted run, or nil.
	Resume []byte
}

// Result is a trained model plus what the learner wants recorded.
type Result struct {
	Model *linear.Model
	// Network is the trained encoder of a Problem with one, nil otherwise.
	Network *neural.Network
	Info    map[string]any
	// ExtraAttrs are attributes the learner adds after the mapper's (a
	// transition model's history attributes, which no extractor emits):
	// the model's attribute names are the mapper's followed by these.
	ExtraAttrs []string
	// SearchBeam, when ≥ 1, says that the model decodes by transition
	// search of that width (1 is greedy) instead of on the lattice.
	SearchBeam int
}

// Learner trains one kind of model. The lifecycle mirrors templates:
// new (Registry) → decode config (Config, hcl and json tags; DecodeConfig) → Validate →
// Train. Train must honour ctx cancellation promptly and be deterministic
// given Problem.Seed, whatever Problem.Threads is. Callers train through
// Registry.Train, which refuses what the learner cannot train first, so
// Train need not check the capabilities it declares.
type Learner interface {
	Config() any
	Validate() hcl.Diagnostics
	Train(ctx context.Context, p *Problem) (*Result, error)
}

// Factory makes a zero Learner of one registered type.
type Factory func() Learner

// Registry maps learner type names ("hmm", "perceptron", "crf") to
// factories: the generic registry.Registry (Register, MustRegister,
// Lookup, Names, Suggest) plus New, which makes a learner.
type Registry struct {
	*registry.Registry[Factory]
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{registry.New[Factory]("learner type")} }

// New returns a fresh learner of the named type.
func (r *Registry) New(name string) (Learner, bool) {
	f, ok := r.Lookup(name)
	if !ok {
		return nil, false
	}
	return f(), true
}

// TemplateInfo is what a spec tells a learner of one template block it
// trains on.
type TemplateInfo struct {
	Name, Type string
	// Transitions is set for a template that gives the model transitions
	// (the transition template); Order is then its Markov order.
	Transitions bool
	Order       int
}

// TemplateChecker is a learner that trains only with certain templates
// (tnt: one emission template for the words, one suffix_trie template,
// a second-order transition template). The spec calls CheckTemplates with
// the templates the learner trains on, in spec order, and places a
// non-nil error as a diagnostic at the learner block, and refuses
// min_count pruning for it (it reads its templates' attributes at every
// token). Train finds the templates again by type and refuses what it
// cannot count.
type TemplateChecker interface {
	CheckTemplates(ts []TemplateInfo) error
}
