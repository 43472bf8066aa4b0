package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/trellis-nlp/trellis/framework/importer/crfpp"
	"github.com/trellis-nlp/trellis/framework/plural"
)

// importCommand converts another toolkit's feature templates into a spec.
func importCommand() command {
	return command{
		Name: "import",
		Usage: []string{"crfpp TEMPLATE --columns word,pos,chunk [--train F] [--test F] [--dev F] [--scheme S]",
			"crfpp TEMPLATE --columns ... [-c C] [-a CRF|CRF-L1] [-f N] [-e ETA] [-m N] [--name NAME]"},
		Summary: "write the spec equivalent to a CRF++ template file (on stdout)",
		Description: "Writes on stdout the trellis spec that trains what crf_learn trains with the CRF++ template file " +
			"TEMPLATE. --columns names every column of the data, the answer (label) column last; -c, -a, -f, -e " +
			"and -m are crf_learn's (cost C, default 1, becomes c2 = 1/(2C); eta default 0.0001). Without " +
			"--train or --test the spec takes them as --var train=FILE / --var test=FILE.",
		Run: func(a *app, _ context.Context, args []string) error { return a.cmdImport(args) },
	}
}

// cmdImport converts another toolkit's feature templates into a spec.
func (a *app) cmdImport(args []string) error {
	fs := newFlagSet("import", a.stderr)
	columns := fs.String("columns", "", "names of the data's columns, the label (answer) column last: word,pos,chunk")
	var o crfpp.Options
	fs.StringVar(&o.Train, "train", "", "training data (crf_learn's train_file)")
	fs.StringVar(&o.Test, "test", "", "test data (crf_test's input)")
	fs.StringVar(&o.Dev, "dev", "", "development data")
	fs.StringVar(&o.Scheme, "scheme", "", "label scheme: iob1, iob2, bioes, … (span F1); none: token accuracy")
	fs.Float64Var(&o.C, "c", 1, "crf_learn -c: the cost C (c2 = 1/(2C))")
	fs.StringVar(&o.Algorithm, "a", "CRF", "crf_learn -a: CRF (L2), CRF-L1")
	fs.IntVar(&o.Freq, "f", 1, "crf_learn -f: keep attributes seen at least this often")
	fs.Float64Var(&o.Eta, "e", 0.0001, "crf_learn -e: the stopping threshold")
	fs.IntVar(&o.MaxIter, "m", 0, "crf_learn -m: most iterations (0: no limit)")
	fs.StringVar(&o.Name, "name", "crfpp", "the experiment's name")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 || pos[0] != "crfpp" {
		return usagef("import: say what to import from: trellis import crfpp TEMPLATE … (`trellis import --help`)")
	}
	pos = pos[1:]
	if len(pos) != 1 {
		return usagef("import crfpp takes one template file (`trellis import --help`)")
	}
	if *columns == "" {
		return usagef("import crfpp needs --columns: the names of the data's columns, the label (answer) column last, e.g. --columns word,pos,chunk")
	}
	o.Columns = strings.Split(*columns, ",")
	// The spec goes to stdout and may be saved anywhere, so its paths are
	// absolute (a spec's relative paths are read from its own folder).
	for _, p := range []*string{&o.Train, &o.Test, &o.Dev} {
		if *p != "" {
			if *p, err = filepath.Abs(*p); err != nil {
				return err
			}
		}
	}
	o.Command = commandLine(append([]string{"trellis", "import"}, args...))
	src, err := os.Open(pos[0])
	if err != nil {
		return usagef("cannot read template: %v", err)
	}
	defer src.Close()
	f, err := crfpp.Parse(pos[0], src)
	if err != nil {
		return importError(err)
	}
	warnings, err := crfpp.WriteSpec(a.stdout, f, o)
	if err != nil {
		return importError(err)
	}
	for _, w := range warnings {
		a.log.Warn().Msg(w.Error())
	}
	return nil
}

// importError makes mistakes in the template or the settings usage errors
// (exit 2), each on its own line; any other error (writing the spec) is a
// failure (exit 1).
func importError(err error) error {
	var errs crfpp.Errors
	if errors.As(err, &errs) {
		return usagef("%s in the template:\n%v", plural.Count(len(errs), "error"), err)
	}
	if oe := (*crfpp.OptionsError)(nil); errors.As(err, &oe) {
		return usagef("%v", err)
	}
	return err
}

// commandLine is args as a shell would need them typed: arguments with
// spaces or quotes quoted.
func commandLine(args []string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = a
		if a == "" || strings.ContainsAny(a, " \t\n\"'\\$`*?;&|<>()#~") {
			quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(quoted, " ")
}
