package serve

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/pipeline"
	"github.com/trellis-nlp/trellis/framework/tagger"
	"github.com/trellis-nlp/trellis/framework/tokenize"
)

const chunkTest = "../../cmd/trellis/testdata/chunk-test.txt"

// chunkPipeline is the served pipeline "chunk": the POS tagger, then the
// chunker reading its "pos" labels.
func chunkPipeline(t testing.TB) ModelFile {
	return ModelFile{Name: "chunk", Path: trainedModel(t, "postagger"), Then: []string{trainedModel(t, "chunker")}}
}

// twoStep tags as two runs of `trellis tag` would: the POS tagger on the
// words, then the chunker on the words and those tags.
type twoStep struct {
	pos, chunk *tagger.Tagger
}

func newTwoStep(t testing.TB) *twoStep {
	return &twoStep{pos: loadTagger(t, trainedModel(t, "postagger")), chunk: loadTagger(t, trainedModel(t, "chunker"))}
}

func loadTagger(t testing.TB, path string) *tagger.Tagger {
	t.Helper()
	m, err := model.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	host := testHost()
	tg, err := tagger.New(m, testTemplates(host), tagger.Options{})
	if err != nil {
		host.Close()
		t.Fatal(err)
	}
	tg.OnClose(host.Close)
	t.Cleanup(func() { tg.Close() })
	return tg
}

// tag returns the POS tags of words and the chunker's sentences, the
// words with those tags.
func (r *twoStep) tag(t testing.TB, words [][]string) ([][]string, []*corpus.Sentence) {
	t.Helper()
	posIn, err := r.pos.TokenInput()
	if err != nil {
		t.Fatal(err)
	}
	chunkIn, err := r.chunk.TokenInput()
	if err != nil {
		t.Fatal(err)
	}
	if len(posIn.Extra) != 0 || !reflect.DeepEqual(chunkIn.ExtraNames, []string{"pos"}) {
		t.Fatalf("the POS tagger reads %q, the chunker %q: want nothing and [pos]", posIn.ExtraNames, chunkIn.ExtraNames)
	}
	sents := make([]*corpus.Sentence, len(words))
	for s, w := range words {
		sents[s] = posIn.Sentence(w, nil)
	}
	pos, err := r.pos.Tag(sents)
	if err != nil {
		t.Fatal(err)
	}
	for s, w := range words {
		sents[s] = chunkIn.Sentence(w, [][]string{pos[s]})
	}
	return pos, sents
}

// chunkWords are the words of the chunk sample's test sentences.
func chunkWords(t testing.TB, r *twoStep) [][]string {
	var out [][]string
	for _, s := range readSentences(t, r.pos.Model, chunkTest) {
		out = append(out, column(s, 0))
	}
	return out
}

// postTag posts body to url and decodes the answer, which must be a 200.
func postTag(t testing.TB, url, body string) TagResponse {
	t.Helper()
	status, b := post(t, http.DefaultClient, url, body)
	if status != 200 {
		t.Fatalf("%d %s", status, b)
	}
	var got TagResponse
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestPipelineTags: a pipeline's answer is what tagging in two steps
// gives: the chunker's labels, every model's in "tags", and the
// chunker's marginals and n-best given the POS tagger's labels; requests
// in parallel get the same.
func TestPipelineTags(t *testing.T) {
	srv := start(t, testOptions(chunkPipeline(t)))
	ref := newTwoStep(t)
	words := chunkWords(t, ref)
	pos, sents := ref.tag(t, words)
	chunks, err := ref.chunk.Tag(sents)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(TagRequest{Sentences: words})
	got := postTag(t, srv.base+"/v1/models/chunk/tag", string(body))
	if !reflect.DeepEqual(got.Labels, chunks) {
		t.Errorf("labels %q, want the chunker's on the POS tagger's labels %q", got.Labels, chunks)
	}
	if len(got.Tags) != len(words) {
		t.Fatalf("%d tags for %d sentences", len(got.Tags), len(words))
	}
	for s := range words {
		if want := map[string][]string{"pos": pos[s], "chunk": chunks[s]}; !reflect.DeepEqual(got.Tags[s], want) {
			t.Errorf("sentence %d: tags %q, want %q", s, got.Tags[s], want)
		}
	}

	// Marginals and n-best are the last model's, given the earlier labels.
	req := TagRequest{Sentences: words[:5], Marginals: true, NBest: 3}
	body, _ = json.Marshal(req)
	got = postTag(t, srv.base+"/v1/models/chunk/tag", string(body))
	detailed, err := ref.chunk.TagDetailed(sents[:5], 3)
	if err != nil {
		t.Fatal(err)
	}
	want := viaJSON(t, response("", tagged{detailed: detailed}, &req))
	if !reflect.DeepEqual(got.Labels, want.Labels) || !reflect.DeepEqual(got.Marginals, want.Marginals) ||
		!reflect.DeepEqual(got.Probabilities, want.Probabilities) || !reflect.DeepEqual(got.NBest, want.NBest) {
		t.Errorf("detailed answer %+v, want the chunker's %+v", got, want)
	}
	if len(got.Tags) != 5 || !reflect.DeepEqual(got.Tags[0]["pos"], pos[0]) || !reflect.DeepEqual(got.Tags[0]["chunk"], want.Labels[0]) {
		t.Errorf("detailed answer's tags %q", got.Tags)
	}

	// One sentence per request, in parallel: the chains of the pool.
	var wg sync.WaitGroup
	for s := range words {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, _ := json.Marshal(TagRequest{Sentences: words[s : s+1]})
			status, body := post(t, http.DefaultClient, srv.base+"/v1/models/chunk/tag", string(b))
			var r TagResponse
			if err := json.Unmarshal(body, &r); status != 200 || err != nil || len(r.Labels) != 1 || !reflect.DeepEqual(r.Labels[0], chunks[s]) {
				t.Errorf("sentence %d alone: %d %s, want %q", s, status, body, chunks[s])
			}
		}()
	}
	wg.Wait()
}

