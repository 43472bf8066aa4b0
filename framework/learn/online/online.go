package online

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/linear"
)

// Config holds the settings every online learner takes, the one place
// they are defined, documented and validated; a learner's config embeds
// it (framework/learn/config.go says why).
type Config struct {
	// Epochs is the number of passes over the training data (default 10).
	// A pointer, so that an explicit epochs = 0 is refused rather than
	// read as "not set".
	Epochs *int `hcl:"epochs,optional" json:"epochs,omitempty"`
	Common
	// InitModel is the path of a trained model to continue training from
	// (resolved by the spec against its folder); "" trains from zero.
	InitModel string `hcl:"init_model,optional" json:"init_model,omitempty"`
	// Shards is the number of fixed shards iterative parameter mixing
	// trains in every epoch (ipm.go); 0 or 1 is the serial learner.
	Shards int `hcl:"shards,optional" json:"shards,omitempty"`
	// Mix is how the shards' weights are mixed after an epoch: "uniform"
	// (the default) or "mistakes" (in proportion to each shard's
	// updates). It has no effect without shards ≥ 2.
	Mix string `hcl:"mix,optional" json:"mix,omitempty"`
}

// Common holds the settings that the transition learner, which trains on
// its own search rather than on this engine, shares with the online
// learners. Epochs is not one: the transition learner's refuses 0 (it has
// no init_model) and comes before its search settings in its JSON.
type Common struct {
	// Shuffle visits the training sentences (the transition learner's
	// documents, when there are any) in a new seeded order every epoch
	// (default true).
	Shuffle *bool `hcl:"shuffle,optional" json:"shuffle,omitempty"`
	// Average returns the averaged weights (default true); false gives the
	// last weights.
	Average *bool `hcl:"average,optional" json:"average,omitempty"`
	// BestEpoch keeps the epoch with the best dev score when the spec has
	// a dev corpus (default true).
	BestEpoch *bool `hcl:"best_epoch,optional" json:"best_epoch,omitempty"`
	// Features is "observed" (attribute-label pairs seen in training get a
	// weight, as CRFsuite does; the default) or "all" (the transition
	// learner's history attributes always have every label).
	Features string `hcl:"features,optional" json:"features,omitempty"`
}

// ShardCount implements learn.Sharded.
func (c *Config) ShardCount() int { return c.Shards }

var _ learn.Sharded = (*Config)(nil)

// DefaultEpochs is enough for the averaged online learners to level off
// on the public benchmarks (docs/results.md, "Measurements behind design
// choices in the code").
const DefaultEpochs = 10

// Flag returns *b, or def when b is nil.
func Flag(b *bool, def bool) bool {
	if b == nil {
		return def
	}
	return *b
}

// NumEpochs returns the configured epochs or the default.
func (c *Config) NumEpochs() int {
	if c.Epochs == nil {
		return DefaultEpochs
	}
	return *c.Epochs
}

// Validate checks the shared settings.
func (c *Config) Validate() hcl.Diagnostics {
	var diags hcl.Diagnostics
	// Zero epochs is the continued model itself (a check that continuing
	// loses nothing); from zero weights it would be a model of zeros.
	if e := c.Epochs; e != nil && (*e < 0 || *e > 100000 || (*e == 0 && c.InitModel == "")) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid epochs",
			Detail: fmt.Sprintf("epochs must be between 1 and 100000 (0 only with init_model), got %d", *e)})
	}
	diags = append(diags, learn.ValidateFeatures(c.Features)...)
	// Details begin with the setting's name: the spec places the
	// diagnostic at it.
	if c.Shards < 0 || c.Shards > MaxShards {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid shards",
			Detail: fmt.Sprintf("shards must be between 0 and %d (0 or 1 trains serially), got %d", MaxShards, c.Shards)})
	}
	if _, ok := ParseMix(c.Mix); !ok {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid mix",
			Detail: fmt.Sprintf(`mix must be "uniform" (the default) or "mistakes", got %q`, c.Mix)})
	}
	return diags
}

// Rule is what makes an online learner: how it changes the weights after
// a sentence decoded wrongly. Lifecycle: Start once per training run,
// before anything else (and before a checkpoint is restored into State);
// then Update for every sentence whose decoded path differs from gold.
type Rule interface {
	// Start prepares the rule for a weight vector of n entries.
	Start(n int)
	// Update changes t's weights (through t.Add or t.AddState and
	// t.AddTransitions) after the sentence whose first token is tok0 was
	// decoded as pred instead of gold; errors is their Hamming distance,
	// > 0. It reports whether it changed any weight (the run's "updates"
	// count only those). It must not allocate once warmed up.
	Update(t *Trainer, tok0 int, gold, pred []int32, errors int) (changed bool)
	// State is the rule's own per-weight state that a checkpoint must
	// hold (AROW's variances), or nil; Restore writes into it in place.
	// Under mixing the shards' states are mixed as the weights are
	// (Mixer), and a replica copies the mixed state into it.
	State() []float64
}

