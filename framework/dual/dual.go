// dual.go holds the problem, its settings and the subgradient solver.

package dual

import (
	"math"

	"github.com/trellis-nlp/trellis/framework/lattice"
)

// Agreement is how strictly a group's sites must take one type: Hard or
// Soft.
type Agreement interface {
	// cost is what a site pays for a type other than its group's.
	cost() float64
}

// Hard agreement: every site of a group takes the group's type.
type Hard struct{}

// Soft agreement: a site may take another type than its group's, at the
// cost of Penalty (in the lattice's score units; ≥ 0).
type Soft struct{ Penalty float64 }

func (Hard) cost() float64   { return math.Inf(1) }
func (s Soft) cost() float64 { return s.Penalty }

var (
	_ Agreement = Hard{}
	_ Agreement = Soft{}
)

// Defaults of Settings.
const (
	DefaultIterations = 200
	DefaultStep       = 1.0
)

// Settings are the solver's: input only.
type Settings struct {
	// Agreement is Hard when nil.
	Agreement Agreement
	// Iterations is the most subgradient steps per problem; 0 means
	// DefaultIterations.
	Iterations int
	// Step is the first step size, in score units; 0 means DefaultStep.
	Step float64
}

// Site is a token of a problem: position Position of sentence Sentence.
type Site struct{ Sentence, Position int }

// Limit bounds the spans of one type in every sentence of a problem.
type Limit struct {
	// Starts is an [L] slice whose element [s] is whether state s begins
	// a span of the type.
	Starts []bool
	// Min is the fewest spans (0: no lower bound); Max the most (< 0: no
	// upper bound).
	Min, Max int
}

// Problem is one joint decoding. The solver reads every field and changes
// only the lattices' State entries, which it restores before it returns.
type Problem struct {
	// Lattices are the sentences, scored; each must own its State.
	Lattices []*lattice.Scores
	// Types is an [L] slice whose element [s] is the type of state s, in
	// [0, NumTypes).
	Types    []int32
	NumTypes int
	// Groups are the sites that must agree on a type, each a list of
	// sites of any sentences.
	Groups [][]Site
	// Limits hold in every sentence.
	Limits []Limit
}

// Result is how a Solve ended.
type Result struct {
	// Iterations is the subgradient steps taken (0 when the sentences'
	// own best paths already satisfy every constraint).
	Iterations int
	// Certified is whether the labelling is provably the joint optimum.
	Certified bool
}

// Decoder writes the best path of s into dst (length s.N) and returns its
// score. s is the solver's copy of a lattice: the decoder may change what
// it points at (lattice.Relaxation does), never the slices' contents.
type Decoder func(dst []int32, s *lattice.Scores) float64

// Solver solves Problems with one Decoder. Its buffers grow to the largest
// problem and are reused, so a warm solver allocates nothing. It is not
// safe for concurrent use.
type Solver struct {
	decode Decoder
	set    Settings
	cost   float64 // the agreement's cost per disagreeing site
	st     state
	// lat is the copy of a lattice's header the decoder gets (a field, so
	// that passing it to a func value does not allocate).
	lat lattice.Scores
}

// NewSolver returns a solver that decodes each sentence with decode.
func NewSolver(decode Decoder, s Settings) *Solver {
	if s.Agreement == nil {
		s.Agreement = Hard{}
	}
	if s.Iterations == 0 {
		s.Iterations = DefaultIterations
	}
	if s.Step == 0 {
		s.Step = DefaultStep
	}
	return &Solver{decode: decode, set: s, cost: s.Agreement.cost()}
}

// Solve writes the labelling it finds into dst ([k] is the state path of
// sentence k, length Lattices[k].N) and says how it ended.
func (sv *Solver) Solve(dst [][]int32, p *Problem) Result {
	st := &sv.st
	st.reset(p, sv.cost)
	for k, lat := range p.Lattices {
		st.score[k] = sv.decodeOne(dst[k], lat)
	}
	if len(st.occ) == 0 && len(p.Limits) == 0 {
		return Result{Certified: true}
	}
	st.saveBase()
	defer st.restoreBase()
	prevDual, rises := math.Inf(1), 0
	for t := 0; ; t++ {
		dual := st.evaluate(dst)
		if st.certified() {
			return Result{Iterations: t, Certified: true}
		}
		st.keepIfBest(dst)
		if t == sv.set.Iterations {
			st.bestInto(dst)
			return Result{Iterations: t}
		}
		if dual > prevDual {
			rises++
		}
		prevDual = dual
		st.step(sv.set.Step / float64(1+rises))
		for k, lat := range p.Lattices {
			if st.dirty[k] {
				st.apply(k)
				st.score[k] = sv.decodeOne(dst[k], lat)
				st.dirty[k] = false
			}
		}
	}
}

// decodeOne decodes lat through a copy of its header.
func (sv *Solver) decodeOne(dst []int32, lat *lattice.Scores) float64 {
	sv.lat = *lat
	return sv.decode(dst, &sv.lat)
}
