package corpus

import (
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

func mustNew(t testing.TB, cfg Config) Format {
	t.Helper()
	f, err := New(cfg)
	if err != nil {
		t.Fatalf("New(%+v): %v", cfg, err)
	}
	return f
}

// readString reads every sentence of input as file "in.txt"; on error it
// returns the sentences read before it.
func readString(f Format, input string, opts ReadOptions) ([]*Sentence, error) {
	r := f.NewReader(strings.NewReader(input), "in.txt", opts)
	var sents []*Sentence
	for {
		s, err := r.Read()
		if err == io.EOF {
			return sents, nil
		}
		if err != nil {
			return sents, err
		}
		sents = append(sents, s)
	}
}

// summary renders a sentence compactly for table tests: its first line
// number, "*" if it starts a document, then its tokens with columns
// joined by "|".
func summary(s *Sentence) string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(s.Line))
	if s.DocStart {
		b.WriteByte('*')
	}
	b.WriteByte(':')
	for _, row := range s.Tokens {
		b.WriteByte(' ')
		b.WriteString(strings.Join(row, "|"))
	}
	return b.String()
}

func summaries(sents []*Sentence) []string {
	out := make([]string, len(sents))
	for i, s := range sents {
		out[i] = summary(s)
	}
	return out
}

// checkErr checks that err is a *Error whose message is want ("" = no
// error expected).
func checkErr(t *testing.T, err error, want string) {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	if err == nil {
		t.Fatalf("no error, want %q", want)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is a %T, want *Error", err, err)
	}
	if err.Error() != want {
		t.Fatalf("error\n got %q\nwant %q", err.Error(), want)
	}
}

// writeString writes sents with predicted labels taken from column
// labelCol (or the constant "P" if labelCol < 0) and returns the output.
func writeString(t testing.TB, f Format, sents []*Sentence, labelCol int) string {
	t.Helper()
	var b strings.Builder
	w := f.NewWriter(&b)
	for _, s := range sents {
		if err := w.Write(s, labelsOf(s, labelCol)); err != nil {
			t.Fatalf("Write: %v", err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatalf("Flush: %v", err)
	}
	return b.String()
}

func labelsOf(s *Sentence, col int) []string {
	labels := make([]string, s.Len())
	for i := range labels {
		if col >= 0 {
			labels[i] = s.Tokens[i][col]
		} else {
			labels[i] = "P"
		}
	}
	return labels
}

// dataDir returns the shared evaluation data folder, or skips the test.
// TRELLIS_DATA_DIR wins; otherwise it is <repo root>/../shared/data, the
// repo root being the nearest folder above the test holding go.mod.
func dataDir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("TRELLIS_DATA_DIR"); d != "" {
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			t.Skipf("../shared/data not found: TRELLIS_DATA_DIR=%s is not a folder", d)
		}
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Skipf("../shared/data not found: %v", err)
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			d := filepath.Join(dir, "..", "shared", "data")
			if st, err := os.Stat(d); err == nil && st.IsDir() {
				return d
			}
			t.Skipf("../shared/data not found: no folder %s next to the repository (set TRELLIS_DATA_DIR to use another place)", filepath.Clean(d))
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skipf("../shared/data not found: no go.mod above %s (set TRELLIS_DATA_DIR)", wd)
		}
		dir = parent
	}
}

// dataFile returns the path of a file in the shared data, or skips.
func dataFile(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(dataDir(t), filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		t.Skipf("../shared/data not found: %v", err)
	}
	return p
}