// Forker is implemented by a Rule with state (State not nil) that can
// make a fresh copy of itself: iterative parameter mixing trains shards
// in parallel, each replica with a rule of its own. A stateful Rule
// without Fork trains its shards one after the other.
type Forker interface {
	// Fork returns a new Rule with the same settings, not yet started.
	Fork() Rule
}

// Train runs an online learner: the shared settings c, the rule, under
// the learner's name (errors, logs, checkpoints). With c.Shards ≥ 2 it
// trains by iterative parameter mixing (ipm.go).
func Train(ctx context.Context, p *learn.Problem, name string, c *Config, rule Rule) (*learn.Result, error) {
	return train(ctx, p, name, c, rule, c.Shards >= 2)
}

// train is Train, by iterative parameter mixing when mixed (which the
// tests also ask for with one shard, to compare it with the serial run).
func train(ctx context.Context, p *learn.Problem, name string, c *Config, rule Rule, mixed bool) (*learn.Result, error) {
	m, err := learn.StartModel(c.Features, p)
	if err != nil {
		return nil, err
	}
	order, err := learn.CompleteSentences(p, name)
	if err != nil {
		return nil, err
	}
	rule.Start(len(m.W))
	r := &run{
		name: name, m: m, p: p, tr: newTrainer(m, p, rule), order: order, epochs: c.NumEpochs(),
		src:     rand.NewPCG(p.Seed, shuffleStream),
		shuffle: Flag(c.Shuffle, true), average: Flag(c.Average, true),
		bestEpoch: Flag(c.BestEpoch, true) && p.DevScore != nil,
		best:      learn.NewBest(),
	}
	r.rng = rand.New(r.src)
	if mixed {
		if r.ipm, err = newMixing(ctx, r, c, rule); err != nil {
			return nil, err
		}
	}
	loop := &learn.Loop{
		Name: name, Unit: "epoch", CurveUnit: learn.Epoch, Steps: r.epochs, Work: len(order), WorkUnit: "sentences",
		LossName: "train_error", Hint: "are some attribute values huge?",
		Step: r.epoch, Weights: func() []float64 { return r.tr.w }, Evaluate: r.evaluate,
		Save: r.save, Restore: r.restore,
	}
	err = loop.Run(ctx, p)
	if r.ipm != nil {
		// The runner's files and workers go whether or not the run ended
		// well; the run's own error comes first.
		if cerr := r.ipm.runner.Close(); cerr != nil {
			err = errors.Join(err, cerr)
		}
	}
	if err != nil {
		return nil, err
	}
	info := map[string]any{"epochs": r.epochs, "features": m.NumFeatures(), "updates": r.tr.updates, "averaged": r.average}
	if r.ipm != nil {
		info["shards"], info["mix"] = len(r.ipm.shards), r.ipm.mixer.Mix.String()
	}
	if r.bestEpoch {
		r.best.Restore(m.W)
		info["best_epoch"] = r.best.At
		info["best_dev_score"] = r.best.Score
	}
	return &learn.Result{Model: m, Info: info}, nil
}

// shuffleStream is the PCG stream of the serial learner's shuffle; shard
// s of a mixed run shuffles with stream shuffleStream+s, so that one
// shard shuffles as the serial learner does.
const shuffleStream = 0x9e3779b97f4a7c15

// run is one training run: the trainer plus what the epochs share (the
// shuffled order, its random source, the best epoch so far).
type run struct {
	name   string
	m      *linear.Model
	p      *learn.Problem
	tr     *Trainer
	order  []int
	epochs int
	src    *rand.PCG
	rng    *rand.Rand

	shuffle, average, bestEpoch bool
	best                        learn.Best
	// ipm is the mixing driver's state, nil for the serial learner.
	ipm *mixing
}

// epoch is one pass over the training sentences; its loss is the
// fraction of mislabelled tokens.
func (r *run) epoch(k int, tick func(done int) error) (float64, error) {
	if r.ipm != nil {
		return r.ipm.epoch(k, tick)
	}
	order := r.order
	if r.shuffle {
		r.rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	}
	errors, tokens := 0, 0
	for k, s := range order {
		if k%1024 == 0 {
			if err := tick(k); err != nil {
				return 0, err
			}
		}
		e, n := r.tr.Step(s)
		errors += e
		tokens += n
	}
	return float64(errors) / float64(tokens), nil
}

// evaluate writes the model's weights when they are needed (for the dev
// score, or after the last epoch) and tracks the best epoch.
func (r *run) evaluate(epoch int, pt *learn.Point) bool {
	if r.bestEpoch || epoch == r.epochs {
		r.tr.Result(r.m.W, r.average)
	}
	if r.bestEpoch {
		pt.DevScore = r.p.DevScore(r.m)
		r.best.Consider(epoch, pt.DevScore, r.m.W)
	}
	return false
}
