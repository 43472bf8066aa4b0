package dual

import (
	"errors"
	"reflect"
	"testing"

	"github.com/trellis-nlp/trellis/framework/scheme"
)

func TestTypesAndStarts(t *testing.T) {
	labels := []string{"O", "B-PER", "I-PER", "B-LOC", "I-LOC"}
	types, names, err := Types(labels, scheme.IOB2)
	if err != nil || !reflect.DeepEqual(types, []int32{0, 1, 1, 2, 2}) || !reflect.DeepEqual(names, []string{"O", "PER", "LOC"}) {
		t.Fatalf("Types: %v %v %v", types, names, err)
	}
	if _, _, err := Types([]string{"B", "I"}, scheme.BI); !errors.Is(err, ErrNoTypes) {
		t.Fatalf("segmentation: %v", err)
	}
	starts, err := Starts(labels, scheme.IOB2, "PER")
	if err != nil || !reflect.DeepEqual(starts, []bool{false, true, false, false, false}) {
		t.Fatalf("Starts: %v %v", starts, err)
	}
	bioes := []string{"O", "B-PER", "I-PER", "E-PER", "S-PER"}
	if starts, err := Starts(bioes, scheme.BIOES, "PER"); err != nil || !reflect.DeepEqual(starts, []bool{false, true, false, false, true}) {
		t.Fatalf("Starts bioes: %v %v", starts, err)
	}
	if _, err := Starts(labels, scheme.IOB1, "PER"); err == nil {
		t.Fatal("iob1 limits accepted")
	}
	if _, err := Starts(labels, scheme.IOB2, "ORG"); err == nil {
		t.Fatal("a type without labels accepted")
	}
}

func TestGroups(t *testing.T) {
	words := [][]string{
		{"New", "York", "is", "big"},
		{"York", "and", "New", "York", "is", "new"},
	}
	var g Grouper
	got := g.Groups(Tokens{}, words, nil)
	want := [][]Site{
		{{0, 0}, {1, 2}},         // New
		{{0, 1}, {1, 0}, {1, 3}}, // York
		{{0, 2}, {1, 4}},         // is
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Tokens: %v, want %v", got, want)
	}
	got = g.Groups(Tokens{Capitalized: true}, words, nil)
	if !reflect.DeepEqual(got, want[:2]) {
		t.Fatalf("Tokens capitalized: %v, want %v", got, want[:2])
	}
	// The first sentence's span "New York" occurs twice: its tokens are
	// grouped position by position; "big" is a span seen once.
	spans := [][]scheme.Chunk{{{Type: "LOC", Start: 0, End: 2}, {Type: "X", Start: 3, End: 4}}, nil}
	got = g.Groups(Spans{}, words, spans)
	want = [][]Site{{{0, 0}, {1, 2}}, {{0, 1}, {1, 3}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Spans: %v, want %v", got, want)
	}
}
