// extract.go: Compile and the extractor: per sentence, each token's row
// in the table (looked up once), then the attributes of the rows at the
// offsets, with keys built in reused buffers so extraction allocates
// nothing.

package embedding

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/trellis-nlp/trellis/builtin/window"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
)

type extractor struct {
	column  int
	offsets []int
	tab     *table
	fold    bool
	// values[k][d] is the key "name[offset]:d" of offsets[k] and
	// dimension d (values); classes[k][l] is "name[offset]:K=" of
	// offsets[k] and the l-th K (classes).
	values, classes [][][]byte
	// rows[j] is the row of token j of the sentence, -1 for none.
	rows     []int32
	buf, low []byte
}

var _ feature.ColumnReader = (*extractor)(nil)

// Compile implements feature.Template. The table comes from the recorded
// settings (a model's), or from the file when Prepare has not run (the Go
// API), read once per template.
func (t *Template) Compile(name string, cols feature.Columns) (feature.Extractor, error) {
	if t.tab == nil {
		var err error
		if t.cfg.Words != "" {
			t.tab, err = t.cfg.table()
		} else {
			err = t.load()
		}
		if err != nil {
			return nil, err
		}
	}
	col, err := column(t.cfg.Column, cols)
	if err != nil {
		return nil, err
	}
	x := &extractor{column: col, offsets: t.cfg.Offsets, tab: t.tab, fold: t.cfg.Lowercase}
	if len(x.offsets) == 0 {
		x.offsets = []int{0}
	}
	for _, o := range x.offsets {
		prefix := window.OffsetPrefix(name, o) + ":"
		var keys [][]byte
		if t.cfg.mode() == ModeValues {
			for d := 0; d < t.tab.dim; d++ {
				keys = append(keys, []byte(prefix+strconv.Itoa(d)))
			}
			x.values = append(x.values, keys)
			continue
		}
		for _, k := range t.cfg.ks() {
			keys = append(keys, []byte(prefix+strconv.Itoa(k)+"="))
		}
		x.classes = append(x.classes, keys)
	}
	return x, nil
}

// column returns the index of the column named, or of the corpus's word
// column (corpus.WordColumn) when name is empty.
func column(name string, cols feature.Columns) (int, error) {
	if name == "" {
		i := corpus.WordColumn("", cols.Names, cols.Label)
		if i < 0 || i >= len(cols.Names) {
			return 0, fmt.Errorf("the corpus has no word column: set column")
		}
		name = cols.Names[i]
	}
	return cols.Index(name)
}

// ReadColumns implements feature.ColumnReader.
func (x *extractor) ReadColumns() []int { return []int{x.column} }

// Extract implements feature.Extractor.
func (x *extractor) Extract(s *corpus.Sentence, sink feature.Sink) error {
	n := s.Len()
	x.rows = slices.Grow(x.rows[:0], n)[:n]
	for j := range x.rows {
		x.rows[j] = x.tab.find(s.Tokens[j][x.column], x.fold, &x.low)
	}
	for i := 0; i < n; i++ {
		for k, o := range x.offsets {
			j := i + o
			if j < 0 || j >= n || x.rows[j] < 0 {
				continue
			}
			if x.values != nil {
				x.addValues(i, x.values[k], x.rows[j], sink)
			} else {
				x.addClasses(i, x.classes[k], x.rows[j], sink)
			}
		}
	}
	return nil
}

// addValues adds the scaled components of row's vector to token i.
func (x *extractor) addValues(i int, keys [][]byte, row int32, sink feature.Sink) {
	dim := x.tab.dim
	for d, v := range x.tab.vectors[int(row)*dim : (int(row)+1)*dim] {
		if v != 0 {
			sink.Add(i, keys[d], float64(v)*x.tab.factor)
		}
	}
}

// addClasses adds row's class under each k to token i.
func (x *extractor) addClasses(i int, keys [][]byte, row int32, sink feature.Sink) {
	for l, cl := range x.tab.classes {
		key := strconv.AppendUint(append(x.buf[:0], keys[l]...), uint64(cl[row]), 10)
		sink.Add(i, key, 1)
		x.buf = key
	}
}
