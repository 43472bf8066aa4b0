package scheme

import (
	"fmt"
	"strings"
)

// Contradiction is the first place a gold label sequence breaks the rules
// of a scheme.
type Contradiction struct {
	// Index is the token whose label breaks the rule; for a chunk left
	// open at the end of the sentence it is the last token.
	Index int
	// Reason says which rule, e.g. `"I-PER" follows "O"`.
	Reason string
}

// letters returns the prefixes a scheme's labels may carry. None has no
// rules and returns "".
func letters(s Scheme) string {
	switch s {
	case IOB1, IOB2:
		return "BIO"
	case BIOES:
		return "BIOES"
	case BMES:
		return "BMES"
	case BI:
		return "BI"
	}
	return ""
}

// Check returns the first place labels contradict scheme s. The rules are
// those Allowed gives a constrained decoder (so a sequence Check accepts is
// one constrained decoding can produce), plus one more: every label must
// carry one of the scheme's prefixes. IOB1 only asks for the prefixes B, I
// and O: strict IOB1 (B-X only right after a token of type X) is broken by
// real IOB1 data, CoNLL-2003's eng.train among them, and nothing in
// training or scoring depends on it.
func Check(labels []string, s Scheme) (Contradiction, bool) { return check(labels, s, true) }

// Forbidden returns the first place where a decoder constrained by
// Allowed could not produce labels: Check without the prefix rule, since
// Allowed leaves a label without one of the scheme's prefixes
// unconstrained. A gold sequence Forbidden reports is one constrained
// training and decoding would turn against.
func Forbidden(labels []string, s Scheme) (Contradiction, bool) { return check(labels, s, false) }

func check(labels []string, s Scheme, prefixes bool) (Contradiction, bool) {
	known := letters(s)
	if known == "" {
		return Contradiction{}, false
	}
	var prevPrefix byte // 0 after a label Allowed leaves unconstrained
	var prevType, prevLabel string
	for i, l := range labels {
		p, t := Split(l)
		if len(p) != 1 || strings.IndexByte(known, p[0]) < 0 {
			if prefixes {
				return Contradiction{i, fmt.Sprintf("%q has none of the %s prefixes (%s)", l, s, prefixList(known))}, true
			}
			prevPrefix, prevType, prevLabel = 0, t, l
			continue
		}
		c := p[0]
		switch {
		case i == 0 && !canStart(s, c):
			return Contradiction{i, fmt.Sprintf("%q begins the sentence", l)}, true
		case i > 0 && prevPrefix != 0 && !canFollow(s, prevPrefix, c, prevType == t):
			return Contradiction{i, fmt.Sprintf("%q follows %q", l, prevLabel)}, true
		}
		prevPrefix, prevType, prevLabel = c, t, l
	}
	if n := len(labels); n > 0 && prevPrefix != 0 && !canStop(s, prevPrefix) {
		return Contradiction{n - 1, fmt.Sprintf("%q ends the sentence", prevLabel)}, true
	}
	return Contradiction{}, false
}

// prefixList spells "BIO" as "B-, I-, O".
func prefixList(known string) string {
	out := ""
	for i := 0; i < len(known); i++ {
		if i > 0 {
			out += ", "
		}
		out += string(known[i])
		if known[i] != 'O' {
			out += "-"
		}
	}
	return out
}

// checked are the schemes a Fit tallies, in the order Suggest prefers
// them for a span scheme; segmentation is preferred for segmentation.
var (
	checked      = [...]Scheme{IOB2, IOB1, BIOES, BMES, BI}
	segmentation = [...]Scheme{BMES, BI, IOB2, IOB1, BIOES}
)

// Fit tallies, over the sentences of a corpus, how many contradict each
// scheme, so that a wrong declaration can be answered with the scheme the
// data fits. The zero value is ready to use.
type Fit struct {
	sentences     int
	contradicting [len(checked)]int
	// begins counts labels with the prefix B, which tells IOB2 data
	// declared as IOB1 (every chunk begins with B-) from IOB1 data.
	begins int
}

// Add tallies one sentence's labels.
func (f *Fit) Add(labels []string) {
	f.sentences++
	for k, s := range checked {
		if _, bad := Check(labels, s); bad {
			f.contradicting[k]++
		}
	}
	for _, l := range labels {
		if p, _ := Split(l); p == "B" {
			f.begins++
		}
	}
}

// Sentences is the number of sentences added.
func (f *Fit) Sentences() int { return f.sentences }

// Contradicting returns how many of the added sentences contradict s (0
// for None, which has no rules).
func (f *Fit) Contradicting(s Scheme) int {
	for k, c := range checked {
		if c == s {
			return f.contradicting[k]
		}
	}
	return 0
}

// Suggest returns the scheme the labels fit when declared does not, or
// when declared is IOB1 but the labels read as IOB2 (no sentence breaks
// IOB2 and chunks begin with B-: IOB1 data writes I-X there). ok is false
// when declared fits and there is nothing better, or when no scheme fits.
func (f *Fit) Suggest(declared Scheme) (s Scheme, ok bool) {
	if f.sentences == 0 || declared == None {
		return None, false
	}
	if f.Contradicting(declared) == 0 {
		if declared == IOB1 && f.Contradicting(IOB2) == 0 && f.begins > 0 {
			return IOB2, true
		}
		return None, false
	}
	order := checked
	if declared.IsSegmentation() {
		order = segmentation
	}
	for _, c := range order {
		if f.Contradicting(c) == 0 {
			return c, true
		}
	}
	return None, false
}
