// Package transition is the search of transition-based labeling: labels
// are assigned left to right, and a label's score may read every decision
// before it (the history features of a decisions template, Layout). It is
// shared by training (framework/learn/transition) and tagging
// (framework/tagger, and dev scoring in framework/run), so a model is
// searched the same way wherever it is used.
//
// What it shares with the lattice core: the static scores of a sentence
// (lattice.Scores as linear.Scorer fills them: state scores, transitions,
// start and stop, -Inf where the scheme's constraints forbid a bigram).
// What it does not: the search. With history features the best sequence
// is no longer a shortest path over labels, so Viterbi does not apply;
// greedy (width 1) or beam search (width B) keeps B partial sequences,
// each with its own history, and is exact only when B reaches the number
// of distinct histories.
package transition

import (
	"math"
	"slices"

	"github.com/trellis-nlp/trellis/framework/lattice"
)

// Sentence is one sentence to search.
type Sentence struct {
	// Scores are the static scores: State an [N][L] matrix whose element
	// [i][y] is the state score of label y at token i; Trans (an [L][L]
	// matrix, [prev][cur]), Start and Stop, -Inf where forbidden. TransAt
	// must be nil (a transition model has no pair features).
	Scores *lattice.Scores
	// History is an [H][L] matrix (H = Layout.H()) whose element h*L+y is
	// the weight of history attribute h with label y; nil when H is 0.
	History []float64
	// Context is what the history features read beside the labels.
	Context Context
}

// item is one partial sequence of the beam: its score, and where its
// labels are (labs).
type item struct {
	score float64
	// parent is the item of the previous step it extends; label is the
	// label it adds.
	parent, label int32
}

// Search is a greedy (width 1) or beam search over one layout. It holds
// its buffers, so searching allocates nothing once they have grown to the
// longest sentence; it is not safe for concurrent use.
type Search struct {
	lay   *Layout
	width int
	// act is the active history attributes of one position; cand an
	// [L] vector of one item's candidate scores.
	act  []int32
	cand []float64
	// items and next are the beam before and after a step; labs and
	// nextLabs their labels, an [width][n] matrix whose row k holds item
	// k's labels so far (copied from its parent at each step: the history
	// the features read).
	items, next    []item
	labs, nextLabs []int32
	n, pos         int
	// relaxed is set for a step at which every extension is forbidden:
	// forbidden transitions then score 0, so the search still ends (as
	// lattice.Relaxation loosens a lattice without an allowed path).
	relaxed bool
}

// New returns a search of width ≥ 1 (1 is greedy) with the history
// features of lay (nil: transitions only).
func New(lay *Layout, width int) *Search {
	if width < 1 {
		panic("transition: search width below 1")
	}
	return &Search{lay: lay, width: width}
}

// Width is the beam width.
func (s *Search) Width() int { return s.width }

// Layout is the search's history layout (nil without history features).
func (s *Search) Layout() *Layout { return s.lay }

// Local writes into dst (L entries) the score of each label at position i
// after the labels prefix[:i]: the state score, the transition from
// prefix[i-1] (the start score at i = 0), the stop score at the last
// position, and the weights of the history attributes that fire, added
// in that order. It is the one scoring function: every search and
// SequenceScore sum it.
func (s *Search) Local(dst []float64, in *Sentence, prefix []int32, i int) {
	sc := in.Scores
	l := sc.L
	copy(dst, sc.State[i*l:(i+1)*l])
	if i == 0 {
		s.addEdge(dst, sc.Start)
	} else {
		p := int(prefix[i-1])
		s.addEdge(dst, sc.Trans[p*l:(p+1)*l])
	}
	if i == sc.N-1 {
		s.addEdge(dst, sc.Stop)
	}
	if s.lay.H() == 0 {
		return
	}
	s.act = s.lay.Active(s.act[:0], prefix, i, &in.Context)
	for _, h := range s.act {
		row := in.History[int(h)*l : int(h)*l+l]
		for y, w := range row {
			dst[y] += w
		}
	}
}

