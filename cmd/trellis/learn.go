package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/run"
	"github.com/trellis-nlp/trellis/framework/rundir"
	"github.com/trellis-nlp/trellis/framework/scheme"
	"github.com/trellis-nlp/trellis/framework/spec"
)

// learnCommand trains one model from a data file alone, the way
// `crfsuite learn` does: the spec is written for the user, not by them.
func learnCommand() command {
	return command{
		Name: "learn",
		Usage: []string{
			"-m MODEL TRAIN [--algorithm TYPE] [-p name=value]... [--dev FILE] [--force]",
			"-m MODEL TRAIN [--format FORMAT] [--columns word,pos,chunk] [--label COLUMN] [--scheme SCHEME]",
		},
		Summary: "train one model from a data file with default features, writing the spec it used",
		Description: "Trains MODEL on TRAIN without a spec, like crfsuite learn, and writes the spec it trained with beside the model " +
			"(MODEL with the extension .hcl, or --spec-out): `trellis run SPEC --out DIR` trains the same model again, to the byte, " +
			"and the spec is where to grow from.\n" +
			"The format is read from the file unless --format gives it: CoNLL-U; CRFsuite's attribute lines; one token per line in columns " +
			"(named word, pos, col3, …, label: the label last, unless --columns and --label say otherwise); word/TAG sentences; " +
			"else segmented text, for word segmentation. The label scheme is the one every sentence fits (iob2, iob1, bioes; else none). " +
			"The features follow the columns: words get windows, bigrams, affixes and shapes, a pos column its windows, bigrams and trigrams " +
			"(as specs/conll2000.hcl); CoNLL-U gets specs/ud-ewt.hcl's set, segmented text specs/msr-cws.hcl's, CRFsuite files their own attributes.\n" +
			"The scores printed are on --dev FILE, else on the training data. Only the model and the spec are kept, both written only when " +
			"training succeeds, and neither replaces a file without --force. -p name=value sets a learner setting " +
			"(crf: c1, c2, max_iterations, …); CRFsuite's algorithm names lbfgs, l2sgd and ap are accepted too.",
		Run: (*app).cmdLearn,
	}
}

// overwrite says whether learn may replace an existing model and spec.
type overwrite int

const (
	keepExisting overwrite = iota
	replaceExisting
)

// learnOptions are the learn command's settings, checked.
type learnOptions struct {
	model, specOut, train, dev string
	// algorithm is a learner type; params its settings as HCL (-p, and
	// what a CRFsuite algorithm name implies).
	algorithm string
	params    []specAttr
	format    corpus.Config // Name "" detects it; Columns and Label as given
	scheme    string        // "" detects it
	seed      int64
	threads   int
	overwrite overwrite
	// command is the command line, for the spec's header.
	command string
}

func (a *app) cmdLearn(ctx context.Context, args []string) error {
	flags := newFlagSet("learn", a.stderr)
	var o learnOptions
	var params listFlag
	flags.StringVar(&o.model, "m", "", "the `MODEL` file to write (required)")
	flags.StringVar(&o.model, "model", "", "the `MODEL` file to write (same as -m)")
	flags.StringVar(&o.algorithm, "algorithm", "crf", "the learner `TYPE` ("+strings.Join(learnerTypes(), ", ")+"; or CRFsuite's lbfgs, l2sgd, ap)")
	flags.StringVar(&o.algorithm, "a", "crf", "same as --algorithm")
	flags.StringVar(&o.format.Name, "format", "", "the data's `FORMAT`: conll, conllu, slash, chars or crfsuite (default: read from the file)")
	columns := flags.String("columns", "", "conll: the `NAMES` of the columns, in file order (default word,label; word,pos,label; word,pos,col3,…,label)")
	flags.StringVar(&o.format.Label, "label", "", "the label `COLUMN` (default: conll the last column, conllu upos)")
	flags.StringVar(&o.scheme, "scheme", "", "the label `SCHEME`: iob1, iob2, bioes, bmes, bi or none (default: the one every training sentence fits)")
	flags.StringVar(&o.dev, "dev", "", "held-out `FILE` in the same format, scored during training and at the end")
	flags.StringVar(&o.specOut, "spec-out", "", "the spec `FILE` to write (default: MODEL with the extension .hcl)")
	flags.Int64Var(&o.seed, "seed", 1, "the experiment's `SEED`")
	flags.IntVar(&o.threads, "threads", runtime.NumCPU(), "`N` worker threads for training (default: the number of cores; the model does not depend on it)")
	flags.Var(&params, "p", "a learner setting `name=value` (repeatable), as crfsuite learn -p")
	force := flags.Bool("force", false, "replace an existing MODEL and spec")
	pos, err := parseInterspersed(flags, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("learn takes one training file (`trellis learn --help`)")
	}
	o.train, o.command = pos[0], commandLine(a.args)
	if *force {
		o.overwrite = replaceExisting
	}
	if *columns != "" {
		o.format.Columns = strings.Split(*columns, ",")
	}
	if err := o.check(params); err != nil {
		return err
	}
	return a.learn(ctx, o)
}

