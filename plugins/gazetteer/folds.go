package main

import (
	"fmt"
	"strconv"
	"strings"
)

// maxFolds bounds -folds: a phrase's excluded folds are a 64-bit mask.
const maxFolds = 64

// FNV-1a, 64 bits, written out so that hashing a sentence allocates
// nothing (hash/fnv's Hash64 escapes to the heap behind its interface).
const (
	fnvOffset64 = 14695981039346656037
	fnvPrime64  = 1099511628211
)

// sentenceFold is the fold of a sentence: the FNV-1a hash of its tokens
// joined by single spaces, mod folds. build-lists and the plugin compute
// it from the same tokens, so a training sentence falls in the fold that
// its own phrases were left out of — and a test sentence identical to a
// training one is treated as that training sentence.
func sentenceFold(toks []string, folds int) int {
	return foldOf(len(toks), func(i int) string { return toks[i] }, folds)
}

// foldOf is sentenceFold over n tokens read through tok.
func foldOf(n int, tok func(int) string, folds int) int {
	h := uint64(fnvOffset64)
	for i := 0; i < n; i++ {
		if i > 0 {
			h ^= ' '
			h *= fnvPrime64
		}
		t := tok(i)
		for j := 0; j < len(t); j++ {
			h ^= uint64(t[j])
			h *= fnvPrime64
		}
	}
	return int(h % uint64(folds))
}

// foldList writes a fold mask as "0,3,7".
func foldList(mask uint64) string {
	var parts []string
	for k := 0; k < maxFolds; k++ {
		if mask&(1<<k) != 0 {
			parts = append(parts, strconv.Itoa(k))
		}
	}
	return strings.Join(parts, ",")
}

// parseExcept reads the "except=0,3" field of a jackknifed list's line,
// folds being the list's fold count.
func parseExcept(field string, folds int) (uint64, error) {
	list, ok := strings.CutPrefix(field, "except=")
	if !ok {
		return 0, fmt.Errorf("%q: want except= and a comma-separated list of folds", field)
	}
	var mask uint64
	for _, f := range strings.Split(list, ",") {
		k, err := strconv.Atoi(f)
		if err != nil || k < 0 || k >= folds {
			return 0, fmt.Errorf("%q: fold %q is not in 0..%d", field, f, folds-1)
		}
		mask |= 1 << k
	}
	return mask, nil
}

// parseFoldsHeader reads a "# folds=K" comment line; ok is false for any
// other comment.
func parseFoldsHeader(line string) (folds int, ok bool, err error) {
	v, ok := strings.CutPrefix(line, "# folds=")
	if !ok {
		return 0, false, nil
	}
	k, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || k < 2 || k > maxFolds {
		return 0, true, fmt.Errorf("%q: folds must be 2 to %d", line, maxFolds)
	}
	return k, true, nil
}
