package eval

import (
	"fmt"
	"slices"
	"strings"

	"github.com/trellis-nlp/trellis/framework/scheme"
)

// Sentence is one gold/predicted pair. OOV and Chars are optional; when
// given they must have one entry per token.
type Sentence struct {
	Gold, Pred []string
	OOV        []bool   // per token: the model does not know the word (tagger.Vocabulary)
	Chars      []string // per token: the character, for segmentation OOV scoring
}

// Vocabulary is the words a model knows (tagger.Vocabulary).
type Vocabulary interface {
	Has(word string) bool
}

// Columns say how NewSentence reads a tagged sentence's cells.
type Columns struct {
	// Label is the column of the gold labels, Word that of the words.
	Label, Word int
	// Vocabulary, when set, marks the tokens whose word it does not
	// have (Sentence.OOV). Leave it nil, not a typed nil, when the model
	// does not tell.
	Vocabulary Vocabulary
	// Segmentation keeps each token's word as Sentence.Chars, for the
	// out-of-vocabulary recall of segmented words (not without a word
	// column: Word < 0).
	Segmentation bool
}

// NewSentence is the scored sentence of a tagged one: tokens is a
// [T][columns] matrix whose row i holds token i's cells, pred the T
// predicted labels (kept, not copied). run, `trellis eval` and
// trellis-beam all build their sentences here.
func NewSentence(tokens [][]string, pred []string, c Columns) Sentence {
	n := len(tokens)
	s := Sentence{Gold: make([]string, n), Pred: pred}
	if c.Vocabulary != nil {
		s.OOV = make([]bool, n)
	}
	if c.Segmentation && c.Word >= 0 {
		s.Chars = make([]string, n)
	}
	for i, tok := range tokens {
		s.Gold[i] = tok[c.Label]
		if s.OOV != nil {
			s.OOV[i] = !c.Vocabulary.Has(tok[c.Word])
		}
		if s.Chars != nil {
			s.Chars[i] = tok[c.Word]
		}
	}
	return s
}

// Options select how sentences are scored.
type Options struct {
	Scheme scheme.Scheme
	// Vocabulary holds the training words; with BMES or BI and Chars it
	// enables recall of out-of-vocabulary gold words.
	Vocabulary map[string]bool
}

// PRF holds precision, recall and F1 (fractions in [0,1]) with the counts
// they came from.
type PRF struct {
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
	Gold      int     `json:"gold"`
	Pred      int     `json:"pred"`
	Correct   int     `json:"correct"`
}

// SegResult scores segmentation at the word level.
type SegResult struct {
	Precision    float64 `json:"precision"`
	Recall       float64 `json:"recall"`
	F1           float64 `json:"f1"`
	GoldWords    int     `json:"gold_words"`
	PredWords    int     `json:"pred_words"`
	CorrectWords int     `json:"correct_words"`
	// Set only when Options.Vocabulary is non-nil and every sentence has Chars.
	OOVRecall *float64 `json:"oov_recall,omitempty"`
	IVRecall  *float64 `json:"iv_recall,omitempty"`
	OOVWords  int      `json:"oov_words,omitempty"`
	IVWords   int      `json:"iv_words,omitempty"`
}

// Result is the outcome of Evaluate. Scores are fractions in [0,1].
type Result struct {
	Tokens           int     `json:"tokens"`
	Sentences        int     `json:"sentences"`
	Correct          int     `json:"correct"`
	Accuracy         float64 `json:"accuracy"`
	SentenceAccuracy float64 `json:"sentence_accuracy"`

	// Over tokens whose sentence carries OOV information; 0 without it.
	IVAccuracy  float64 `json:"iv_accuracy"`
	OOVAccuracy float64 `json:"oov_accuracy"`
	IVTokens    int     `json:"iv_tokens"`
	OOVTokens   int     `json:"oov_tokens"`

	// Phrase scores as conlleval computes them; nil unless the scheme has spans.
	Precision    *float64        `json:"precision,omitempty"`
	Recall       *float64        `json:"recall,omitempty"`
	F1           *float64        `json:"f1,omitempty"`
	GoldSpans    int             `json:"gold_spans,omitempty"`
	PredSpans    int             `json:"pred_spans,omitempty"`
	CorrectSpans int             `json:"correct_spans,omitempty"`
	PerType      map[string]*PRF `json:"per_type,omitempty"`

	PerLabel  map[string]*PRF `json:"per_label"`
	Labels    []string        `json:"labels"`    // sorted union of gold and predicted labels
	Confusion [][]int         `json:"confusion"` // [gold][pred], indexed like Labels

	Words *SegResult `json:"words,omitempty"` // only for BMES and BI
}

// ratio is conlleval's convention: an empty denominator scores 0, not NaN.
func ratio(num, den int) float64 {
	if den == 0 {
		return 0
	}
	return float64(num) / float64(den)
}

