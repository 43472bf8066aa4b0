// Package crf is the linear-chain conditional random field learner: it
// minimizes the negative conditional log-likelihood of the gold label
// sequences plus an elastic-net penalty, c1·‖w‖₁ + c2·‖w‖², with the
// gradient from the shared forward-backward core.
//
// Optimizers: L-BFGS (the default; OWL-QN when c1 > 0) from
// framework/optim, or SGD with a decaying step (CRFsuite's l2sgd). The
// regularization constants mean what they mean in CRFsuite, so settings
// carry over. warm_start_epochs = N runs up to N SGD epochs before
// L-BFGS (warm.go): the same optimum in fewer L-BFGS iterations.
//
// hidden_states = k makes it the latent-variable CRF (latent.go): each
// label owns k hidden states, and the likelihood of the gold labels sums
// over every state path that carries them.
//
// shards = S means two things. For L-BFGS and OWL-QN it is the order of
// the gradient's sum: the sentences are cut into S fixed contiguous shards
// (by tokens), each shard's loss and expected counts are computed alone
// and added in shard order (default DefaultShards, 16), so a given S gives
// the same bytes on any number of threads, and a distributed driver that
// has shards computed elsewhere (Gradient.Shard) and adds them with
// ShardSum gets them too; S = 1 is the plain serial sum. For SGD, S ≥ 2
// is another algorithm: parameter mixing (mixsgd.go), each epoch one SGD
// epoch per shard from the mixed weights, then their average; unset or 1
// is serial SGD. The warm start's SGD is serial whatever S is. More
// shards than training sentences is an error (learn.ErrTooManyShards).
package crf

import (
	"cmp"
	"context"
	"fmt"
	"math"

	"github.com/hashicorp/hcl/v2"
	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/learn/joint"
	"github.com/trellis-nlp/trellis/framework/learn/online"
	"github.com/trellis-nlp/trellis/framework/linear"
	"github.com/trellis-nlp/trellis/framework/optim"
)

// Config is the crf learner block. Zero values take CRFsuite's defaults.
// Its parts are separate structs so that maxent's and the MEMM's block,
// LocalConfig, holds all but Latent; they keep the settings' order in the
// model header.
type Config struct {
	Training
	Latent
	Speedups
}

// LocalConfig is the maxent and memm block: Config without Latent, which
// only the chain form takes. It points into the Learner's Config.
type LocalConfig struct {
	*Training
	*Speedups
}

// Training holds the objective's and the optimizers' settings.
type Training struct {
	// Algorithm is "lbfgs" (default) or "sgd".
	Algorithm string `hcl:"algorithm,optional" json:"algorithm,omitempty"`
	// C1 is the L1 coefficient (OWL-QN when > 0; default 0).
	C1 *float64 `hcl:"c1,optional" json:"c1,omitempty"`
	// C2 is the L2 coefficient (default 1).
	C2 *float64 `hcl:"c2,optional" json:"c2,omitempty"`
	// MaxIterations bounds L-BFGS iterations or SGD epochs (default:
	// unlimited for L-BFGS, 50 epochs for SGD).
	MaxIterations int `hcl:"max_iterations,optional" json:"max_iterations,omitempty"`
	// Stopping: gradient norm (epsilon, L-BFGS) and relative improvement
	// of the objective over period iterations below delta.
	Epsilon *float64 `hcl:"epsilon,optional" json:"epsilon,omitempty"`
	Period  int      `hcl:"period,optional" json:"period,omitempty"`
	Delta   *float64 `hcl:"delta,optional" json:"delta,omitempty"`
	// Memory is the number of L-BFGS correction pairs (default 6).
	Memory int `hcl:"memory,optional" json:"memory,omitempty"`
	// Patience, when > 0 and the spec has a dev corpus, stops after that
	// many iterations without a better dev score and keeps the best.
	Patience int `hcl:"patience,optional" json:"patience,omitempty"`
	// DevEvery scores the dev corpus every that many iterations for the
	// learning curve (default 1; -1 never, unless patience needs it).
	DevEvery int `hcl:"dev_every,optional" json:"dev_every,omitempty"`
	// LearningRate is SGD's initial step η0 (default 0.1); the step
	// decays as η0 / (1 + λ·η0·t).
	LearningRate *float64 `hcl:"learning_rate,optional" json:"learning_rate,omitempty"`
	// Features is "observed" (default, as CRFsuite) or "all".
	Features string `hcl:"features,optional" json:"features,omitempty"`
	// InitModel is the path of a trained model to continue training from
	// (see online.Config; resolved by the spec against its folder); "" trains from zero.
	InitModel string `hcl:"init_model,optional" json:"init_model,omitempty"`
	// Prior is the centre of the L2 penalty: "zero" (default) penalizes
	// c2·‖w‖²; "init_model" penalizes c2·‖w − w₀‖², w₀ the weights of
	// init_model (new features 0), so that continuing on new data stays
	// near the model instead of forgetting the data it was trained on
	// (Chelba & Acero 2004). L-BFGS only. For a latent CRF split from the
	// plain one, "split" penalizes c2·‖w − w₀‖², w₀ the plain CRF's weights
	// copied to each state: a state pays for how far it departs from its
	// label, not for the label's weights themselves (see latent.go).
	Prior string `hcl:"prior,optional" json:"prior,omitempty"`
	// Shards is the number of fixed shards the training sentences are cut
	// into (0: unset). For L-BFGS and OWL-QN it is the gradient's
	// reduction order (default DefaultShards): the shards' sums are added
	// in shard order, so a given count gives the same bytes on any number
	// of threads or machines. For SGD, 2 or more trains by parameter
	// mixing (mixsgd.go), another algorithm than serial SGD; 0 or 1 is
	// serial SGD.
	Shards int `hcl:"shards,optional" json:"shards,omitempty"`
}

