package lattice

import (
	"fmt"
	"math"
	"slices"
)

// Boundary stands for the sentence boundary in a Trigram: ⟨s⟩ as its
// first label, ⟨/s⟩ as its last.
const Boundary = -1

// Trigram is a label trigram (A, B, C) of a second-order model: label C
// after A, B. A is Boundary for the trigrams into a sentence's second
// token (⟨s⟩ y0 y1, and ⟨s⟩ y0 ⟨/s⟩ for a one-token sentence), C is
// Boundary for the trigrams that close a sentence (y(N-2) y(N-1) ⟨/s⟩).
type Trigram struct{ A, B, C int32 }

// TrigramAt returns the trigram of path that ends at position i, for i
// from 1 to len(path): (y(i-2), y(i-1), y(i)), Boundary standing for the
// positions outside the path, so that i = 1 gives the trigram into the
// second token and i = len(path) the one that closes the sentence. Those
// are a path's trigrams, each once.
func TrigramAt(path []int32, i int) Trigram {
	at := func(j int) int32 {
		if j < 0 || j >= len(path) {
			return Boundary
		}
		return path[j]
	}
	return Trigram{A: at(i - 2), B: at(i - 1), C: at(i)}
}

// Order2 is the structure of a second-order lattice: the label pairs
// (a, b) — a the label before b, or Boundary at the first token — that
// can be a path's state, and the edges (a, b) → (b, c) between them, one
// per trigram (a, b, c) the model knows (those seen in training). A
// second-order lattice is the first-order lattice over these pair
// states, but its edges are listed rather than a dense matrix, so that
// a pass costs positions × trigrams, not positions × pairs². It is
// immutable once built and may be shared by goroutines.
//
// A sequence y scores, besides its first-order score (Scores), the
// trigram score of (y(i-2), y(i-1), yi) for every i >= 1 (y(-1) being
// ⟨s⟩) and of (y(N-2), y(N-1), ⟨/s⟩); a sequence whose first pair or an
// inner trigram the structure lacks is forbidden, while any pair may
// close a sentence (a closing trigram not listed scores 0), so that a
// path exists whenever the seen trigrams can reach the length.
type Order2 struct {
	l        int
	trigrams []Trigram
	// States, sorted by (first, second) with Boundary first: state s is
	// the pair (first[s], second[s]).
	first, second []int32
	// edges sorted by (to, from); into[t]:into[t+1] are those into t.
	// from, to and tri repeat their fields as arrays, which the passes'
	// inner loops read densely.
	edges         []edge2
	into          []int32
	from, to, tri []int32
	// starts lists the states whose first is Boundary; stopTri[s] is the
	// trigram (first[s], second[s], ⟨/s⟩), or -1.
	starts  []int32
	stopTri []int32
	// bigram[s] is first*L+second, the label bigram state s is at i >= 1,
	// or -1 for a start state.
	bigram []int32
}

// edge2 is the edge from → to of trigram tri, whose last bigram is bc
// (b*L+c), at bp (b*stride(L)+c) in a block of exponentiated
// transitions, and last label c.
type edge2 struct {
	from, to, bc, bp, c, tri int32
}

// NewOrder2 returns the structure of trigrams over l labels with the
// trigrams whose bigrams c forbids (nil: none) left out. Each trigram's
// index in trigrams is the index of its score in Scores.Trigram. It
// refuses labels out of range, Boundary in the middle and duplicates.
func NewOrder2(l int, trigrams []Trigram, c *Constraints) (*Order2, error) {
	if l <= 0 {
		return nil, fmt.Errorf("lattice: second order over %d labels", l)
	}
	o := &Order2{l: l, trigrams: slices.Clone(trigrams)}
	type pair struct{ a, b int32 }
	seen := make(map[Trigram]bool, len(trigrams))
	pairs := make(map[pair]bool)
	for _, t := range trigrams {
		if t.A < Boundary || int(t.A) >= l || t.B < 0 || int(t.B) >= l || t.C < Boundary || int(t.C) >= l {
			return nil, fmt.Errorf("lattice: trigram %v out of range for %d labels", t, l)
		}
		if seen[t] {
			return nil, fmt.Errorf("lattice: trigram %v listed twice", t)
		}
		seen[t] = true
		if !allowedTrigram(t, l, c) {
			continue
		}
		pairs[pair{t.A, t.B}] = true
		if t.C != Boundary {
			pairs[pair{t.B, t.C}] = true
		}
	}
	keys := make([]pair, 0, len(pairs))
	for p := range pairs {
		keys = append(keys, p)
	}
	slices.SortFunc(keys, func(x, y pair) int {
		if x.a != y.a {
			return int(x.a - y.a)
		}
		return int(x.b - y.b)
	})
	index := make(map[pair]int32, len(keys))
	for s, p := range keys {
		index[p] = int32(s)
		o.first = append(o.first, p.a)
		o.second = append(o.second, p.b)
		bg := int32(-1)
		if p.a == Boundary {
			o.starts = append(o.starts, int32(s))
		} else {
			bg = p.a*int32(l) + p.b
		}
		o.bigram = append(o.bigram, bg)
	}
	o.stopTri = make([]int32, len(keys))
	for s := range o.stopTri {
		o.stopTri[s] = -1
	}
	for k, t := range trigrams {
		if !allowedTrigram(t, l, c) {
			continue
		}
		from := index[pair{t.A, t.B}]
		if t.C == Boundary {
			o.stopTri[from] = int32(k)
			continue
		}
		// A trigram into a start state cannot be: its first would be a label.
		o.edges = append(o.edges, edge2{from: from, to: index[pair{t.B, t.C}], bc: t.B*int32(l) + t.C, bp: t.B*int32(stride(l)) + t.C, c: t.C, tri: int32(k)})
	}
	slices.SortFunc(o.edges, func(x, y edge2) int {
		if x.to != y.to {
			return int(x.to - y.to)
		}
		return int(x.from - y.from)
	})
	for _, e := range o.edges {
		o.from, o.to, o.tri = append(o.from, e.from), append(o.to, e.to), append(o.tri, e.tri)
	}
	o.into = make([]int32, len(keys)+1)
	for _, e := range o.edges {
		o.into[e.to+1]++
	}
	for s := 1; s < len(o.into); s++ {
		o.into[s] += o.into[s-1]
	}
	return o, nil
}

