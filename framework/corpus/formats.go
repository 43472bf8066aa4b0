package corpus

import "github.com/trellis-nlp/trellis/framework/registry"

// FormatFactory makes the Format a Config describes, or says what is wrong
// with the Config.
type FormatFactory func(cfg Config) (Format, error)

// Formats returns the registry of corpus formats by name. It is the one
// place a format is wired in: a new format is its own file with a
// constructor, plus one line here. The order of the lines is the order
// messages list the formats in (RegistrationOrder), most common first.
//
// Every call builds a fresh registry, so no caller can change what another
// sees; building five entries costs nothing next to reading a corpus.
func Formats() *registry.Registry[FormatFactory] {
	r := registry.New[FormatFactory]("corpus format")
	r.MustRegister(NameCoNLL, factory(newCoNLL))
	r.MustRegister(NameCoNLLU, factory(newCoNLLU))
	r.MustRegister(NameSlash, factory(newSlash))
	r.MustRegister(NameChars, factory(newChars))
	r.MustRegister(NameCRFsuite, factory(newCRFsuite))
	r.MustRegister(NameRawtext, factory(newRawtext))
	return r
}

// factory turns a constructor of one concrete format into a FormatFactory.
// Returning nil explicitly on error matters: the constructor's nil
// *conllFormat would otherwise become a non-nil Format.
func factory[F Format](newFormat func(Config) (F, error)) FormatFactory {
	return func(cfg Config) (Format, error) {
		f, err := newFormat(cfg)
		if err != nil {
			return nil, err
		}
		return f, nil
	}
}
