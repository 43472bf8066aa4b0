package serve

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/framework/tokenize"
)

// TestTextRequest: raw text is tokenized, tagged as its tokens sent as
// "sentences" are, and answered with offsets that give back the text;
// bad text requests are refused with 400.
func TestTextRequest(t *testing.T) {
	opts := testOptions(ModelFile{Name: "ewt", Path: trainedModel(t, "ewt")}, ModelFile{Name: "xpos", Path: trainedModel(t, "xpos")})
	opts.Tokenizer = tokenize.Rules{}
	srv := start(t, opts)
	text := "The dog barks. It is   late!\n\nNew paragraph"
	status, body := post(t, http.DefaultClient, srv.base+"/v1/models/ewt/tag", `{"text": `+quote(text)+`}`)
	if status != 200 {
		t.Fatalf("%d %s", status, body)
	}
	var got TagResponse
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"The", "dog", "barks", "."}, {"It", "is", "late", "!"}, {"New", "paragraph"}}
	if len(got.Sentences) != len(want) || len(got.Labels) != len(want) {
		t.Fatalf("%d sentences, %d label lists: %s", len(got.Sentences), len(got.Labels), body)
	}
	rs := []rune(text)
	for k, s := range got.Sentences {
		if string(rs[*s.Start:*s.End]) != s.Text || !reflect.DeepEqual(s.Labels, got.Labels[k]) {
			t.Errorf("sentence %d: %+v", k, s)
		}
		var words []string
		for _, tok := range s.Tokens {
			words = append(words, tok.Text)
			if string(rs[*tok.Start:*tok.End]) != tok.Text {
				t.Errorf("token %+v is not the text at its offsets", tok)
			}
		}
		if !reflect.DeepEqual(words, want[k]) {
			t.Errorf("sentence %d: tokens %q, want %q", k, words, want[k])
		}
	}
	// The same tokens as "sentences" get the same labels.
	toks, _ := json.Marshal(want)
	_, body2 := post(t, http.DefaultClient, srv.base+"/v1/models/ewt/tag", `{"sentences": `+string(toks)+`}`)
	var bySentences TagResponse
	if err := json.Unmarshal(body2, &bySentences); err != nil || !reflect.DeepEqual(bySentences.Labels, got.Labels) {
		t.Errorf("labels of the tokens as sentences %q, of the text %q (%v)", bySentences.Labels, got.Labels, err)
	}
	for _, tc := range []struct{ model, body, want string }{
		{"ewt", `{"text": "a", "sentences": [["a"]]}`, `not both`},
		{"xpos", `{"text": "a b"}`, `reads the columns "xpos" besides the words`},
		{"ewt", `{"text": "` + strings.Repeat("a ", 200) + `", "nbest": 1000}`, `"nbest" must be between 1 and`},
	} {
		status, body := post(t, http.DefaultClient, srv.base+"/v1/models/"+tc.model+"/tag", tc.body)
		var e struct{ Error string }
		json.Unmarshal(body, &e)
		if status != 400 || !strings.Contains(e.Error, tc.want) {
			t.Errorf("%s: %d %s, want 400 and %q", tc.body, status, body, tc.want)
		}
	}
	// A service without a tokenizer refuses text.
	none := start(t, testOptions(ModelFile{Name: "ewt", Path: trainedModel(t, "ewt")}))
	if status, body := post(t, http.DefaultClient, none.base+"/v1/models/ewt/tag", `{"text": "a b"}`); status != 400 || !strings.Contains(string(body), "no tokenizer") {
		t.Errorf("no tokenizer: %d %s", status, body)
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestShippedModelByName: a shipped model's name serves it.
func TestShippedModelByName(t *testing.T) {
	srv := start(t, testOptions(ModelFile{Name: "tok", Path: "en-tokenizer"}))
	if body := get(t, srv.base+"/v1/models"); !strings.Contains(body, `"tok"`) || !strings.Contains(body, `"sha256"`) {
		t.Errorf("models: %s", body)
	}
}
