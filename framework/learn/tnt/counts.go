package tnt

import (
	"context"
	"fmt"
	"slices"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/learn"
)

// counts are TnT's sufficient statistics: the tag n-grams, and per word
// its tag counts and its path in the suffix trie.
type counts struct {
	nl, na              int
	wordGroup, sufGroup int32
	attrGroup           []int32
	d                   *feature.Dataset

	tags     *TagCounts // its Uni[:nl] is f(t) over the training tokens
	wordTag  []float64  // f(w, t), attribute-major (word attributes only)
	wordFreq []float64  // f(w)
	// pathLo[w], pathHi[w] bound word w's suffix path in the dataset's
	// Attrs (the attributes of a token of w; -1: w was never counted).
	pathLo, pathHi []int32
	// parent[s] is the suffix attribute before s on every path s is on
	// (-1 for a root), depth[s] its place on them; -1 when s is on none.
	parent, depth []int32
}

func newCounts(p *learn.Problem, word, suffix int) *counts {
	na, nl := p.NumAttrs, p.NumLabels
	c := &counts{nl: nl, na: na, wordGroup: int32(word), sufGroup: int32(suffix),
		attrGroup: p.Mapper.AttrGroups(), d: p.Train,
		tags: NewTagCounts(nl), wordTag: make([]float64, na*nl), wordFreq: make([]float64, na),
		pathLo: make([]int32, na), pathHi: make([]int32, na), parent: make([]int32, na), depth: make([]int32, na)}
	for a := range na {
		c.pathLo[a], c.pathHi[a], c.parent[a], c.depth[a] = -1, -1, -1, -1
	}
	return c
}

// count makes the pass over the complete training sentences sents.
func (c *counts) count(ctx context.Context, p *learn.Problem, sents []int) error {
	if len(c.attrGroup) != c.na {
		return fmt.Errorf("tnt: the feature mapper has template groups for %d attributes, the problem %d", len(c.attrGroup), c.na)
	}
	bar := p.Progress.Start("tnt", int64(len(sents)), "sentences")
	defer bar.Done()
	d := c.d
	for k, s := range sents {
		if k%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			bar.Set(int64(k), "counting")
		}
		lo, hi := d.Sentence(s)
		c.tags.AddSentence(d.Labels[lo:hi])
		for t := lo; t < hi; t++ {
			if err := c.token(s, t); err != nil {
				return err
			}
		}
	}
	return nil
}

// token counts token t of sentence s: its word, its tag and its suffix
// path, checking that the path is the word's.
func (c *counts) token(s, t int) error {
	d, nl := c.d, c.nl
	word, lo, hi := int32(-1), -1, -1
	for k := d.TokenOff[t]; k < d.TokenOff[t+1]; k++ {
		a := d.Attrs[k]
		switch c.attrGroup[a] {
		case c.wordGroup:
			if word >= 0 {
				return fmt.Errorf("tnt: token %d of sentence %d has two word attributes: the emission template must emit one a token (offset 0)", t-d.SentOff[s]+1, s+1)
			}
			word = a
		case c.sufGroup:
			if lo >= 0 && hi != k {
				return fmt.Errorf("tnt: token %d of sentence %d: its suffix_trie attributes are not together", t-d.SentOff[s]+1, s+1)
			}
			if lo < 0 {
				lo = k
			}
			hi = k + 1
		}
	}
	if word < 0 || lo < 0 {
		return fmt.Errorf("tnt: token %d of sentence %d has no word or no suffix attribute (was an attribute pruned by min_count?)", t-d.SentOff[s]+1, s+1)
	}
	path := d.Attrs[lo:hi]
	for j, a := range path {
		par := int32(-1)
		if j > 0 {
			par = path[j-1]
		}
		if c.depth[a] < 0 {
			c.parent[a], c.depth[a] = par, int32(j)
		} else if c.parent[a] != par || c.depth[a] != int32(j) {
			return fmt.Errorf("tnt: token %d of sentence %d: a suffix_trie attribute at two places of the trie", t-d.SentOff[s]+1, s+1)
		}
	}
	if c.pathLo[word] < 0 {
		c.pathLo[word], c.pathHi[word] = int32(lo), int32(hi)
	} else if !slices.Equal(c.path(word), path) {
		return fmt.Errorf("tnt: token %d of sentence %d: one word with two suffix paths; the emission template must read the word at offset 0 of the column the suffix_trie template reads, as written (no lowercase)", t-d.SentOff[s]+1, s+1)
	}
	y := int(d.Labels[t])
	c.wordTag[int(word)*nl+y]++
	c.wordFreq[word]++
	return nil
}