// allowedTrigram reports whether c allows both bigrams of t (Start for a
// first label after ⟨s⟩, Stop for a last before ⟨/s⟩).
func allowedTrigram(t Trigram, l int, c *Constraints) bool {
	if c == nil {
		return true
	}
	if t.A == Boundary {
		if !c.Start[t.B] {
			return false
		}
	} else if !c.Trans[int(t.A)*l+int(t.B)] {
		return false
	}
	if t.C == Boundary {
		return c.Stop[t.B]
	}
	return c.Trans[int(t.B)*l+int(t.C)]
}

// NumLabels returns L.
func (o *Order2) NumLabels() int { return o.l }

// NumStates returns the number of pair states.
func (o *Order2) NumStates() int { return len(o.first) }

// NumEdges returns the number of edges, the inner trigrams kept.
func (o *Order2) NumEdges() int { return len(o.edges) }

// Trigrams returns the trigrams the structure was built from, in the
// order of their scores (do not modify).
func (o *Order2) Trigrams() []Trigram { return o.trigrams }

// State returns the pair (a, b) of state s, a being Boundary for a
// first token's state.
func (o *Order2) State(s int) (a, b int32) { return o.first[s], o.second[s] }

// trigramScore returns the score of trigram (a, b, c) in s, 0 when the
// structure lists no such trigram, and ok false when it is an inner one
// (c not Boundary) the structure lacks, or a dropped one.
func (o *Order2) trigramScore(s *Scores, a, b, c int32) (float64, bool) {
	from := o.find(a, b)
	if from < 0 {
		return 0, false
	}
	if c == Boundary {
		if k := o.stopTri[from]; k >= 0 {
			return s.Trigram[k], true
		}
		return 0, true
	}
	to := o.find(b, c)
	if to < 0 {
		return 0, false
	}
	for _, e := range o.edges[o.into[to]:o.into[to+1]] {
		if int(e.from) == from {
			return s.Trigram[e.tri], true
		}
	}
	return 0, false
}

// find returns the state (a, b), or -1.
func (o *Order2) find(a, b int32) int {
	lo, hi := 0, len(o.first)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if o.first[mid] < a || (o.first[mid] == a && o.second[mid] < b) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(o.first) && o.first[lo] == a && o.second[lo] == b {
		return lo
	}
	return -1
}

// sequenceScore2 is SequenceScore for a second-order lattice.
func sequenceScore2(s *Scores, path []int32) float64 {
	o := s.Order2
	n, l := s.N, s.L
	score := s.Start[path[0]] + s.Stop[path[n-1]]
	prev2 := int32(Boundary)
	for i, y := range path {
		score += s.State[i*l+int(y)]
		if i > 0 {
			score += s.trans(i, int(path[i-1]), int(y))
			t, ok := o.trigramScore(s, prev2, path[i-1], y)
			if !ok {
				return math.Inf(-1)
			}
			score += t
			prev2 = path[i-1]
		}
	}
	if n == 1 && o.find(Boundary, path[0]) < 0 {
		return math.Inf(-1)
	}
	t, ok := o.trigramScore(s, prev2, path[n-1], Boundary)
	if !ok {
		return math.Inf(-1)
	}
	return score + t
}
