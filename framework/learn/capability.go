// This file holds the capabilities only some learner types have, and the
// one place that refuses what a learner cannot train. A learner declares
// a capability by implementing its interface (EncoderLearner, PairLearner,
// OrderLearner, CheckpointLearner); the registry asks every registered
// type, so no list of types is written anywhere else.

package learn

import (
	"context"
	"fmt"
	"strings"
)

// Capability is something only some learner types can do.
type Capability int

const (
	// CanEncoder: train a neural encoder jointly (EncoderLearner).
	CanEncoder Capability = iota + 1
	// CanPairs: train input-conditioned transitions (PairLearner).
	CanPairs
	// CanSecondOrder: train a second-order model (OrderLearner).
	CanSecondOrder
	// CanCheckpoint: save the training state and resume from it
	// (CheckpointLearner).
	CanCheckpoint
	// CanMarginals: make a model whose scores are log-probabilities up to
	// normalization, so that its marginals mean something
	// (ProbabilisticLearner).
	CanMarginals
)

// Of reports whether learner l, as configured, has c: a setting can take
// a capability away (the CRF's hidden_states).
func (c Capability) Of(l Learner) bool {
	switch c {
	case CanEncoder:
		return TrainsEncoder(l)
	case CanPairs:
		return TrainsPairs(l)
	case CanSecondOrder:
		return TrainsSecondOrder(l)
	case CanCheckpoint:
		return SavesCheckpoints(l)
	case CanMarginals:
		pl, ok := l.(ProbabilisticLearner)
		return ok && pl.Probabilistic()
	}
	return false
}

// ProbabilisticLearner is implemented by learners whose model's scores are
// log-probabilities up to normalization (a conditional or a joint model):
// an explanation shows the marginals of their models' labels.
type ProbabilisticLearner interface {
	Probabilistic() bool
}

// CheckpointLearner is implemented by learners that save their training
// state through Problem.Checkpoints and resume from it: those that iterate
// on Loop. The others (the HMM, tnt: counting passes) ignore Checkpoints.
type CheckpointLearner interface {
	SavesCheckpoints() bool
}

// SavesCheckpoints reports whether learner l saves its training state.
func SavesCheckpoints(l Learner) bool {
	cl, ok := l.(CheckpointLearner)
	return ok && cl.SavesCheckpoints()
}

// Noter is implemented by a learner type whose name needs a note where a
// message lists the types that have a capability: a condition (the CRF
// has some only without hidden_states) or a gloss (tnt, the second-order
// HMM). The note is "" for the others.
type Noter interface {
	CapabilityNote(c Capability) string
}

// Able is a learner type that has a capability, as a message lists it.
type Able struct {
	Type string
	// Note is the type's Noter note, "" for none.
	Note string
}

// String is the type with its note in parentheses.
func (a Able) String() string {
	if a.Note == "" {
		return a.Type
	}
	return a.Type + " (" + a.Note + ")"
}

// Able lists the registered types whose learner, with its default
// settings, has c, in registration order (the order the registering
// function presents the types in). A nil registry has none.
func (r *Registry) Able(c Capability) []Able {
	if r == nil {
		return nil
	}
	var out []Able
	for _, name := range r.RegistrationOrder() {
		l, _ := r.New(name)
		if !c.Of(l) {
			continue
		}
		a := Able{Type: name}
		if n, ok := l.(Noter); ok {
			a.Note = n.CapabilityNote(c)
		}
		out = append(out, a)
	}
	return out
}

// TypeHas reports whether the registered type typ has c with its default
// settings: what a reader of a model, which records only its learner's
// type, can know. False for a type not registered, and on a nil registry.
func (r *Registry) TypeHas(typ string, c Capability) bool {
	if r == nil {
		return false
	}
	l, ok := r.New(typ)
	return ok && c.Of(l)
}

// Types are the types of as, without their notes.
func Types(as []Able) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.Type
	}
	return out
}

// Noted are the types of as with their notes.
func Noted(as []Able) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.String()
	}
	return out
}

// Train trains l, a learner of type typ, on p, once Refuse has found
// nothing in p that l cannot train. Every caller trains through it, so a
// learner's Train may assume a Problem it can train.
func (r *Registry) Train(ctx context.Context, typ string, l Learner, p *Problem) (*Result, error) {
	if err := r.Refuse(typ, l, p); err != nil {
		return nil, err
	}
	return l.Train(ctx, p)
}

// Refuse is the error for the first thing p asks that l, a learner of
// type typ, cannot train — an encoder, bigram templates, a second-order
// model — naming the registered types that can; nil when l can train p.
// The spec refuses the same with diagnostics; this is for a Problem built
// some other way.
func (r *Registry) Refuse(typ string, l Learner, p *Problem) error {
	switch {
	case p.Encoder != nil && !TrainsEncoder(l):
		return fmt.Errorf("%s cannot train a neural encoder; use %s", typ, orList(Types(r.Able(CanEncoder))))
	case p.HasPairs() && !TrainsPairs(l):
		return fmt.Errorf("%s cannot train templates with labels = \"bigram\" (input-conditioned transitions); use %s", typ, orList(Noted(r.Able(CanPairs))))
	case p.Order >= 2 && p.Encoder != nil:
		// Joint training takes a first-order model, whatever the learner.
		return refuseSecondOrder(typ+" with an encoder", r)
	case p.Order >= 2 && !TrainsSecondOrder(l):
		return refuseSecondOrder(typ, r)
	}
	return nil
}

func refuseSecondOrder(name string, r *Registry) error {
	return fmt.Errorf("%s cannot train a second-order model (transition order = 2); use %s", name, orList(Noted(r.Able(CanSecondOrder))))
}

// orList joins names as prose: "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
