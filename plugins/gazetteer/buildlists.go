package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

const buildUsage = `usage: gazetteer build-lists [-word N] [-label N] [-min-count N] [-folds K] CORPUS OUTDIR

Writes OUTDIR/<TYPE>.txt: every phrase labelled as an entity of TYPE in
CORPUS, a CoNLL file (whitespace-separated columns, blank lines between
sentences) whose spans are IOB1 or IOB2 encoded. Use the TRAINING corpus
only: lists built from test data would leak its answers.

With -folds K (2 to 64) the lists are jackknifed: each sentence belongs to
fold hash(its tokens) mod K, and a phrase is marked with the folds whose
sentences must not see it (its count outside the fold is below
-min-count), so that a training sentence's features never come from its
own labels. The plugin computes the same fold for every sentence it tags.

  gazetteer build-lists -word 0 -label 3 eng.train runs/gazetteer-conll2003
  gazetteer build-lists -folds 10 -word 0 -label 3 eng.train runs/gazetteer-conll2003-10fold
`

// buildListsMain implements `gazetteer build-lists`.
func buildListsMain(args []string) int {
	if args[0] != "build-lists" {
		fmt.Fprint(os.Stderr, buildUsage)
		return 2
	}
	fs := flag.NewFlagSet("build-lists", flag.ContinueOnError)
	word := fs.Int("word", 0, "index of the token column")
	label := fs.Int("label", -1, "index of the label column (default: the last)")
	minCount := fs.Int("min-count", 1, "keep phrases labelled at least this many times")
	folds := fs.Int("folds", 0, "jackknife the lists over K folds of sentences (2 to 64; 0: plain lists)")
	fs.Usage = func() { fmt.Fprint(os.Stderr, buildUsage) }
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if fs.NArg() != 2 || *folds == 1 || *folds < 0 || *folds > maxFolds {
		fs.Usage()
		return 2
	}
	lists, err := buildLists(fs.Arg(0), *word, *label, *minCount, *folds)
	if err == nil {
		err = writeLists(fs.Arg(1), lists, *folds)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gazetteer build-lists:", err)
		return 1
	}
	return 0
}

// buildLists returns, per entity type, the phrases labelled with it at
// least minCount times; with folds, each phrase with the folds that must
// not see it (listEntry.except).
func buildLists(path string, word, label, minCount, folds int) (map[string][]listEntry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// counts[type][phrase][fold]: fold 0 only without folds.
	counts := map[string]map[string][]int{}
	var toks, tags []string
	flush := func() {
		fold := 0
		if folds > 0 {
			fold = sentenceFold(toks, folds)
		}
		typ, start := "", -1
		end := func(i int) {
			if start >= 0 {
				if counts[typ] == nil {
					counts[typ] = map[string][]int{}
				}
				phrase := strings.Join(toks[start:i], " ")
				c := counts[typ][phrase]
				if c == nil {
					c = make([]int, max(folds, 1))
					counts[typ][phrase] = c
				}
				c[fold]++
			}
			typ, start = "", -1
		}
		for i, tag := range tags {
			p, t, _ := strings.Cut(tag, "-")
			switch {
			case tag == "O" || t == "":
				end(i)
			case p == "B" || t != typ:
				end(i)
				typ, start = t, i
			}
		}
		end(len(tags))
		toks, tags = toks[:0], tags[:0]
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	line := 0
	for sc.Scan() {
		line++
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			flush()
			continue
		}
		if fields[0] == "-DOCSTART-" {
			continue
		}
		l := label
		if l < 0 {
			l = len(fields) - 1
		}
		if word >= len(fields) || l >= len(fields) {
			return nil, fmt.Errorf("%s:%d: %d columns", path, line, len(fields))
		}
		toks, tags = append(toks, fields[word]), append(tags, fields[l])
	}
	flush()
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return selectEntries(counts, minCount, folds), nil
}

// listEntry is a phrase of a list and, for jackknifed lists, the folds
// whose sentences must not see it (bit k: fold k).
type listEntry struct {
	phrase string
	except uint64
}

// selectEntries keeps the phrases counted at least minCount times, and
// marks each fold whose leave-one-out count falls below minCount.
func selectEntries(counts map[string]map[string][]int, minCount, folds int) map[string][]listEntry {
	out := map[string][]listEntry{}
	for t, m := range counts {
		for p, c := range m {
			total := 0
			for _, n := range c {
				total += n
			}
			if total < minCount {
				continue
			}
			var except uint64
			for k := 0; k < folds; k++ {
				if total-c[k] < minCount {
					except |= 1 << k
				}
			}
			out[t] = append(out[t], listEntry{p, except})
		}
		sort.Slice(out[t], func(i, j int) bool { return out[t][i].phrase < out[t][j].phrase })
	}
	return out
}

func writeLists(dir string, lists map[string][]listEntry, folds int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for t, entries := range lists {
		var b strings.Builder
		b.WriteString("# built by gazetteer build-lists\n")
		if folds > 0 {
			fmt.Fprintf(&b, "# folds=%d\n", folds)
		}
		for _, e := range entries {
			b.WriteString(e.phrase)
			if e.except != 0 {
				b.WriteString("\texcept=")
				b.WriteString(foldList(e.except))
			}
			b.WriteByte('\n')
		}
		if err := os.WriteFile(filepath.Join(dir, t+".txt"), []byte(b.String()), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "%s: %d phrases\n", filepath.Join(dir, t+".txt"), len(entries))
	}
	return nil
}