// Latent holds the latent CRF's settings (latent.go): crf only.
type Latent struct {
	// HiddenStates, when 2 or more, trains a latent-variable CRF
	// (latent.go): each label owns that many hidden states. crf only.
	HiddenStates int `hcl:"hidden_states,optional" json:"hidden_states,omitempty"`
	// HiddenInit is where the latent CRF starts: "split" (default) trains
	// the plain CRF first and splits each label's weights into its states
	// with small seeded perturbations; "random" starts from small seeded
	// random weights. crf with hidden_states only.
	HiddenInit string `hcl:"hidden_init,optional" json:"hidden_init,omitempty"`
	// HiddenIterations, when > 0, bounds the latent model's L-BFGS
	// iterations (those after the split) in place of MaxIterations, which
	// still bounds the plain CRF's before it. crf with hidden_states only.
	HiddenIterations int `hcl:"hidden_iterations,optional" json:"hidden_iterations,omitempty"`
}

// Speedups holds changes of arithmetic that train faster, off by default.
type Speedups struct {
	// WarmStartEpochs, when > 0, runs that many SGD epochs at most (as
	// algorithm = "sgd", same objective, seed, learning_rate and stopping
	// test over period epochs, which can end it sooner) before L-BFGS, which
	// then starts from their weights with the same stopping rule: fewer
	// L-BFGS iterations for the same optimum (warm.go). A change of
	// arithmetic, so off by default. L-BFGS with c2 > 0 and no c1 only.
	WarmStartEpochs int `hcl:"warm_start_epochs,optional" json:"warm_start_epochs,omitempty"`
	// HistoryPrecision is "float64" (default) or "float32": the precision
	// in which L-BFGS keeps its memory correction pairs. float32 halves
	// their memory (plus two float64 vectors: the line search's start), so
	// memory = 10 costs what 6 do in float64; a change of arithmetic, so
	// off by default (optim.Settings.Float32History).
	// L-BFGS without c1 only.
	HistoryPrecision string `hcl:"history_precision,optional" json:"history_precision,omitempty"`
	// BatchSize is the number of sentences per SGD step (algorithm =
	// "sgd" and the warm start; default 1, CRFsuite's l2sgd). From 2 on,
	// a step's gradients are taken at the same weights, so two threads
	// share them (sgd.go); a change of arithmetic.
	BatchSize int `hcl:"batch_size,optional" json:"batch_size,omitempty"`
}

// Form is the probability model a Learner fits. The forms share the
// optimizers, the regularizers, every setting and the checkpoints; only
// the objective's normalization differs.
type Form int

