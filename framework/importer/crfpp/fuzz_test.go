package crfpp

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse feeds Parse arbitrary text. It must never panic; what it
// accepts must read back the same way from its own parts, and the spec
// WriteSpec makes of it must decode.
func FuzzParse(f *testing.F) {
	paths, _ := filepath.Glob("testdata/*.template")
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(src))
	}
	f.Add("U%x[-0,0]%x[007,1]\nB\n")
	f.Add("U${%x[1,0]}\n")
	f.Add("U\xff\r%x[0,0]\u2028\x00\n")
	dir := dataDir(f)
	cols := []string{"c0", "c1", "c2", "c3", "y"}
	f.Fuzz(func(t *testing.T, src string) {
		file, err := Parse("fuzz", strings.NewReader(src))
		if err != nil {
			var errs Errors
			if !errors.As(err, &errs) && !strings.Contains(err.Error(), "longer than") {
				t.Fatalf("Parse error %v is not an Errors", err)
			}
			return
		}
		for _, tm := range file.Templates {
			if len(tm.Literals) != len(tm.Macros)+1 {
				t.Fatalf("%q: %d literals for %d macros", tm.Text, len(tm.Literals), len(tm.Macros))
			}
			// The parts, printed canonically, parse to the same parts.
			var b strings.Builder
			for k, m := range tm.Macros {
				fmt.Fprintf(&b, "%s%%x[%d,%d]", tm.Literals[k], m.Row, m.Column)
			}
			b.WriteString(tm.Literals[len(tm.Macros)])
			again, err := Parse("again", strings.NewReader(b.String()))
			if err != nil || len(again.Templates) != 1 {
				t.Fatalf("%q printed as %q does not parse back: %v", tm.Text, b.String(), err)
			}
			a := again.Templates[0]
			if strings.Join(a.Literals, "\x00") != strings.Join(tm.Literals, "\x00") || fmt.Sprint(rowsCols(a)) != fmt.Sprint(rowsCols(tm)) {
				t.Fatalf("%q reads back as %+v, was %+v", b.String(), a, tm)
			}
		}
		var out bytes.Buffer
		if _, err := WriteSpec(&out, file, Options{Columns: cols, Train: "train.data", Test: "test.data", C: 1, Eta: 1e-4}); err != nil {
			if out.Len() > 0 {
				t.Fatalf("WriteSpec failed (%v) after writing", err)
			}
			return
		}
		decode(t, dir, out.Bytes(), nil)
	})
}

func rowsCols(t *Template) [][2]int {
	var rc [][2]int
	for _, m := range t.Macros {
		rc = append(rc, [2]int{m.Row, m.Column})
	}
	return rc
}
