package learn

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/framework/progress"
)

// Loop is the epoch (or iteration) driver every iterative learner shares:
// it resumes from a checkpoint and replays the learning curve, calls the
// learner's Step, stops on a non-finite loss or weight naming the step,
// records the curve point (log, progress, Problem.Observe), saves
// checkpoints at the Problem's cadence and honours ctx. The learner keeps
// only what is its own: one step, its dev scoring, and its state's
// encoding (whose bytes a checkpoint is made of).
//
// Run drives the whole loop. A learner whose loop lives elsewhere (L-BFGS
// inside framework/optim, which reports iterations through a callback)
// uses the pieces instead: Start, Finite, Record, Checkpoint, Done.
type Loop struct {
	// Name prefixes errors and log messages ("perceptron", "crf").
	Name string
	// Unit names one step in errors and logs ("epoch", "iteration").
	Unit string
	// CurveUnit is what one step is on the learning curve: Record sets
	// every point's Unit to it.
	CurveUnit StepUnit
	// Steps is the number of steps Run makes unless Evaluate stops it
	// first; 0 (only without Run) means the caller decides.
	Steps int
	// Work is the number of progress units in one step, counted as
	// WorkUnit (sentences in an epoch); 0 counts steps ("<Unit>s").
	Work     int
	WorkUnit string
	// LossName is the log field for Point.Loss (default "loss").
	LossName string
	// Hint ends the non-finite error: what the user might change.
	Hint string
	// Fields, when set, adds learner-specific fields to a step's log
	// line (set once, not per step, so that recording allocates nothing
	// of its own).
	Fields func(ev *zerolog.Event)

	// Step runs step k (1-based) and returns its loss. It should call
	// tick every so often (every 1024 sentences, say) with the work done
	// so far in the step: tick updates the progress and returns ctx.Err()
	// once the run is cancelled, which Step then returns.
	Step func(k int, tick func(done int) error) (loss float64, err error)
	// Weights, when set, returns the weights to check after every step.
	Weights func() []float64
	// Evaluate, when set, completes step k's point (its dev score) before
	// it is recorded and reports whether to stop after it (early
	// stopping, convergence).
	Evaluate func(k int, pt *Point) (stop bool)
	// Save encodes the learner's state after step k, curve being the
	// learning curve so far (a checkpoint must hold it for the replay).
	Save func(k int, curve []Point) ([]byte, error)
	// Restore loads a state Save encoded and returns the step it was
	// saved after and the curve up to there.
	Restore func(state []byte) (k int, curve []Point, err error)

	p       *Problem
	ctx     context.Context
	started time.Time
	first   int
	curve   []Point
	bar     *progress.Task
	k       int             // the step Run is in, for tick
	tick    func(int) error // l.progress, bound once
}

// Start prepares a run on p: it resumes from p.Checkpoints.Resume when
// there is one (replaying its curve through p.Observe) and starts the
// progress display. It returns the first step to run. Call Done at the
// end.
func (l *Loop) Start(ctx context.Context, p *Problem) (first int, err error) {
	l.p, l.ctx, l.started, l.first, l.curve = p, ctx, time.Now(), 1, nil
	if cp := p.Checkpoints; cp != nil && cp.Resume != nil {
		k, curve, err := l.Restore(cp.Resume)
		if err != nil {
			return 0, err
		}
		l.first, l.curve = k+1, curve
		if p.Observe != nil {
			for _, pt := range curve {
				p.Observe(pt)
			}
		}
		p.Log.Info().Int(l.Unit, k).Msg(l.Name + " resumed from a checkpoint")
	}
	work, unit := l.Work, l.WorkUnit
	if work == 0 {
		work, unit = 1, l.Unit+"s"
	}
	l.bar = p.Progress.Start(l.Name, int64(l.Steps*work), unit)
	l.tick = l.progress
	return l.first, nil
}

// Done ends the progress display.
func (l *Loop) Done() { l.bar.Done() }

// Curve is the learning curve so far, resumed part included.
func (l *Loop) Curve() []Point { return l.curve }