const (
	// Chain is the linear-chain CRF: one distribution over whole label
	// sequences, normalized globally (log Z by forward-backward).
	Chain Form = iota
	// PerToken is maximum entropy (multinomial logistic regression): each
	// token's label on its own, P(y_i | x), from the state features only;
	// transition templates are ignored. Decoding is per-token argmax, or,
	// under a constrained scheme, the best sequence the scheme allows
	// (Viterbi with zero transition scores).
	PerToken
	// Local is the MEMM: P(y_i | y_(i-1), x), a softmax over y_i for each
	// previous label (the start for i = 0), trained on the gold previous
	// labels; the model is marked locally normalized (linear.Model.Local).
	Local
)

// String is the learner type name of the form.
func (f Form) String() string {
	switch f {
	case PerToken:
		return "maxent"
	case Local:
		return "memm"
	}
	return "crf"
}

// title names the form in diagnostics.
func (f Form) title() string {
	switch f {
	case PerToken:
		return "maxent"
	case Local:
		return "MEMM"
	}
	return "CRF"
}

// Learner is the CRF learner, or, with another Form, maxent or the MEMM.
type Learner struct {
	cfg  Config
	form Form
}

var (
	_ learn.Learner           = (*Learner)(nil)
	_ learn.PairLearner       = (*Learner)(nil)
	_ learn.OrderLearner      = (*Learner)(nil)
	_ learn.EncoderLearner    = (*Learner)(nil)
	_ learn.CheckpointLearner = (*Learner)(nil)
	_ learn.Noter             = (*Learner)(nil)

	_ learn.ProbabilisticLearner = (*Learner)(nil)
)

// New returns a CRF learner with default settings.
func New() learn.Learner { return &Learner{} }

// NewForm returns a learner of form f with default settings (the maxent
// and memm packages register these).
func NewForm(f Form) *Learner { return &Learner{form: f} }

// Config implements learn.Learner: a *Config for the CRF, a *LocalConfig
// (the same memory) for maxent and the MEMM.
func (l *Learner) Config() any {
	if l.form == Chain {
		return &l.cfg
	}
	return &LocalConfig{&l.cfg.Training, &l.cfg.Speedups}
}

func value(p *float64, def float64) float64 {
	if p == nil {
		return def
	}
	return *p
}

type settings struct {
	name                string // the learner type, for logs and errors
	algorithm           string
	c1, c2              float64
	maxIterations       int
	epsilon, delta, eta float64
	period, memory      int
	float32History      bool
	batch               int // SGD's sentences per step
	// shards is the shards setting as written (0: unset); gradientShards
	// is the count the gradient is reduced in.
	shards int
	// mixing is how SGD's epochs run: serially, or by parameter mixing
	// over the shards (shards ≥ 2).
	mixing sgdMode
}

// sgdMode is how SGD's epochs run.
type sgdMode int

const (
	// serialSGD walks all the sentences in one shuffled order.
	serialSGD sgdMode = iota
	// mixedSGD walks each shard from the mixed weights and averages
	// (mixsgd.go); the tests also ask for it with one shard.
	mixedSGD
)

// ShardCount implements learn.Sharded (Config and LocalConfig embed
// Training).
func (t *Training) ShardCount() int { return t.Shards }

var (
	_ learn.Sharded = (*Config)(nil)
	_ learn.Sharded = (*LocalConfig)(nil)
)

// gradientShards is the number of shards the objective's gradient is
// summed in: the setting, or DefaultShards.
func (s settings) gradientShards() int {
	if s.shards > 0 {
		return s.shards
	}
	return DefaultShards
}

func (l *Learner) settings() settings {
	s := settings{
		name: l.form.String(), algorithm: l.cfg.Algorithm, c1: value(l.cfg.C1, 0), c2: value(l.cfg.C2, 1),
		maxIterations: l.cfg.MaxIterations, epsilon: value(l.cfg.Epsilon, 1e-5),
		delta: value(l.cfg.Delta, 1e-5), period: l.cfg.Period, memory: l.cfg.Memory,
		eta: value(l.cfg.LearningRate, 0.1), float32History: l.cfg.HistoryPrecision == "float32",
		batch: max(l.cfg.BatchSize, 1), shards: l.cfg.Shards,
	}
	if s.algorithm == "" {
		s.algorithm = "lbfgs"
	}
	if s.period == 0 {
		s.period = 10
	}
	if s.memory == 0 {
		s.memory = 6
	}
	if s.algorithm == "sgd" {
		if s.shards >= 2 {
			s.mixing = mixedSGD
		}
		if s.maxIterations == 0 {
			s.maxIterations = 50
		}
		if l.cfg.Delta == nil {
			s.delta = 1e-6
		}
	}
	return s
}