// learnerTypes are the learner types --algorithm takes.
func learnerTypes() []string {
	_, learners := builtin.Registries()
	return learners.RegistrationOrder()
}

// crfsuiteAlgorithms are crfsuite learn's -a names that are not trellis
// learner types, and the learner and settings that train the same way.
var crfsuiteAlgorithms = map[string]struct {
	typ    string
	params []specAttr
}{
	"lbfgs": {typ: "crf"},
	"l2sgd": {typ: "crf", params: []specAttr{{"algorithm", `"sgd"`}}},
	"ap":    {typ: "perceptron"},
}

// check validates the flags that need no file and fills in the defaults
// that follow from them.
func (o *learnOptions) check(params []string) error {
	switch {
	case o.model == "":
		return usagef("learn needs -m MODEL, the model file to write")
	case o.threads < 1:
		return usagef("--threads must be at least 1")
	case o.seed < 0:
		return usagef("--seed must be a non-negative integer")
	case o.scheme != "":
		if _, err := scheme.Parse(o.scheme); err != nil {
			return usagef("--scheme: %v", err)
		}
	}
	if len(o.format.Columns) > 0 && o.format.Name != "" && o.format.Name != corpus.NameCoNLL {
		return usagef("--columns names the columns of the conll format; %s has fixed columns", o.format.Name)
	}
	seen := map[string]bool{}
	if alias, ok := crfsuiteAlgorithms[o.algorithm]; ok {
		o.algorithm, o.params = alias.typ, slices.Clone(alias.params)
		for _, p := range alias.params {
			seen[p.name] = true
		}
	}
	_, learners := builtin.Registries()
	if _, ok := learners.Lookup(o.algorithm); !ok {
		if s := learners.Suggest(o.algorithm); s != "" {
			return usagef("--algorithm %q: unknown; did you mean %q? (want %s)", o.algorithm, s, strings.Join(learnerTypes(), ", "))
		}
		return usagef("--algorithm %q: unknown (want %s)", o.algorithm, strings.Join(learnerTypes(), ", "))
	}
	for _, p := range params {
		name, value, ok := strings.Cut(p, "=")
		name = strings.TrimSpace(name)
		switch {
		case !ok || name == "":
			return usagef("-p %q: want name=value", p)
		case name == "type":
			return usagef("-p type: the learner type is --algorithm")
		case seen[name]:
			return usagef("-p %s is given twice, or with an --algorithm that sets it", name)
		}
		seen[name] = true
		o.params = append(o.params, specAttr{name, hclValue(value)})
	}
	if o.specOut == "" {
		o.specOut = strings.TrimSuffix(o.model, filepath.Ext(o.model)) + ".hcl"
	}
	return nil
}

// hclValue is a -p value as HCL: numbers and booleans as they are,
// anything else as a string.
func hclValue(v string) string {
	v = strings.TrimSpace(v)
	if v == "true" || v == "false" {
		return v
	}
	if hclNumber.MatchString(v) {
		return v
	}
	return hclQuote(v)
}