// addEdge adds a row of transition, start or stop scores; a relaxed step
// reads a forbidden one as 0.
func (s *Search) addEdge(dst, row []float64) {
	for y, v := range row {
		if s.relaxed && math.IsInf(v, -1) {
			continue
		}
		dst[y] += v
	}
}

// SequenceScore is the score of labels (a whole sentence) under in: the
// sum of Local at each position.
func (s *Search) SequenceScore(in *Sentence, labels []int32) float64 {
	s.grow(in.Scores.L, in.Scores.N)
	total := 0.0
	for i := range labels {
		s.Local(s.cand, in, labels, i)
		total += s.cand[labels[i]]
	}
	return total
}

// grow sizes the buffers for n tokens and l labels.
func (s *Search) grow(l, n int) {
	if cap(s.cand) < l {
		s.cand = make([]float64, l)
	}
	s.cand = s.cand[:l]
	if cap(s.labs) < s.width*n {
		s.labs, s.nextLabs = make([]int32, s.width*n), make([]int32, s.width*n)
	}
	if cap(s.items) < s.width {
		s.items, s.next = make([]item, 0, s.width), make([]item, 0, s.width)
	}
}

// Begin starts a search of in: one empty item.
func (s *Search) Begin(in *Sentence) {
	s.n, s.pos = in.Scores.N, 0
	s.grow(in.Scores.L, s.n)
	s.items = append(s.items[:0], item{parent: -1, label: -1})
}

// Advance extends every item by every label at the next position and
// keeps the width best, by score, ties to the earlier item and then the
// lower label (so the search is deterministic). It returns the position
// it filled.
func (s *Search) Advance(in *Sentence) int {
	i := s.pos
	s.relaxed = false
	s.step(in, i)
	if len(s.next) == 0 {
		s.relaxed = true
		s.step(in, i)
		s.relaxed = false
	}
	// Each kept item's labels: its parent's, then its own.
	n := s.n
	for k, it := range s.next {
		row := s.nextLabs[k*n : k*n+i+1]
		copy(row, s.labs[int(it.parent)*n:int(it.parent)*n+i])
		row[i] = it.label
	}
	s.items, s.next = s.next, s.items
	s.labs, s.nextLabs = s.nextLabs, s.labs
	s.pos++
	return i
}

// step fills next with the width best extensions at position i.
func (s *Search) step(in *Sentence, i int) {
	s.next = s.next[:0]
	n := s.n
	for k, it := range s.items {
		s.Local(s.cand, in, s.labs[k*n:k*n+i], i)
		for y, c := range s.cand {
			v := it.score + c
			if math.IsInf(v, -1) || math.IsNaN(v) {
				continue
			}
			s.insert(item{score: v, parent: int32(k), label: int32(y)})
		}
	}
}

// insert puts e into next, sorted by score (descending), if it is among
// the width best; an equal score goes after the items already there.
func (s *Search) insert(e item) {
	k := len(s.next)
	if k == s.width {
		if !(e.score > s.next[k-1].score) {
			return
		}
		k--
	} else {
		s.next = append(s.next, e)
	}
	for k > 0 && e.score > s.next[k-1].score {
		s.next[k] = s.next[k-1]
		k--
	}
	s.next[k] = e
}

// Len is the number of items in the beam.
func (s *Search) Len() int { return len(s.items) }

// Item returns item k's labels so far (a view into the search's buffer,
// valid until the next Advance) and its score; item 0 is the best.
func (s *Search) Item(k int) (labels []int32, score float64) {
	return s.labs[k*s.n : k*s.n+s.pos], s.items[k].score
}

// Find returns the index of the item whose labels are prefix (of the
// current length), -1 if none is.
func (s *Search) Find(prefix []int32) int {
	for k := range s.items {
		lab, _ := s.Item(k)
		if slices.Equal(lab, prefix) {
			return k
		}
	}
	return -1
}

// Decode writes the best sequence the search finds into dst (N labels)
// and returns its score.
func (s *Search) Decode(dst []int32, in *Sentence) float64 {
	if in.Scores.N == 0 {
		return 0
	}
	s.Begin(in)
	for s.pos < s.n {
		s.Advance(in)
	}
	lab, score := s.Item(0)
	copy(dst, lab)
	return score
}