// Validate implements learn.Learner.
func (l *Learner) Validate() hcl.Diagnostics {
	var diags hcl.Diagnostics
	bad := func(summary, format string, args ...any) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(format, args...)})
	}
	s := l.settings()
	switch s.algorithm {
	case "lbfgs", "sgd":
	default:
		bad("Invalid "+l.form.title()+" algorithm", `algorithm must be "lbfgs" or "sgd", got %q`, s.algorithm)
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"c1", s.c1}, {"c2", s.c2}, {"epsilon", s.epsilon}} {
		if !(c.v >= 0) || math.IsInf(c.v, 0) {
			bad("Invalid "+l.form.title()+" setting", "%s must be a finite number >= 0, got %v", c.name, c.v)
		}
	}
	if s.algorithm == "sgd" && s.c1 > 0 {
		bad("Invalid "+l.form.title()+" setting", "c1 (L1) needs algorithm = \"lbfgs\" (OWL-QN); SGD supports L2 only")
	}
	if s.algorithm == "sgd" && s.c2 == 0 {
		bad("Invalid "+l.form.title()+" setting", "SGD's step schedule needs c2 > 0")
	}
	if !(s.eta > 0) || math.IsInf(s.eta, 0) {
		bad("Invalid "+l.form.title()+" setting", "learning_rate must be > 0, got %v", s.eta)
	}
	if math.IsNaN(s.delta) {
		bad("Invalid "+l.form.title()+" setting", "delta must be a number")
	}
	if l.cfg.MaxIterations < 0 || l.cfg.Period < 0 || l.cfg.Memory < 0 || l.cfg.Patience < 0 || l.cfg.HiddenIterations < 0 {
		bad("Invalid "+l.form.title()+" setting", "max_iterations, period, memory, patience and hidden_iterations must be >= 0")
	}
	switch l.cfg.Prior {
	case "", "zero":
	case "init_model":
		if l.cfg.InitModel == "" || s.algorithm == "sgd" {
			bad("Invalid "+l.form.title()+" setting", `prior = "init_model" needs init_model and algorithm = "lbfgs"`)
		}
	case priorSplit:
		if l.cfg.HiddenStates == 0 || l.cfg.HiddenInit == initRandom {
			bad("Invalid "+l.form.title()+" setting", `prior = "split" needs hidden_states and hidden_init = "split" (the default): it centres the penalty on the split plain CRF`)
		}
	default:
		bad("Invalid "+l.form.title()+" setting", `prior must be "zero", "init_model" or "split", got %q`, l.cfg.Prior)
	}
	switch {
	case l.cfg.BatchSize < 0:
		bad("Invalid "+l.form.title()+" setting", "batch_size must be >= 1 (sentences per SGD step), got %d", l.cfg.BatchSize)
	case l.cfg.BatchSize > 0 && s.algorithm != "sgd" && l.cfg.WarmStartEpochs == 0:
		bad("Invalid "+l.form.title()+" setting", `batch_size is SGD's: it needs algorithm = "sgd" or warm_start_epochs`)
	}
	switch l.cfg.HistoryPrecision {
	case "", "float64":
	case "float32":
		if s.algorithm != "lbfgs" || s.c1 > 0 {
			bad("Invalid "+l.form.title()+" setting", `history_precision = "float32" is for L-BFGS's correction pairs: it needs algorithm = "lbfgs" and c1 = 0 (OWL-QN keeps float64 pairs)`)
		}
	default:
		bad("Invalid "+l.form.title()+" setting", `history_precision must be "float64" or "float32", got %q`, l.cfg.HistoryPrecision)
	}
	if l.cfg.Shards < 0 || l.cfg.Shards > online.MaxShards {
		// The detail begins with the setting's name: the spec places the
		// diagnostic at it.
		bad("Invalid shards", "shards must be between 0 and %d (0: the default, %d for L-BFGS, serial SGD), got %d", online.MaxShards, DefaultShards, l.cfg.Shards)
	}
	if l.cfg.DevEvery < -1 {
		bad("Invalid "+l.form.title()+" setting", "dev_every must be >= 1, or -1 for never")
	}
	diags = append(diags, learn.ValidateFeatures(l.cfg.Features)...)
	diags = append(diags, l.validateLatent(s)...)
	diags = append(diags, l.validateHiddenInit()...)
	diags = append(diags, l.validateWarmStart(s)...)
	return diags
}

