package scheme

import "strings"

// Allowed reports which label bigrams are well-formed in scheme s, for a
// decoder to forbid the rest. trans is row-major, trans[prev*len(labels)+cur];
// start[y] tells whether y may open a sentence and stop[y] whether it may
// close one.
//
// A label whose prefix is foreign to the scheme is left unconstrained in
// both directions, so an odd label in the training data can never make
// decoding impossible. IOB1 and None allow everything: strict IOB1 would
// require B-X to follow a token of type X, but taggers routinely emit
// B-X elsewhere and conlleval reads it fine.
func Allowed(labels []string, s Scheme) (trans, start, stop []bool) {
	n := len(labels)
	trans = make([]bool, n*n)
	start = make([]bool, n)
	stop = make([]bool, n)
	for i := range trans {
		trans[i] = true
	}
	for i := range start {
		start[i], stop[i] = true, true
	}

	var known string // prefixes the scheme constrains
	switch s {
	case IOB2:
		known = "BIO"
	case BIOES:
		known = "BIOES"
	case BMES:
		known = "BMES"
	case BI:
		known = "BI"
	default:
		return trans, start, stop
	}

	prefix := make([]byte, n) // 0 marks an unconstrained label
	types := make([]string, n)
	for i, l := range labels {
		p, t := Split(l)
		if len(p) == 1 && strings.IndexByte(known, p[0]) >= 0 {
			prefix[i] = p[0]
		}
		types[i] = t
	}

	for cur := range n {
		c := prefix[cur]
		if c == 0 {
			continue
		}
		start[cur] = canStart(s, c)
		stop[cur] = canStop(s, c)
		for prev := range n {
			p := prefix[prev]
			if p == 0 {
				continue
			}
			trans[prev*n+cur] = canFollow(s, p, c, types[prev] == types[cur])
		}
	}
	return trans, start, stop
}

// isContinuation reports whether prefix c continues a chunk (or word) that
// must already be open.
func isContinuation(s Scheme, c byte) bool {
	switch s {
	case IOB2, BI:
		return c == 'I'
	case BIOES:
		return c == 'I' || c == 'E'
	case BMES:
		return c == 'M' || c == 'E'
	}
	return false
}

// leavesOpen reports whether prefix p leaves a chunk open for the next token.
func leavesOpen(s Scheme, p byte) bool {
	switch s {
	case IOB2, BI:
		return p == 'B' || p == 'I'
	case BIOES:
		return p == 'B' || p == 'I'
	case BMES:
		return p == 'B' || p == 'M'
	}
	return false
}

func canStart(s Scheme, c byte) bool { return !isContinuation(s, c) }

func canStop(s Scheme, c byte) bool {
	switch s {
	case BIOES, BMES:
		// A chunk still open at the end was never closed by E.
		return !leavesOpen(s, c)
	}
	return true
}

func canFollow(s Scheme, p, c byte, sameType bool) bool {
	if isContinuation(s, c) {
		return leavesOpen(s, p) && sameType
	}
	switch s {
	case BIOES, BMES:
		// Starting something new (or O) requires the previous chunk closed.
		return !leavesOpen(s, p)
	}
	return true
}
