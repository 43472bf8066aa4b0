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

const buildUsage = `usage: gazetteer build-lists [-word N] [-label N] [-min-count N] CORPUS OUTDIR

Writes OUTDIR/<TYPE>.txt: every phrase labelled as an entity of TYPE in
CORPUS, a CoNLL file (whitespace-separated columns, blank lines between
sentences) whose spans are IOB1 or IOB2 encoded. Use the TRAINING corpus
only: lists built from test data would leak its answers.

  gazetteer build-lists -word 0 -label 3 eng.train runs/gazetteer-conll2003
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
	fs.Usage = func() { fmt.Fprint(os.Stderr, buildUsage) }
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if fs.NArg() != 2 {
		fs.Usage()
		return 2
	}
	lists, err := buildLists(fs.Arg(0), *word, *label, *minCount)
	if err == nil {
		err = writeLists(fs.Arg(1), lists)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gazetteer build-lists:", err)
		return 1
	}
	return 0
}

// buildLists returns, per entity type, the phrases labelled with it at
// least minCount times.
func buildLists(path string, word, label, minCount int) (map[string][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	counts := map[string]map[string]int{}
	var toks, tags []string
	flush := func() {
		typ, start := "", -1
		end := func(i int) {
			if start >= 0 {
				if counts[typ] == nil {
					counts[typ] = map[string]int{}
				}
				counts[typ][strings.Join(toks[start:i], " ")]++
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
	out := map[string][]string{}
	for t, m := range counts {
		for p, c := range m {
			if c >= minCount {
				out[t] = append(out[t], p)
			}
		}
		sort.Strings(out[t])
	}
	return out, nil
}

func writeLists(dir string, lists map[string][]string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for t, phrases := range lists {
		body := "# built by gazetteer build-lists\n" + strings.Join(phrases, "\n") + "\n"
		if err := os.WriteFile(filepath.Join(dir, t+".txt"), []byte(body), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "%s: %d phrases\n", filepath.Join(dir, t+".txt"), len(phrases))
	}
	return nil
}