// Train implements learn.Learner.
func (l *Learner) Train(ctx context.Context, p *learn.Problem) (*learn.Result, error) {
	s := l.settings()
	if p.Encoder != nil {
		return l.trainEncoder(ctx, p, s)
	}
	p, m, sents, err := l.start(p, s)
	if err != nil {
		return nil, err
	}
	info := map[string]any{}
	var centre []float64 // prior = "split": the split point
	if l.cfg.HiddenStates > 1 {
		if m, centre, err = l.startLatent(ctx, m, p, sents, s, info); err != nil {
			return nil, err
		}
		if l.cfg.HiddenIterations > 0 {
			s.maxIterations = l.cfg.HiddenIterations
		}
	}
	obj := newShardedObjective(m, p.Train, sents, l.form.objective(p), s.c2, layout{s.gradientShards(), p.Threads})
	if l.cfg.Prior == "init_model" && p.Init != nil {
		obj.prior = append([]float64(nil), m.W...) // the continued weights on this structure
	}
	if l.cfg.Prior == priorSplit {
		obj.prior = centre
	}
	ev := p.Log.Info().Int("features", m.NumFeatures()).Int("labels", m.NumOutputLabels())
	if m.HiddenStates > 1 {
		ev = ev.Int("hidden_states", m.HiddenStates)
	}
	ev.Int("threads", obj.threads).Str("algorithm", s.algorithm).Float64("c1", s.c1).Float64("c2", s.c2).Msg(s.name + " training")
	info["features"], info["algorithm"], info["c1"], info["c2"] = m.NumFeatures(), s.algorithm, s.c1, s.c2
	if m.HiddenStates > 1 {
		info["hidden_states"] = m.HiddenStates
		info["hidden_init"] = cmp.Or(l.cfg.HiddenInit, initSplit)
	}
	es := newEarlyStop(l.cfg.Patience, l.cfg.DevEvery, p, m)
	switch {
	case s.algorithm == "sgd":
		err = trainSGD(ctx, obj, s, p, es, info)
	default:
		if err = l.warmStart(ctx, obj, s, p, info); err == nil {
			err = trainLBFGS(ctx, obj, s, p, es, info)
		}
	}
	if err != nil {
		return nil, err
	}
	if es.active() {
		es.best.Restore(m.W)
		info["best_iteration"] = es.best.At
		info["best_dev_score"] = es.best.Score
	}
	return &learn.Result{Model: m, Info: info}, nil
}

// start is what training l on p starts from: the problem as the form
// sees it, the model (zero, or the continued one) and the sentences it
// can use, of which there must be shards enough.
func (l *Learner) start(p *learn.Problem, s settings) (*learn.Problem, *linear.Model, []int, error) {
	p = l.problem(p)
	m, err := learn.StartModel(l.cfg.Features, p)
	if err != nil {
		return nil, nil, nil, err
	}
	m.Local = l.form == Local && p.Transitions
	sents, err := learn.CompleteSentences(p, s.name)
	if err != nil {
		return nil, nil, nil, err
	}
	if s.shards > len(sents) {
		return nil, nil, nil, fmt.Errorf("%s: %w", s.name, learn.TooManyShards(s.shards, len(sents)))
	}
	return p, m, sents, nil
}

// trainEncoder trains p's neural encoder with the model (package joint):
// the CRF form makes a BiLSTM-CRF, maxent a BiLSTM-softmax. c2 and
// features mean what they mean without an encoder; the encoder block
// has the rest of the training's settings.
func (l *Learner) trainEncoder(ctx context.Context, p *learn.Problem, s settings) (*learn.Result, error) {
	p = l.problem(p)
	m, err := l.encoderStart(ctx, p)
	if err != nil {
		return nil, err
	}
	out := joint.CRF
	if l.form == PerToken {
		out = joint.Softmax
	}
	p.Log.Info().Int("features", m.NumFeatures()).Int("labels", m.NumOutputLabels()).Int("parameters", p.Encoder.Net.Enc.Params.Size()).
		Str("output", map[joint.Output]string{joint.CRF: "crf", joint.Softmax: "softmax"}[out]).Msg(s.name + " training with an encoder")
	return joint.Train(ctx, p, m, out, joint.Settings{C2: s.c2})
}