func f1(p, r float64) float64 {
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

func (p *PRF) finish() {
	p.Precision = ratio(p.Correct, p.Pred)
	p.Recall = ratio(p.Correct, p.Gold)
	p.F1 = f1(p.Precision, p.Recall)
}

func check(i int, s *Sentence) {
	// Evaluate has no error result: mismatched lengths are a caller bug
	// (the decoder produces one label per token), so fail loudly.
	if len(s.Pred) != len(s.Gold) {
		panic(fmt.Sprintf("eval: sentence %d has %d gold and %d predicted labels", i, len(s.Gold), len(s.Pred)))
	}
	if s.OOV != nil && len(s.OOV) != len(s.Gold) {
		panic(fmt.Sprintf("eval: sentence %d has %d labels but %d OOV flags", i, len(s.Gold), len(s.OOV)))
	}
	if s.Chars != nil && len(s.Chars) != len(s.Gold) {
		panic(fmt.Sprintf("eval: sentence %d has %d labels but %d chars", i, len(s.Gold), len(s.Chars)))
	}
}

// Evaluate scores sents. It panics if a sentence's Pred, OOV or Chars
// length differs from its Gold length.
func Evaluate(sents []Sentence, o Options) *Result {
	e := newEvaluator(sents, o)
	for i := range sents {
		s := &sents[i]
		check(i, s)
		e.addTokens(s)
		if e.spans {
			e.addSpans(s)
		}
		if e.seg {
			e.addWords(s)
		}
	}
	return e.finish()
}

// evaluator accumulates Evaluate's counts sentence by sentence.
type evaluator struct {
	o           Options
	r           *Result
	spans, seg  bool
	withVocab   bool
	labels      labelIndex
	ivCorrect   int
	oovCorrect  int
	sentCorrect int
	gc, pc      []scheme.Chunk
	gw, pw      []span
	words       SegResult
	oovFound    int
	ivFound     int
}

func newEvaluator(sents []Sentence, o Options) *evaluator {
	e := &evaluator{o: o, r: &Result{Sentences: len(sents), PerLabel: map[string]*PRF{}},
		spans: o.Scheme.HasSpans(), seg: o.Scheme.IsSegmentation(), labels: labelIndex{ids: map[string]int{}}}
	if e.spans {
		e.r.PerType = map[string]*PRF{}
	}
	e.withVocab = e.seg && o.Vocabulary != nil
	for i := range sents {
		if sents[i].Chars == nil {
			e.withVocab = false
		}
	}
	return e
}

// labelIndex gives labels ids in order of appearance and counts the
// confusion matrix over them; finish re-indexes it in sorted order.
type labelIndex struct {
	ids   map[string]int
	names []string
	conf  [][]int
}

func (x *labelIndex) id(l string) int {
	if i, ok := x.ids[l]; ok {
		return i
	}
	i := len(x.names)
	x.ids[l] = i
	x.names = append(x.names, l)
	for k := range x.conf {
		x.conf[k] = append(x.conf[k], 0)
	}
	x.conf = append(x.conf, make([]int, i+1))
	return i
}

// addTokens counts a sentence's tokens: accuracy, IV/OOV, confusion.
func (e *evaluator) addTokens(s *Sentence) {
	r := e.r
	allRight := true
	for t, g := range s.Gold {
		p := s.Pred[t]
		e.labels.conf[e.labels.id(g)][e.labels.id(p)]++
		ok := g == p
		if ok {
			r.Correct++
		} else {
			allRight = false
		}
		if s.OOV != nil {
			if s.OOV[t] {
				r.OOVTokens++
				if ok {
					e.oovCorrect++
				}
			} else {
				r.IVTokens++
				if ok {
					e.ivCorrect++
				}
			}
		}
	}
	r.Tokens += len(s.Gold)
	if allRight {
		e.sentCorrect++
	}
}

// addSpans counts a sentence's chunks the way conlleval does.
func (e *evaluator) addSpans(s *Sentence) {
	r := e.r
	e.gc = scheme.Chunks(e.gc[:0], s.Gold, e.o.Scheme)
	e.pc = scheme.Chunks(e.pc[:0], s.Pred, e.o.Scheme)
	for _, c := range e.gc {
		typeStats(r.PerType, c.Type).Gold++
	}
	for _, c := range e.pc {
		typeStats(r.PerType, c.Type).Pred++
	}
	matchChunks(e.gc, e.pc, func(c scheme.Chunk) { typeStats(r.PerType, c.Type).Correct++ })
	r.GoldSpans += len(e.gc)
	r.PredSpans += len(e.pc)
}

// addWords counts a segmented sentence's words, split by the training
// vocabulary when there is one.
func (e *evaluator) addWords(s *Sentence) {
	vocab := e.o.Vocabulary
	e.gw = segWords(e.gw[:0], s.Gold)
	e.pw = segWords(e.pw[:0], s.Pred)
	e.words.GoldWords += len(e.gw)
	e.words.PredWords += len(e.pw)
	var hit func(span)
	if e.withVocab {
		hit = func(w span) {
			if vocab[wordString(s.Chars, w)] {
				e.ivFound++
			} else {
				e.oovFound++
			}
		}
	}
	e.words.CorrectWords += matchSpans(e.gw, e.pw, hit)
	if e.withVocab {
		for _, w := range e.gw {
			if vocab[wordString(s.Chars, w)] {
				e.words.IVWords++
			} else {
				e.words.OOVWords++
			}
		}
	}
}

// finish turns the counts into the result's ratios, per-label scores and
// sorted confusion matrix.
func (e *evaluator) finish() *Result {
	r := e.r
	r.Accuracy = ratio(r.Correct, r.Tokens)
	r.SentenceAccuracy = ratio(e.sentCorrect, r.Sentences)
	r.IVAccuracy = ratio(e.ivCorrect, r.IVTokens)
	r.OOVAccuracy = ratio(e.oovCorrect, r.OOVTokens)
	if e.spans {
		for _, p := range r.PerType {
			r.CorrectSpans += p.Correct
			p.finish()
		}
		all := PRF{Gold: r.GoldSpans, Pred: r.PredSpans, Correct: r.CorrectSpans}
		all.finish()
		r.Precision, r.Recall, r.F1 = &all.Precision, &all.Recall, &all.F1
	}
	if e.seg {
		words := e.words
		words.Precision = ratio(words.CorrectWords, words.PredWords)
		words.Recall = ratio(words.CorrectWords, words.GoldWords)
		words.F1 = f1(words.Precision, words.Recall)
		if e.withVocab {
			oov, iv := ratio(e.oovFound, words.OOVWords), ratio(e.ivFound, words.IVWords)
			words.OOVRecall, words.IVRecall = &oov, &iv
		}
		r.Words = &words
	}
	e.perLabel()
	return r
}

// perLabel fills the sorted label list, the confusion matrix in that
// order and each label's precision, recall and F1.
func (e *evaluator) perLabel() {
	r, ids, conf := e.r, e.labels.ids, e.labels.conf
	r.Labels = slices.Clone(e.labels.names)
	if r.Labels == nil {
		r.Labels = []string{}
	}
	slices.Sort(r.Labels)
	r.Confusion = make([][]int, len(r.Labels))
	for gi, g := range r.Labels {
		row := make([]int, len(r.Labels))
		for pi, p := range r.Labels {
			row[pi] = conf[ids[g]][ids[p]]
		}
		r.Confusion[gi] = row
		pl := &PRF{}
		for k := range r.Labels {
			pl.Gold += row[k]
			pl.Pred += conf[ids[r.Labels[k]]][ids[g]]
		}
		pl.Correct = row[gi]
		pl.finish()
		r.PerLabel[g] = pl
	}
}

func typeStats(m map[string]*PRF, typ string) *PRF {
	p := m[typ]
	if p == nil {
		p = &PRF{}
		m[typ] = p
	}
	return p
}

// MatchChunks counts the predicted chunks that equal a gold one, gold and
// pred both from scheme.Chunks (the reranker's sentence F1 counts them as
// Evaluate does).
func MatchChunks(gold, pred []scheme.Chunk) int { return matchChunks(gold, pred, nil) }

// matchChunks calls hit for every predicted chunk that equals a gold one.
// Both lists come from scheme.Chunks, so they are sorted and disjoint and
// one merge pass finds every match.
func matchChunks(gold, pred []scheme.Chunk, hit func(scheme.Chunk)) int {
	n, i, j := 0, 0, 0
	for i < len(gold) && j < len(pred) {
		g, p := gold[i], pred[j]
		switch {
		case g.Start < p.Start:
			i++
		case g.Start > p.Start:
			j++
		default:
			if g == p {
				n++
				if hit != nil {
					hit(p)
				}
			}
			i++
			j++
		}
	}
	return n
}

// span is an untyped word [start, end).
type span struct{ start, end int }

// segWords appends the words encoded by BMES or BI labels. Ill-formed
// sequences are read leniently so that every token lands in some word: B
// and S always begin a word, E and S end one, and a continuation label
// with no word open begins one. Only the prefix before '-' matters, so
// joint segmentation-and-tagging labels ("B-NN") work too.
func segWords(dst []span, labels []string) []span {
	open := false
	start := 0
	for i, l := range labels {
		p, _ := scheme.Split(l)
		switch p {
		case "B", "S":
			if open {
				dst = append(dst, span{start, i})
			}
			start, open = i, true
		default:
			if !open {
				start, open = i, true
			}
		}
		if p == "E" || p == "S" {
			dst = append(dst, span{start, i + 1})
			open = false
		}
	}
	if open {
		dst = append(dst, span{start, len(labels)})
	}
	return dst
}

func matchSpans(gold, pred []span, hit func(span)) int {
	n, i, j := 0, 0, 0
	for i < len(gold) && j < len(pred) {
		g, p := gold[i], pred[j]
		switch {
		case g.start < p.start:
			i++
		case g.start > p.start:
			j++
		default:
			if g == p {
				n++
				if hit != nil {
					hit(g)
				}
			}
			i++
			j++
		}
	}
	return n
}

func wordString(chars []string, w span) string {
	return strings.Join(chars[w.start:w.end], "")
}