// hclNumber is a number as HCL writes it (ParseFloat would take "inf"
// and "0x10" too).
var hclNumber = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$`)

// quote is s as an HCL string literal ("${" and "%{" escaped).
func hclQuote(s string) string {
	return string(hclwrite.TokensForValue(cty.StringVal(s)).Bytes())
}

// learn checks where the files go and what the data is, writes the spec
// and trains through it.
func (a *app) learn(ctx context.Context, o learnOptions) error {
	if err := checkTargets(o); err != nil {
		return err
	}
	lay, err := detectLayout(o)
	if err != nil {
		return err
	}
	sch, sents, err := readTraining(o.train, lay.cfg)
	if err != nil {
		return err
	}
	if o.scheme != "" {
		sch, _ = scheme.Parse(o.scheme)
	}
	if o.dev != "" {
		if _, _, err := readTraining(o.dev, lay.cfg); err != nil {
			return err
		}
	}
	feats, err := chooseFeatures(lay, o.algorithm)
	if err != nil {
		return err
	}
	a.log.Info().Str("format", lay.cfg.Name).Str("columns", strings.Join(lay.columns, " ")).Str("label", lay.cfg.Label).
		Str("scheme", sch.String()).Str("features", feats.what).Int("sentences", sents).Msg(lay.why)
	if err := a.trainAndPlace(ctx, o, specSource(o, lay, sch, feats)); err != nil {
		return err
	}
	a.log.Info().Str("model", o.model).Str("spec", o.specOut).
		Msg("model written; `trellis run " + o.specOut + " --out DIR` trains it again")
	return nil
}

// checkTargets refuses, before any work, what would fail at the end: a
// folder that is not there, a file that is there without --force, a
// training file that cannot be read.
func checkTargets(o learnOptions) error {
	if absPath(o.model) == absPath(o.specOut) {
		return usagef("the spec would overwrite the model %s: give the model another extension than .hcl, or --spec-out", o.model)
	}
	for _, p := range []string{o.model, o.specOut} {
		if st, err := os.Stat(filepath.Dir(p)); err != nil || !st.IsDir() {
			return usagef("%s: folder %s does not exist", p, filepath.Dir(p))
		}
		st, err := os.Stat(p)
		switch {
		case err == nil && st.IsDir():
			return usagef("%s is a folder", p)
		case err == nil && o.overwrite == keepExisting:
			return usagef("%s exists (--force replaces it)", p)
		}
	}
	for _, p := range []string{o.train, o.dev} {
		if p == "" {
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			return usagef("cannot read %v", err)
		}
		f.Close()
	}
	return nil
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// trainAndPlace trains through the spec src as `trellis run` would, into
// a temporary run directory, and then writes the spec and moves the
// model into place.
//
// The run directory is temporary and hidden beside the model: a user of
// crfsuite learn asks for one file, and whatever else a run writes
// (predictions, report) `trellis run SPEC` makes again, with the same
// model. Beside the model it is on the model's filesystem, so the model
// is renamed into place whole. The spec is decoded under its final name,
// so that its relative paths read the files they will read there and its
// diagnostics name it.
func (a *app) trainAndPlace(ctx context.Context, o learnOptions, src []byte) error {
	templates, learners := builtin.Registries()
	s, diags := spec.Decode(o.specOut, src, nil, spec.Registries{Templates: templates, Learners: learners})
	if len(diags) > 0 {
		spec.WriteDiagnostics(a.stderr, diags, map[string][]byte{o.specOut: src})
	}
	if diags.HasErrors() {
		return usagef("%s is not written: the spec learn made has errors (-p gives settings of its learner block)", o.specOut)
	}
	runDir, err := os.MkdirTemp(filepath.Dir(o.model), "."+filepath.Base(o.model)+".learn-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(runDir)
	if o.dev == "" {
		a.log.Info().Msg("no --dev file: the scores below are on the training data")
	}
	_, err = run.Run(ctx, run.Options{
		Spec: s, Templates: templates, OutDir: runDir, Threads: o.threads,
		Log: a.log, Command: a.args, Stdout: a.stdout, Progress: a.progress,
		Warn:           func(d hcl.Diagnostics) { a.printDiagnostics(s, d) },
		PhaseGCPercent: phaseGCPercent(),
	})
	if err != nil {
		if de := corpusDataError(err); de != nil {
			return de
		}
		return a.runError(s, err)
	}
	return placeAll(o, src, rundir.ModelPath(runDir, o.algorithm))
}

// placeAll writes the spec and moves the trained model into place, the
// spec first: a model is never left without the spec that made it.
func placeAll(o learnOptions, src []byte, model string) error {
	specTmp, err := writeHidden(o.specOut, src)
	if err != nil {
		return err
	}
	defer os.Remove(specTmp)
	if err := placeFile(specTmp, o.specOut, o.overwrite); err != nil {
		return err
	}
	if err := placeFile(model, o.model, o.overwrite); err != nil {
		if o.overwrite == keepExisting {
			os.Remove(o.specOut) // it was not there before
		}
		return err
	}
	return nil
}

// writeHidden writes data to a hidden temporary file beside path, readable
// by all like the file it will become.
func writeHidden(path string, data []byte) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return "", err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// placeFile moves the finished file tmp to path. Without --force a file that
// appeared at path during training is kept: a hard link is made only
// where nothing is, and only where links are not supported is the check
// and the rename two steps.
func placeFile(tmp, path string, ow overwrite) error {
	if ow == replaceExisting {
		return os.Rename(tmp, path)
	}
	err := os.Link(tmp, path)
	switch {
	case err == nil:
		return os.Remove(tmp)
	case errors.Is(err, fs.ErrExist):
		return usagef("%s appeared while training; it is kept (--force replaces it)", path)
	}
	if _, err := os.Lstat(path); err == nil {
		return usagef("%s appeared while training; it is kept (--force replaces it)", path)
	}
	return os.Rename(tmp, path)
}

// corpusDataError is a data error in a file (which names file:line and
// shows the line) as a usage error (exit 2); nil for any other error.
func corpusDataError(err error) error {
	var ce *corpus.Error
	if !errors.As(err, &ce) {
		return nil
	}
	return usagef("%v", ce)
}

// readTraining reads a labelled file through in layout cfg, so a data
// error stops learn before anything is written, and returns the scheme
// every sentence's labels fit and the number of sentences.
func readTraining(path string, cfg corpus.Config) (scheme.Scheme, int, error) {
	f, err := corpus.New(cfg)
	if err != nil {
		return scheme.None, 0, usagef("%v", err)
	}
	fh, err := os.Open(path)
	if err != nil {
		return scheme.None, 0, usagef("cannot read %v", err)
	}
	defer fh.Close()
	r := f.NewReader(fh, path, corpus.ReadOptions{})
	lc := f.LabelColumn()
	var fit scheme.Fit
	var labels []string
	for {
		s, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			if de := corpusDataError(err); de != nil {
				return scheme.None, 0, de
			}
			return scheme.None, 0, err
		}
		labels = labels[:0]
		for _, tok := range s.Tokens {
			labels = append(labels, tok[lc])
		}
		fit.Add(labels)
	}
	if fit.Sentences() == 0 {
		return scheme.None, 0, usagef("%s: no sentences", path)
	}
	return fitScheme(cfg, &fit), fit.Sentences(), nil
}

// fitScheme is the span scheme every sentence fits, IOB2 first (the
// stricter of the IOB pair), else None: tags without B-/I-/O prefixes.
// Segmented text is always BMES or BI, as the format derives it.
func fitScheme(cfg corpus.Config, fit *scheme.Fit) scheme.Scheme {
	if cfg.Name == corpus.NameChars {
		if strings.EqualFold(cfg.CharScheme, "BI") {
			return scheme.BI
		}
		return scheme.BMES
	}
	for _, s := range []scheme.Scheme{scheme.IOB2, scheme.IOB1, scheme.BIOES} {
		if fit.Contradicting(s) == 0 {
			return s
		}
	}
	return scheme.None
}

// learnerFor is a fresh learner of type name, for what it says of the
// templates it takes.
func learnerFor(name string) learn.Learner {
	_, learners := builtin.Registries()
	l, _ := learners.New(name)
	return l
}

// learnLayout is how learn reads the training file.
type learnLayout struct {
	cfg     corpus.Config
	columns []string // the format's column names, in row order
	why     string   // how the format was told, for the log
}

// label is the index of the label column in columns.
func (l learnLayout) label() int {
	for i, c := range l.columns {
		if c == l.cfg.Label || l.cfg.Name == corpus.NameCoNLLU && strings.EqualFold(c, l.cfg.Label) {
			return i
		}
	}
	return -1
}

// word is the index of the word column, -1 for CRFsuite's attributes.
func (l learnLayout) word() int { return corpus.WordColumn(l.cfg.Name, l.columns, l.label()) }

// detectLayout settles the format (--format, else read from the file),
// the conll column names and the label column.
func detectLayout(o learnOptions) (learnLayout, error) {
	lay := learnLayout{cfg: o.format, why: "format given by --format"}
	if lay.cfg.Name == "" && len(lay.cfg.Columns) > 0 {
		lay.cfg.Name, lay.why = corpus.NameCoNLL, "columns given by --columns"
	}
	if lay.cfg.Name == "" || lay.cfg.Name == corpus.NameCoNLL && len(lay.cfg.Columns) == 0 {
		sn, err := sniffFile(o.train)
		if err != nil {
			return lay, err
		}
		if lay.cfg.Name == "" {
			lay.cfg.Name, lay.why = sn.format(o.train)
		}
		if lay.cfg.Name == corpus.NameCoNLL && len(lay.cfg.Columns) == 0 {
			n := sn.columns()
			if n < 2 {
				return lay, usagef("%s: one column per token line, so no labels to learn (--format and --columns say how to read it)", o.train)
			}
			lay.cfg.Columns = defaultColumns(n)
		}
	}
	if lay.cfg.Label == "" {
		lay.cfg.Label = defaultLabel(lay.cfg)
	}
	f, err := corpus.New(lay.cfg)
	if err != nil {
		return lay, usagef("%v", err)
	}
	if f.LabelColumn() < 0 {
		return lay, usagef("the %s format has no label column", lay.cfg.Name)
	}
	lay.columns = f.Columns()
	if w := lay.word(); w >= 0 && w == lay.label() {
		return lay, usagef("the label column %q is the only column: there is nothing to read features from", lay.cfg.Label)
	}
	return lay, nil
}

// defaultColumns names n conll columns: the word first, the label last,
// a POS column second when there are three or more (CoNLL-2000's and
// CoNLL-2003's layout).
func defaultColumns(n int) []string {
	cols := []string{"word"}
	if n >= 3 {
		cols = append(cols, "pos")
	}
	for i := len(cols) + 1; i < n; i++ {
		cols = append(cols, fmt.Sprintf("col%d", i))
	}
	return append(cols, "label")
}

// defaultLabel is the label column of a format when --label is not given.
func defaultLabel(cfg corpus.Config) string {
	switch cfg.Name {
	case corpus.NameCoNLL:
		return cfg.Columns[len(cfg.Columns)-1]
	case corpus.NameCoNLLU:
		return "upos"
	case corpus.NameSlash:
		return "tag"
	}
	return "label" // chars, crfsuite
}

// sniffLimit is how many lines format detection reads: hundreds of
// sentences, never the whole of a large corpus.
const sniffLimit = 5000

// formatSniff tallies the shape of a file's first lines.
type formatSniff struct {
	lines, blank int         // token lines (not blank, not #) and blank lines
	runs         int         // runs of consecutive token lines
	fields       map[int]int // lines by their number of whitespace-separated fields
	tabbed       int         // token lines with a tab
	conllu       int         // lines of 10 tab-separated fields with a numeric ID
	after, attrs int         // fields after the first of tabbed lines; those with "="
	words, slash int         // fields; those of the form word/TAG
}

// sniffFile reads the first lines of path.
func sniffFile(path string) (*formatSniff, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, usagef("cannot read %v", err)
	}
	defer f.Close()
	sn := &formatSniff{fields: map[int]int{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<16), 64<<20)
	inRun := false
	for n := 0; n < sniffLimit && sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		if n == 0 {
			line = strings.TrimPrefix(line, "\ufeff")
		}
		switch {
		case strings.TrimSpace(line) == "":
			sn.blank++
			inRun = false
			continue
		case strings.HasPrefix(line, "#"):
			continue
		}
		if !inRun {
			sn.runs++
		}
		inRun = true
		sn.add(line)
	}
	// A read error (a line too long) is left for the corpus reader, which
	// reports it with its line.
	return sn, nil
}

// add tallies one token line.
func (sn *formatSniff) add(line string) {
	sn.lines++
	fields := strings.Fields(line)
	sn.fields[len(fields)]++
	for _, f := range fields {
		sn.words++
		if i := strings.LastIndexByte(f, '/'); i > 0 && i < len(f)-1 {
			sn.slash++
		}
	}
	if !strings.Contains(line, "\t") {
		return
	}
	sn.tabbed++
	tabs := strings.Split(line, "\t")
	if _, err := strconv.Atoi(tabs[0]); err == nil && len(tabs) == 10 {
		sn.conllu++
	}
	for _, f := range tabs[1:] {
		sn.after++
		if strings.Contains(f, "=") {
			sn.attrs++
		}
	}
}

// columns is the most common number of fields of a token line.
func (sn *formatSniff) columns() int {
	best := 0
	for n, k := range sn.fields {
		if k > sn.fields[best] || k == sn.fields[best] && n < best {
			best = n
		}
	}
	return best
}

// format names the format the lines look like, and why.
func (sn *formatSniff) format(path string) (name, why string) {
	// Token per line: sentences of several lines between blank lines, or
	// a blank-less file whose lines all have the same columns.
	tokenPerLine := sn.blank > 0 && sn.lines >= 2*sn.runs ||
		sn.blank == 0 && len(sn.fields) == 1 && sn.lines >= 2 && sn.columns() >= 2
	switch {
	case strings.HasSuffix(strings.ToLower(path), ".conllu"):
		return corpus.NameCoNLLU, "CoNLL-U, by the file's extension"
	case sn.lines > 0 && sn.conllu*2 > sn.lines:
		return corpus.NameCoNLLU, "CoNLL-U: token lines of 10 tab-separated fields with numeric IDs"
	case tokenPerLine && sn.tabbed == sn.lines && (len(sn.fields) > 1 || sn.attrs*2 > sn.after):
		return corpus.NameCRFsuite, "CRFsuite's format: a label and tab-separated attributes per token line"
	case tokenPerLine:
		return corpus.NameCoNLL, fmt.Sprintf("conll: one token per line in %d columns, sentences separated by blank lines", sn.columns())
	case sn.words > 0 && sn.slash*10 >= sn.words*9:
		return corpus.NameSlash, "slash: one sentence per line of word/TAG tokens"
	}
	return corpus.NameChars, "chars: one sentence per line of words separated by spaces (segmented text, tagged per character)"
}

// specAttr is one attribute of a generated block, its value as HCL.
type specAttr struct{ name, value string }

// specBlock is one generated template block.
type specBlock struct {
	typ, name string
	attrs     []specAttr
}

// featureSet is the template blocks of a generated spec and what the
// spec's header calls them.
type featureSet struct {
	blocks []specBlock
	what   string
}

// infos are the blocks as the spec describes them to a learner that
// checks its templates.
func (set featureSet) infos() []learn.TemplateInfo {
	var out []learn.TemplateInfo
	for _, b := range set.blocks {
		ti := learn.TemplateInfo{Name: b.name, Type: b.typ, Transitions: b.typ == "transition", Order: 1}
		for _, a := range b.attrs {
			if a.name == "order" {
				ti.Order, _ = strconv.Atoi(a.value)
			}
		}
		out = append(out, ti)
	}
	return out
}

// chooseFeatures is the default set for the layout, or, for a learner
// that reads only certain templates (tnt) and refuses it, TnT's set.
func chooseFeatures(lay learnLayout, algorithm string) (featureSet, error) {
	set := defaultFeatures(lay)
	tc, ok := learnerFor(algorithm).(learn.TemplateChecker)
	if !ok || tc.CheckTemplates(set.infos()) == nil {
		return set, nil
	}
	w := lay.word()
	if w < 0 {
		return set, usagef("--algorithm %s reads words, and the %s format has none", algorithm, lay.cfg.Name)
	}
	col := hclQuote(lay.columns[w])
	tnt := featureSet{what: "TnT's (as specs/ud-ewt-tnt.hcl): the word, a suffix trie, second-order transitions", blocks: []specBlock{
		{"emission", "word", []specAttr{{"column", col}}},
		{"suffix_trie", "suffix", []specAttr{{"column", col}, {"max_length", "10"}}},
		{"transition", "trans", []specAttr{{"order", "2"}}},
	}}
	if err := tc.CheckTemplates(tnt.infos()); err != nil {
		return set, usagef("--algorithm %s: %v", algorithm, err)
	}
	return tnt, nil
}

// defaultFeatures is the template set for the layout's columns.
func defaultFeatures(lay learnLayout) featureSet {
	trans := specBlock{"transition", "trans", nil}
	switch lay.cfg.Name {
	case corpus.NameCoNLLU:
		return featureSet{append(formBlocks(hclQuote(lay.columns[lay.word()])), trans), "specs/ud-ewt.hcl's, on the form"}
	case corpus.NameChars:
		return featureSet{append(charBlocks(hclQuote(lay.columns[lay.word()])), trans), "specs/msr-cws.hcl's: characters and character bigrams"}
	case corpus.NameCRFsuite:
		return featureSet{[]specBlock{{"attributes", "attributes", nil}, trans}, "the file's own attributes, as crfsuite learn"}
	}
	word, label := lay.word(), lay.label()
	set := featureSet{blocks: wordBlocks(hclQuote(lay.columns[word])), what: "words (window and bigrams as specs/conll2000.hcl, affixes and shape as specs/ud-ewt.hcl)"}
	for i, c := range lay.columns {
		switch {
		case i == word || i == label:
		case isPOS(c):
			set.blocks = append(set.blocks, posBlocks(c)...)
			set.what += fmt.Sprintf("; %s window, bigrams and trigrams (specs/conll2000.hcl)", c)
		default:
			set.blocks = append(set.blocks, specBlock{"emission", c, []specAttr{{"column", hclQuote(c)}}})
			set.what += fmt.Sprintf("; %s at the token", c)
		}
	}
	set.blocks = append(set.blocks, specBlock{"boundary", "bound", nil}, trans)
	return set
}

// isPOS reports whether a column's name says it holds part-of-speech tags.
func isPOS(name string) bool {
	switch strings.ToLower(name) {
	case "pos", "tag", "upos", "xpos", "postag", "cpos":
		return true
	}
	return false
}

// wordBlocks are specs/conll2000.hcl's word templates with
// specs/ud-ewt.hcl's affixes and shapes.
func wordBlocks(col string) []specBlock {
	return append([]specBlock{
		{"emission", "w", []specAttr{{"column", col}, {"offsets", "[-2, -1, 0, 1, 2]"}}},
		{"emission", "w2", []specAttr{{"column", col}, {"offsets", "[-1, 0]"}, {"ngram", "2"}}},
	}, formTail(col)...)
}

// formTail are specs/ud-ewt.hcl's affix, shape, case, digit and hyphen
// templates, which the word and the CoNLL-U sets share.
func formTail(col string) []specBlock {
	return []specBlock{
		{"prefix", "pre", []specAttr{{"column", col}, {"lengths", "[1, 2, 3]"}}},
		{"suffix", "suf", []specAttr{{"column", col}, {"lengths", "[1, 2, 3, 4]"}}},
		{"shape", "shape", []specAttr{{"column", col}, {"offsets", "[-1, 0, 1]"}, {"kind", `"compact"`}}},
		{"case", "case", []specAttr{{"column", col}}},
		{"digit", "dig", []specAttr{{"column", col}}},
		{"hyphen", "hyph", []specAttr{{"column", col}}},
	}
}

// posBlocks are specs/conll2000.hcl's POS templates on column col.
func posBlocks(col string) []specBlock {
	q := hclQuote(col)
	return []specBlock{
		{"emission", col, []specAttr{{"column", q}, {"offsets", "[-2, -1, 0, 1, 2]"}}},
		{"emission", col + "2", []specAttr{{"column", q}, {"offsets", "[-2, -1, 0, 1]"}, {"ngram", "2"}}},
		{"emission", col + "3", []specAttr{{"column", q}, {"offsets", "[-2, -1, 0]"}, {"ngram", "3"}}},
	}
}

// formBlocks are specs/ud-ewt.hcl's templates.
func formBlocks(col string) []specBlock {
	return append([]specBlock{
		{"emission", "w", []specAttr{{"column", col}, {"offsets", "[-2, -1, 0, 1, 2]"}, {"lowercase", "true"}}},
		{"emission", "form", []specAttr{{"column", col}}},
	}, formTail(col)...)
}

// charBlocks are specs/msr-cws.hcl's templates.
func charBlocks(col string) []specBlock {
	return []specBlock{
		{"emission", "c", []specAttr{{"column", col}, {"offsets", "[-2, -1, 0, 1, 2]"}}},
		{"emission", "c2", []specAttr{{"column", col}, {"offsets", "[-2, -1, 0, 1]"}, {"ngram", "2"}}},
		{"digit", "dig", []specAttr{{"column", col}}},
	}
}

// specSource is the spec learn trains with, as HCL formatted like the
// specs in specs/.
func specSource(o learnOptions, lay learnLayout, sch scheme.Scheme, set featureSet) []byte {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	writeSpecHeader(&b, o, lay, sch, set)
	name := strings.TrimSuffix(filepath.Base(o.model), filepath.Ext(o.model))
	if name == "" {
		name = "learn"
	}
	p("\nexperiment %s {\n  seed = %d\n  description = %s\n}\n", hclQuote(name), o.seed,
		hclQuote("Trained by trellis learn on "+filepath.Base(o.train)+"."))
	corpora := []struct{ name, path string }{{"train", o.train}, {"dev", o.dev}}
	for _, c := range corpora {
		if c.path == "" {
			continue
		}
		p("\ncorpus %q {\n  path = %s\n  format = %s\n", c.name, hclQuote(specPath(o.specOut, c.path)), hclQuote(lay.cfg.Name))
		if lay.cfg.Name == corpus.NameCoNLL {
			p("  columns = [%s]\n", quoteList(lay.cfg.Columns))
		}
		if lay.cfg.CharScheme != "" {
			p("  char_scheme = %s\n", hclQuote(lay.cfg.CharScheme))
		}
		p("}\n")
	}
	p("\nlabels {\n  column = %s\n  scheme = %s\n}\n", hclQuote(lay.cfg.Label), hclQuote(sch.String()))
	p("\nfeatures {\n")
	for _, bl := range set.blocks {
		writeBlock(&b, "  ", bl)
	}
	p("}\n\n")
	writeBlock(&b, "", specBlock{"learner", o.algorithm, append([]specAttr{{"type", hclQuote(o.algorithm)}}, o.params...)})
	if o.dev != "" {
		p("\nevaluation {\n  train = \"train\"\n  dev = \"dev\"\n  test = \"dev\"\n}\n")
	} else {
		p("\nevaluation {\n  train = \"train\"\n  test = \"train\" # no held-out file (--dev): scored on the training data\n}\n")
	}
	return hclwrite.Format([]byte(b.String()))
}

// writeSpecHeader writes the comment that says where the spec came from
// and how to use it.
func writeSpecHeader(b *strings.Builder, o learnOptions, lay learnLayout, sch scheme.Scheme, set featureSet) {
	// A line break in an argument would end a comment.
	oneLine := strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace
	how := "every training sentence fits it"
	switch {
	case o.scheme != "":
		how = "given by --scheme"
	case sch == scheme.None:
		how = "the labels fit no span scheme: scored by accuracy"
	case lay.cfg.Name == corpus.NameChars:
		how = "the format's"
	}
	paras := []string{
		fmt.Sprintf("The spec trellis learn trained %s with:", oneLine(filepath.Base(o.model))),
		"  " + oneLine(o.command),
		"",
		fmt.Sprintf("Read from %s: %s. Labels: column %q, scheme %s (%s). Features: %s.",
			oneLine(filepath.Base(o.train)), lay.why, lay.cfg.Label, sch, how, set.what),
		"",
		fmt.Sprintf("`trellis run %s --out DIR` trains the same model again, to the byte, as DIR/models/%s.model, with the run's report; edit this file to grow from it.",
			oneLine(filepath.Base(o.specOut)), o.algorithm),
	}
	for i, para := range paras {
		if i == 1 { // the command line stays whole, to copy
			fmt.Fprintf(b, "# %s\n", para)
			continue
		}
		fmt.Fprintf(b, "%s\n", strings.TrimRight(indent(wrap(para, 76), "# "), " "))
	}
}

// writeBlock writes one block with its attributes at indent.
func writeBlock(b *strings.Builder, indent string, bl specBlock) {
	if len(bl.attrs) == 0 {
		fmt.Fprintf(b, "%s%s %s {}\n", indent, bl.typ, hclQuote(bl.name))
		return
	}
	fmt.Fprintf(b, "%s%s %s {\n", indent, bl.typ, hclQuote(bl.name))
	for _, a := range bl.attrs {
		fmt.Fprintf(b, "%s  %s = %s\n", indent, a.name, a.value)
	}
	fmt.Fprintf(b, "%s}\n", indent)
}

// quoteList is names as the items of an HCL list.
func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = hclQuote(n)
	}
	return strings.Join(q, ", ")
}

// specPath is data's path as the spec at specFile names it: relative to
// the spec's folder, as a spec's paths are read, so that data and spec can
// move together (into a repository, to another machine); absolute when
// they share no folder but the root, where "../../.." would only break.
func specPath(specFile, data string) string {
	dir, path := absPath(filepath.Dir(specFile)), absPath(data)
	rel, err := filepath.Rel(dir, path)
	if err != nil || topFolder(dir) != topFolder(path) {
		return filepath.ToSlash(path)
	}
	return filepath.ToSlash(rel)
}

// topFolder is the first folder of an absolute path, after its root.
func topFolder(path string) string {
	rest := strings.TrimPrefix(path, filepath.VolumeName(path))
	rest = strings.TrimLeft(rest, string(filepath.Separator))
	top, _, _ := strings.Cut(rest, string(filepath.Separator))
	return top
}