// encoderStart is the linear model a joint training starts from: the
// learner's start (learn.StartModel), or, with the encoder's sparse_first
// and templates to train, the learner trained on them alone — without the
// encoder, its dev scores, curve or checkpoints, which are the joint
// training's.
func (l *Learner) encoderStart(ctx context.Context, p *learn.Problem) (*linear.Model, error) {
	if !p.Encoder.Net.Config.SparseFirst || p.NumAttrs == 0 {
		return learn.StartModel(l.cfg.Features, p)
	}
	q := *p
	q.Encoder, q.Dev, q.DevScore, q.Observe, q.Checkpoints = nil, nil, nil, nil, nil
	p.Log.Info().Msg(l.form.String() + ": training the templates' weights alone first (sparse_first)")
	res, err := l.Train(ctx, &q)
	if err != nil {
		return nil, err
	}
	return res.Model, nil
}

// TrainsEncoder implements learn.EncoderLearner: the CRF without hidden
// states (a BiLSTM-CRF) and maxent (a BiLSTM-softmax) do.
func (l *Learner) TrainsEncoder() bool {
	return l.form == PerToken || l.form == Chain && l.cfg.HiddenStates < 2
}

// EncoderSettings implements learn.EncoderLearner.
func (l *Learner) EncoderSettings() []string { return []string{"c2", "features"} }

// EncoderModel implements learn.EncoderLearner.
func (l *Learner) EncoderModel() string {
	if l.form == PerToken {
		return "a BiLSTM-softmax"
	}
	return "a BiLSTM-CRF"
}

// TrainsPairs implements learn.PairLearner: the CRF trains
// input-conditioned transitions; maxent has no transitions, the MEMM's
// per-position normalizers take Scores.TransAt for themselves, and the
// latent CRF's objective (its clamped pass) has no pair features.
func (l *Learner) TrainsPairs() bool { return l.form == Chain && l.cfg.HiddenStates < 2 }

// TrainsSecondOrder implements learn.OrderLearner: the CRF without hidden
// states does.
func (l *Learner) TrainsSecondOrder() bool { return l.form == Chain && l.cfg.HiddenStates < 2 }

// Probabilistic implements learn.ProbabilisticLearner: the CRF is a
// conditional model of the label sequence. Maxent and the MEMM are
// conditional models too, but explanations have never shown their
// marginals; they do not declare it (yet), so explanations stay the same.
func (l *Learner) Probabilistic() bool { return l.form == Chain }

// SavesCheckpoints implements learn.CheckpointLearner: every form
// iterates on learn.Loop.
func (*Learner) SavesCheckpoints() bool { return true }

// CapabilityNote implements learn.Noter: hidden_states takes these
// capabilities from the CRF type.
func (l *Learner) CapabilityNote(c learn.Capability) string {
	switch c {
	case learn.CanEncoder, learn.CanPairs, learn.CanSecondOrder:
		if l.form == Chain {
			return "without hidden_states"
		}
	}
	return ""
}

// problem is p as the form sees it: maxent drops the transitions, with a
// warning that says so; an MEMM without a transition template is maxent,
// which the log says too.
func (l *Learner) problem(p *learn.Problem) *learn.Problem {
	switch {
	case l.form == PerToken && p.Transitions:
		p.Log.Warn().Msg("maxent ignores the spec's transition template: a per-token classifier has no label transitions " +
			"(decoding takes each token's best label, or under a constrained scheme the best sequence it allows)")
		q := *p
		q.Transitions = false
		return &q
	case l.form == Local && !p.Transitions:
		p.Log.Warn().Msg("memm without a transition template conditions on no previous label: it is maxent")
	}
	return p
}