// path returns word w's suffix path (nil if w was never counted).
func (c *counts) path(w int32) []int32 {
	if c.pathLo[w] < 0 {
		return nil
	}
	return c.d.Attrs[c.pathLo[w]:c.pathHi[w]]
}

// tagProbs returns P̂(t) over the training tokens.
func (c *counts) tagProbs() []float64 {
	var n float64
	tagCount := c.tags.Uni[:c.nl]
	for _, v := range tagCount {
		n += v
	}
	p := make([]float64, c.nl)
	for t, v := range tagCount {
		if n > 0 {
			p[t] = v / n
		}
	}
	return p
}

// suffixWeights writes the suffix trie's weights into w (attribute-major):
// each node's log P(t | node) − log P(t | parent), the root's
// log P(t | root) − log P̂(t), where the trie is the paths of the words
// seen at most rare times, smoothed with theta (see the package doc). A
// node no rare word reaches weighs 0 (its P is its parent's).
func (c *counts) suffixWeights(w []float64, theta float64, rare int) {
	nl := c.nl
	prior := c.tagProbs()
	// The nodes, local index by attribute, and their rare-token counts.
	local := make([]int32, c.na)
	var nodes []int32
	for a := range c.na {
		local[a] = -1
		if c.attrGroup[a] == c.sufGroup && c.depth[a] >= 0 {
			local[a] = int32(len(nodes))
			nodes = append(nodes, int32(a))
		}
	}
	cnt := make([]float64, len(nodes)*nl)
	for a := range c.na {
		if c.attrGroup[a] != c.wordGroup || c.pathLo[a] < 0 || c.wordFreq[a] > float64(rare) {
			continue
		}
		for _, s := range c.path(int32(a)) {
			row := cnt[int(local[s])*nl:]
			for t := range nl {
				row[t] += c.wordTag[a*nl+t]
			}
		}
	}
	// Parents before children.
	slices.SortStableFunc(nodes, func(x, y int32) int { return int(c.depth[x] - c.depth[y]) })
	prob := make([]float64, len(cnt))
	for _, s := range nodes {
		row, p := cnt[int(local[s])*nl:][:nl], prob[int(local[s])*nl:][:nl]
		var total float64
		for _, v := range row {
			total += v
		}
		up := prior
		if par := c.parent[s]; par >= 0 {
			up = prob[int(local[par])*nl:][:nl]
		}
		for t := range nl {
			switch {
			case total == 0:
				p[t] = up[t]
			case c.parent[s] < 0:
				p[t] = row[t] / total
			default:
				p[t] = (row[t]/total + theta*up[t]) / (1 + theta)
			}
			w[int(s)*nl+t] = logp(p[t]) - logp(up[t])
		}
	}
}

// wordWeights writes each known word's weight: log P(w | t) less the
// weights of its suffix path, so that the word scores log P(w | t) in
// all. Words that no complete training sentence has, and the unknown
// attributes, weigh 0.
func (c *counts) wordWeights(w []float64) {
	nl := c.nl
	tagCount := c.tags.Uni[:nl]
	for a := range c.na {
		if c.attrGroup[a] != c.wordGroup || c.pathLo[a] < 0 {
			continue
		}
		path := c.path(int32(a))
		for t := range nl {
			v := Impossible
			if f := c.wordTag[a*nl+t]; f > 0 {
				v = logp(f / tagCount[t])
			}
			for _, s := range path {
				v -= w[int(s)*nl+t]
			}
			w[a*nl+t] = v
		}
	}
}
