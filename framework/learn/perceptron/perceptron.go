package perceptron

import (
	"context"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/learn/online"
)

// Config is the perceptron learner block: the settings every online
// learner takes.
type Config struct{ online.Config }

// DefaultEpochs is enough for the averaged perceptron to level off on the
// public benchmarks (docs/results.md, "Measurements behind design choices
// in the code").
const DefaultEpochs = online.DefaultEpochs

// Learner is the averaged perceptron.
type Learner struct{ cfg Config }

// InitModel implements learn.Continuer.
func (l *Learner) InitModel() string { return l.cfg.InitModel }

var _ learn.Continuer = (*Learner)(nil)

var (
	_ learn.Learner           = (*Learner)(nil)
	_ learn.PairLearner       = (*Learner)(nil)
	_ learn.OrderLearner      = (*Learner)(nil)
	_ learn.CheckpointLearner = (*Learner)(nil)
)

// TrainsPairs implements learn.PairLearner: its updates along
// Φ(gold) − Φ(pred) include the pair features.
func (*Learner) TrainsPairs() bool { return true }

// TrainsSecondOrder implements learn.OrderLearner.
func (*Learner) TrainsSecondOrder() bool { return true }

// SavesCheckpoints implements learn.CheckpointLearner: the online
// trainer's epochs run on learn.Loop.
func (*Learner) SavesCheckpoints() bool { return true }

// New returns a perceptron with default settings.
func New() learn.Learner { return &Learner{} }

// Config implements learn.Learner.
func (l *Learner) Config() any { return &l.cfg }

// Validate implements learn.Learner.
func (l *Learner) Validate() hcl.Diagnostics { return l.cfg.Config.Validate() }

// Train implements learn.Learner.
func (l *Learner) Train(ctx context.Context, p *learn.Problem) (*learn.Result, error) {
	return online.Train(ctx, p, "perceptron", &l.cfg.Config, l.Rule())
}

var _ online.Mixable = (*Learner)(nil)

// Rule implements online.Mixable.
func (*Learner) Rule() online.Rule { return Rule{} }

// OnlineConfig implements online.Mixable.
func (l *Learner) OnlineConfig() *online.Config { return &l.cfg.Config }

// Rule is the perceptron's update: add the gold sequence's features and
// subtract the predicted ones, position by position where they differ.
type Rule struct{}

var _ online.Rule = Rule{}

// Start implements online.Rule.
func (Rule) Start(int) {}

// State implements online.Rule: the perceptron keeps nothing of its own.
func (Rule) State() []float64 { return nil }

// Update implements online.Rule: it changes the weights unless neither
// label's features exist at the differing positions and the model has no
// transitions.
func (Rule) Update(t *online.Trainer, tok0 int, gold, pred []int32, _ int) bool {
	changed := false
	for i := range gold {
		if gold[i] != pred[i] {
			g := t.AddState(tok0+i, gold[i], 1)
			p := t.AddState(tok0+i, pred[i], -1)
			changed = changed || g || p
		}
	}
	if t.Transitions() {
		t.AddTransitions(gold, pred)
		changed = true
	}
	if t.AddPairs(tok0, gold, pred) {
		changed = true
	}
	return changed
}