// viaJSON is resp as a client reads it.
func viaJSON(t testing.TB, resp TagResponse) TagResponse {
	b, err := json.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	var back TagResponse
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	return back
}

// TestPipelineRequestErrors: a column a pipeline's model labels cannot be
// given in "columns".
func TestPipelineRequestErrors(t *testing.T) {
	srv := start(t, testOptions(chunkPipeline(t)))
	chunker := trainedModel(t, "chunker")
	for _, tc := range []struct{ body, want string }{
		{`{"sentences": [["He","ran"]], "columns": {"pos": [["PRP","VBD"]]}}`, `columns: "pos" is labelled by the pipeline's model ` + quote(trainedModel(t, "postagger"))},
		{`{"sentences": [["He","ran"]], "columns": {"chunk": [["B-NP","B-VP"]]}}`, `columns: "chunk" is labelled by the pipeline's model ` + quote(chunker)},
		{`{"sentences": [["He","ran"]], "columns": {"lemma": [["he","run"]]}}`, `has no column "lemma"`},
	} {
		status, body := post(t, http.DefaultClient, srv.base+"/v1/models/chunk/tag", tc.body)
		var e struct{ Error string }
		json.Unmarshal(body, &e)
		if status != 400 || !strings.Contains(e.Error, tc.want) {
			t.Errorf("%s: %d %s, want 400 and %q", tc.body, status, body, tc.want)
		}
	}
}

// TestPipelineMissingProducer: a pipeline whose model reads a column no
// earlier model labels is refused at load, naming the model and the
// column; so is a pipeline with a model that cannot be read, naming it.
func TestPipelineMissingProducer(t *testing.T) {
	pos, chunker := trainedModel(t, "postagger"), trainedModel(t, "chunker")
	_, err := New(testOptions(ModelFile{Name: "backwards", Path: chunker, Then: []string{pos}}))
	if err == nil || !errors.Is(err, pipeline.ErrNoProducer) ||
		!strings.Contains(err.Error(), `model "backwards"`) || !strings.Contains(err.Error(), chunker+` reads the column "pos"`) {
		t.Errorf("chunker before the POS tagger: %v, want an error naming the model, the chunker and \"pos\"", err)
	}
	missing := pos + ".none"
	_, err = New(testOptions(ModelFile{Name: "gone", Path: pos, Then: []string{missing}}))
	if err == nil || !strings.Contains(err.Error(), `model "gone" (`+pos+"+"+missing+")") || !strings.Contains(err.Error(), missing+":") {
		t.Errorf("a missing second model: %v, want an error naming it", err)
	}
	if _, err = New(testOptions(ModelFile{Name: "empty", Path: pos, Then: []string{""}})); err == nil || !strings.Contains(err.Error(), "path is empty") {
		t.Errorf("an empty second path: %v", err)
	}
}