// trainLBFGS runs L-BFGS (OWL-QN when c1 > 0). Its loop is the
// minimizer's, so the shared learn.Loop is driven from the minimizer's
// callbacks: each accepted iteration is checked and recorded, and the
// minimizer's checkpoints are saved through it.
func trainLBFGS(ctx context.Context, obj *objective, s settings, p *learn.Problem, es *earlyStop, info map[string]any) error {
	m := obj.m
	opt := optim.Settings{
		Memory: s.memory, L1: s.c1, Epsilon: s.epsilon, Past: s.period, Delta: s.delta,
		MaxIterations: s.maxIterations, Float32History: s.float32History,
	}
	var it optim.Iteration // the last iteration, for the log line
	var saving *optim.State
	unit := learn.LBFGSIteration
	if opt.L1 > 0 {
		unit = learn.OWLQNIteration
	}
	loop := &learn.Loop{
		Name: s.name, Unit: "iteration", CurveUnit: unit, Steps: s.maxIterations, Hint: "are some attribute values huge?",
		Fields: func(ev *zerolog.Event) { ev.Float64("gnorm", it.GNorm).Int("evaluations", it.Evaluations) },
		Save: func(_ int, curve []learn.Point) ([]byte, error) {
			return encodeState(&state{Algorithm: "lbfgs", Opt: saving, Best: es.best.Score, BestAt: es.best.At, BestW: es.best.W, Curve: curve})
		},
		Restore: func(b []byte) (int, []learn.Point, error) {
			st, err := decodeState(b, "lbfgs", len(m.W))
			if err != nil {
				return 0, nil, err
			}
			opt.Resume = st.Opt
			es.restoreState(st)
			return st.Opt.K, st.Curve, nil
		},
	}
	if _, err := loop.Start(ctx, p); err != nil {
		return err
	}
	defer loop.Done()
	if cp := p.Checkpoints; cp != nil {
		opt.CheckpointEvery = cp.Every
		opt.Checkpoint = func(st *optim.State) error {
			saving = st
			return loop.Checkpoint(st.K)
		}
	}
	var stopped error // why the callback stopped the minimizer, if it failed
	opt.Callback = func(i optim.Iteration) bool {
		it = i
		if stopped = loop.Finite(i.K, "objective", i.F); stopped == nil {
			stopped = loop.Finite(i.K, "gradient norm", i.GNorm)
		}
		if stopped != nil {
			return true
		}
		pt := learn.Point{Step: i.K, Loss: i.F}
		stop := es.observe(i.K, i.X, &pt)
		loop.Record(pt)
		return stop
	}
	eval, err := newEvaluator(ctx, obj, s, p)
	if err != nil {
		return err
	}
	res, err := optim.Minimize(eval.ctx, m.W, eval.evaluate, opt)
	if err = eval.close(err); err != nil {
		return err
	}
	if stopped != nil {
		return stopped
	}
	active := 0
	for _, w := range m.W {
		if w != 0 {
			active++
		}
	}
	p.Log.Info().Int("iterations", res.Iterations).Int("evaluations", res.Evaluations).Float64("loss", res.F).
		Str("status", res.Status.String()).Int("active_features", active).Msg(s.name + " trained")
	info["iterations"], info["evaluations"], info["loss"], info["status"] = res.Iterations, res.Evaluations, res.F, res.Status.String()
	info["active_features"] = active
	return nil
}

// earlyStop tracks the dev score for the patience setting.
type earlyStop struct {
	patience int
	every    int
	p        *learn.Problem
	m        *linear.Model
	trial    *linear.Model
	best     learn.Best
}

func newEarlyStop(patience, every int, p *learn.Problem, m *linear.Model) *earlyStop {
	if every == 0 || patience > 0 {
		every = 1
	}
	es := &earlyStop{patience: patience, every: every, p: p, m: m, best: learn.NewBest()}
	if p.DevScore != nil {
		es.trial = m.WithWeights(make([]float64, len(m.W)))
	}
	return es
}

func (es *earlyStop) active() bool { return es.patience > 0 && es.p.DevScore != nil }

// observe scores x on dev (for the learning curve, whenever there is a dev
// corpus) and reports whether to stop.
func (es *earlyStop) observe(k int, x []float64, pt *learn.Point) bool {
	if es.p.DevScore == nil || es.every < 0 || k%es.every != 0 {
		return false
	}
	copy(es.trial.W, x)
	pt.DevScore = es.p.DevScore(es.trial)
	keep := x
	if !es.active() {
		keep = nil // only patience restores the best weights
	}
	es.best.Consider(k, pt.DevScore, keep)
	es.p.Log.Debug().Int("iteration", k).Float64("dev", pt.DevScore).Float64("best", es.best.Score).Msg("crf dev score")
	return es.active() && k-es.best.At >= es.patience
}

// InitModel implements learn.Continuer. Only the weights are continued:
// a model file holds no optimizer state, so L-BFGS starts afresh from
// them (an empty curvature history, its first step a scaled gradient
// step) on the new data's objective.
func (l *Learner) InitModel() string { return l.cfg.InitModel }

var _ learn.Continuer = (*Learner)(nil)
