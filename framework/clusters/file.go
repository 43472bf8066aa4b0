package clusters

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/trellis-nlp/trellis/framework/fileio"
)

// Write writes r as a cluster file: bitstring, word and count per line,
// tab-separated, sorted by bit string, then count (largest first), then
// word.
func Write(w io.Writer, r *Result) error {
	order := make([]int, len(r.Words))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if c := strings.Compare(r.Paths[a], r.Paths[b]); c != 0 {
			return c
		}
		if c := cmp.Compare(r.Count[b], r.Count[a]); c != 0 {
			return c
		}
		return strings.Compare(r.Words[a], r.Words[b])
	})
	bw := bufio.NewWriter(w)
	for _, i := range order {
		bw.WriteString(r.Paths[i])
		bw.WriteByte('\t')
		bw.WriteString(r.Words[i])
		bw.WriteByte('\t')
		bw.WriteString(strconv.FormatInt(r.Count[i], 10))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// WriteFile writes r to path through fileio (whole or not at all). An
// existing file is an error unless overwrite is set.
func WriteFile(path string, r *Result, overwrite bool) error {
	if !overwrite {
		if _, err := os.Lstat(path); err == nil {
			return fmt.Errorf("%s already exists (overwrite it with --force)", path)
		}
	}
	f, err := fileio.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := Write(f, r); err != nil {
		return err
	}
	return f.Commit()
}

// Read reads a cluster file into a map from word to bit string. Each line
// is bitstring<TAB>word, optionally followed by <TAB>count (Liang's
// format); name is the file's name in errors, which carry its line.
func Read(name string, r io.Reader) (map[string]string, error) {
	paths := map[string]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSuffix(sc.Text(), "\r")
		if text == "" {
			continue
		}
		f := strings.Split(text, "\t")
		if len(f) < 2 || len(f) > 3 {
			return nil, fmt.Errorf("%s:%d: want bitstring<TAB>word<TAB>count, got %d tab-separated fields", name, line, len(f))
		}
		if f[0] == "" || strings.Trim(f[0], "01") != "" {
			return nil, fmt.Errorf("%s:%d: bit string %q is not made of 0s and 1s", name, line, f[0])
		}
		if f[1] == "" {
			return nil, fmt.Errorf("%s:%d: empty word", name, line)
		}
		if len(f) == 3 {
			if _, err := strconv.ParseInt(f[2], 10, 64); err != nil {
				return nil, fmt.Errorf("%s:%d: count %q is not a whole number", name, line, f[2])
			}
		}
		if _, dup := paths[f[1]]; dup {
			return nil, fmt.Errorf("%s:%d: word %q is listed twice", name, line, f[1])
		}
		paths[f[1]] = f[0]
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%s: no clusters in the file", name)
	}
	return paths, nil
}
