package crf

import (
	"context"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/framework/learn"
)

// The warm start (warm_start_epochs = N): up to N epochs of SGD on the
// same objective (SGD's own test — relative improvement over period epochs
// below delta — can end it sooner; the epochs run are in the run's info),
// then L-BFGS from their weights with the same stopping rule. An SGD epoch
// costs little next to the L-BFGS iterations it saves: it covers the
// ground that L-BFGS, starting from zero with no curvature, spends many
// iterations on; the objective is convex, so L-BFGS ends at the same
// optimum up to its stopping tolerance (docs/results.md, "Warm start: SGD
// epochs before L-BFGS" and "Measurements behind design choices in the
// code").
//
// SGD's steps, and with batch_size its two lanes and apply ranges, follow
// from the data and the seed alone, so the warm phase is thread-count
// independent, and the L-BFGS phase reduces in a fixed order: the model
// stays byte-identical across --threads. The phase takes no checkpoints and scores no dev set. A
// run resumed from an L-BFGS checkpoint runs it again (seeded, so the same
// epochs, and cheap) although the checkpoint's weights replace its result:
// the run's info, warm_start_loss included, is then that of the run it
// resumes.

// validateWarmStart refuses warm_start_epochs where it makes no sense.
func (l *Learner) validateWarmStart(s settings) hcl.Diagnostics {
	n := l.cfg.WarmStartEpochs
	if n == 0 {
		return nil
	}
	bad := func(detail string) hcl.Diagnostics {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid " + l.form.title() + " setting", Detail: detail}}
	}
	switch {
	case n < 0:
		return bad("warm_start_epochs must be >= 0 (the SGD epochs before L-BFGS; 0 or absent: none)")
	case s.algorithm != "lbfgs":
		return bad(`warm_start_epochs warms L-BFGS up with SGD epochs; with algorithm = "sgd" set max_iterations (the SGD epochs) instead`)
	case l.cfg.HiddenStates > 0:
		return bad(`warm_start_epochs is for the plain CRF: a latent CRF (hidden_states) has its own start, hidden_init`)
	case s.c1 > 0:
		return bad("warm_start_epochs needs c1 = 0: SGD minimizes the L2 objective only, not OWL-QN's L1 one")
	case s.c2 == 0:
		return bad("warm_start_epochs needs c2 > 0: SGD's step schedule is set by c2")
	case l.cfg.Prior == "init_model":
		return bad(`warm_start_epochs cannot take prior = "init_model": SGD's penalty is centred on zero, so it would minimize another objective`)
	}
	return nil
}

// warmStart runs the warm start's SGD epochs on obj, leaving their weights
// in obj.m for L-BFGS; it does nothing without warm_start_epochs.
func (l *Learner) warmStart(ctx context.Context, obj *objective, s settings, p *learn.Problem, info map[string]any) error {
	n := l.cfg.WarmStartEpochs
	if n == 0 {
		return nil
	}
	warm := *p
	warm.Checkpoints, warm.Dev, warm.DevScore, warm.Observe = nil, nil, nil, nil
	ws := s
	// Serial SGD whatever shards says: shards sets L-BFGS's reduction.
	ws.name, ws.algorithm, ws.maxIterations, ws.mixing = s.name+" warm start", "sgd", n, serialSGD
	ws.delta = value(l.cfg.Delta, 1e-6) // SGD's default, as algorithm = "sgd"
	p.Log.Info().Int("epochs", n).Float64("learning_rate", s.eta).Msg(s.name + ": warm start, SGD epochs before L-BFGS")
	warmInfo := map[string]any{}
	if err := trainSGD(ctx, obj, ws, &warm, newEarlyStop(0, -1, &warm, obj.m), warmInfo); err != nil {
		return err
	}
	info["warm_start_epochs"], info["warm_start_loss"] = warmInfo["iterations"], warmInfo["loss"]
	return nil
}