// TestPipelineText: raw text to a pipeline is tagged as its tokens sent
// as "sentences" are, and each token carries every model's label.
func TestPipelineText(t *testing.T) {
	opts := testOptions(chunkPipeline(t))
	opts.Tokenizer = tokenize.Rules{}
	srv := start(t, opts)
	text := "The dog barks loudly. A big cat sleeps."
	got := postTag(t, srv.base+"/v1/models/chunk/tag", `{"text": `+quote(text)+`}`)
	ref := newTwoStep(t)
	var words [][]string
	for _, s := range got.Sentences {
		var w []string
		for _, tok := range s.Tokens {
			w = append(w, tok.Text)
		}
		words = append(words, w)
	}
	if want := [][]string{{"The", "dog", "barks", "loudly", "."}, {"A", "big", "cat", "sleeps", "."}}; !reflect.DeepEqual(words, want) {
		t.Fatalf("tokens %q, want %q", words, want)
	}
	pos, sents := ref.tag(t, words)
	chunks, err := ref.chunk.Tag(sents)
	if err != nil {
		t.Fatal(err)
	}
	rs := []rune(text)
	for k, s := range got.Sentences {
		if !reflect.DeepEqual(s.Labels, chunks[k]) || !reflect.DeepEqual(got.Labels[k], chunks[k]) || len(s.Spans) == 0 {
			t.Errorf("sentence %d: labels %q (answer %q), spans %v; want chunks %q", k, s.Labels, got.Labels[k], s.Spans, chunks[k])
		}
		for i, tok := range s.Tokens {
			want := map[string]string{"pos": pos[k][i], "chunk": chunks[k][i]}
			if !reflect.DeepEqual(tok.Tags, want) || tok.Label != chunks[k][i] || string(rs[*tok.Start:*tok.End]) != tok.Text {
				t.Errorf("sentence %d token %d: %+v, want label %s and tags %v", k, i, tok, chunks[k][i], want)
			}
		}
		if !reflect.DeepEqual(got.Tags[k]["pos"], pos[k]) {
			t.Errorf("sentence %d: tags %q, want pos %q", k, got.Tags[k], pos[k])
		}
	}
}

// TestPipelineListing: GET /v1/models lists a pipeline with what a
// request gives and gets, and each model with its checksum, provenance
// and the column it labels.
func TestPipelineListing(t *testing.T) {
	pos := trainedModel(t, "postagger")
	srv := start(t, testOptions(chunkPipeline(t), ModelFile{Name: "pos", Path: pos}))
	var list struct{ Models []modelInfo }
	if err := json.Unmarshal([]byte(get(t, srv.base+"/v1/models")), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Models) != 2 || list.Models[0].Name != "chunk" || list.Models[1].Name != "pos" {
		t.Fatalf("models %+v, want chunk and pos", list.Models)
	}
	p, single := list.Models[0], list.Models[1]
	chunker := loadTagger(t, trainedModel(t, "chunker")).Model
	if len(p.ExtraColumns) != 0 || p.WordColumn != "word" || !reflect.DeepEqual(p.Labels, chunker.Labels) || p.Scheme != "iob2" ||
		p.SHA256 != "" || p.Provenance != nil || p.Taggers != 3 || len(p.Stages) != 2 {
		t.Fatalf("pipeline entry %+v", p)
	}
	for k, tc := range []struct{ path, column string }{{pos, "pos"}, {trainedModel(t, "chunker"), "chunk"}} {
		st := p.Stages[k]
		m, err := model.Load(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Name != tc.path || st.SHA256 != fileSHA256(t, tc.path) || st.LabelColumn != tc.column ||
			st.Provenance == nil || !reflect.DeepEqual(*st.Provenance, m.Provenance) || st.Learner == nil || st.Learner.Type != m.Learner.Type {
			t.Errorf("stage %d: %+v, want %s labelling %q", k, st, tc.path, tc.column)
		}
	}
	if got := p.Stages[1].ExtraColumns; !reflect.DeepEqual(got, []string{"pos"}) {
		t.Errorf("the chunker reads %q, want [pos]", got)
	}
	if single.Stages != nil || single.SHA256 != fileSHA256(t, pos) || single.Name != "pos" {
		t.Errorf("one model's entry %+v", single)
	}
}

func fileSHA256(t testing.TB, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d := sha256.Sum256(b)
	return hex.EncodeToString(d[:])
}