// Run makes steps Start..Steps, stopping early when Evaluate asks to.
func (l *Loop) Run(ctx context.Context, p *Problem) error {
	first, err := l.Start(ctx, p)
	if err != nil {
		return err
	}
	defer l.Done()
	for k := first; k <= l.Steps; k++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		l.k = k
		loss, err := l.Step(k, l.tick)
		if err != nil {
			return err
		}
		if err := l.Finite(k, "objective", loss); err != nil {
			return err
		}
		pt := Point{Step: k, Loss: loss}
		stop := l.Evaluate != nil && l.Evaluate(k, &pt)
		l.Record(pt)
		if stop {
			return nil
		}
		if cp := p.Checkpoints; cp != nil && cp.Every > 0 && k%cp.Every == 0 && k < l.Steps {
			if err := l.Checkpoint(k); err != nil {
				return err
			}
		}
	}
	return nil
}

// progress is the tick Step gets.
func (l *Loop) progress(done int) error {
	if err := l.ctx.Err(); err != nil {
		return err
	}
	if l.Work > 0 {
		l.bar.Set(int64((l.k-1)*l.Work+done), fmt.Sprintf("%s %d/%d", l.Unit, l.k, l.Steps))
	}
	return nil
}

// Finite returns an error naming step k if v (the step's objective, or
// what is named by what) or any of the Weights is NaN or infinite: going
// on would only spread it, and a model of NaNs looks like a result.
func (l *Loop) Finite(k int, what string, v float64) error {
	if !finite(v) {
		return fmt.Errorf("%s: %s %d produced a non-finite %s (%v); stopped (%s)", l.Name, l.Unit, k, what, v, l.Hint)
	}
	if l.Weights == nil {
		return nil
	}
	for f, w := range l.Weights() {
		if !finite(w) {
			return fmt.Errorf("%s: %s %d made weight %d non-finite (%v); stopped (%s)", l.Name, l.Unit, k, f, w, l.Hint)
		}
	}
	return nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// Record adds pt (with its Elapsed and Unit set) to the learning curve:
// log line, progress, Problem.Observe.
func (l *Loop) Record(pt Point) {
	elapsed := time.Since(l.started)
	pt.Elapsed, pt.Unit = elapsed, l.CurveUnit
	lossName := l.LossName
	if lossName == "" {
		lossName = "loss"
	}
	ev := l.p.Log.Info().Int(l.Unit, pt.Step).Float64(lossName, pt.Loss)
	if pt.DevScore != 0 {
		// As in the curve's JSON (omitempty): a step without a dev
		// score (no dev set, or dev_every skipped it) says nothing of one.
		ev = ev.Float64("dev", pt.DevScore)
	}
	ev = ev.Dur("elapsed", elapsed)
	if l.Steps > 0 {
		perStep := elapsed / time.Duration(pt.Step-l.first+1)
		ev = ev.Int("of", l.Steps).Dur("eta", perStep*time.Duration(l.Steps-pt.Step))
	}
	if l.Fields != nil {
		l.Fields(ev)
	}
	ev.Msg(l.Name + " " + l.Unit)
	done := int64(pt.Step)
	if l.Work > 0 {
		done *= int64(l.Work)
	}
	l.bar.Set(done, fmt.Sprintf("%s %d loss %.6g", l.Unit, pt.Step, pt.Loss))
	if l.p.Observe != nil {
		l.p.Observe(pt)
	}
	l.curve = append(l.curve, pt)
}

// Checkpoint saves the learner's state after step k through
// Problem.Checkpoints (a no-op without them, or without Save).
func (l *Loop) Checkpoint(k int) error {
	cp := l.p.Checkpoints
	if cp == nil || cp.Save == nil {
		return nil
	}
	b, err := l.Save(k, l.curve)
	if err == nil {
		err = cp.Save(b)
	}
	if err != nil {
		return fmt.Errorf("%s: saving the checkpoint after %s %d: %w", l.Name, l.Unit, k, err)
	}
	return nil
}

// Best keeps the step with the best dev score so far and, when asked,
// its weights.
type Best struct {
	Score float64
	At    int
	W     []float64 // nil until a step with kept weights is best
}

// NewBest returns a Best that any dev score beats.
func NewBest() Best { return Best{Score: math.Inf(-1)} }

// Consider records step k's score if it beats the best so far, copying w
// (when not nil) as the best weights; it reports whether it did.
func (b *Best) Consider(k int, score float64, w []float64) bool {
	if !(score > b.Score) {
		return false
	}
	b.Score, b.At = score, k
	if w != nil {
		b.W = append(b.W[:0], w...)
	}
	return true
}

// Restore copies the best weights into dst, if any were kept.
func (b *Best) Restore(dst []float64) {
	if b.W != nil {
		copy(dst, b.W)
	}
}
