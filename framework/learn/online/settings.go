package online

import (
	"errors"
	"fmt"
	"reflect"
)

// A learner's config cannot embed Config: gohcl neither decodes an
// embedded struct's fields nor lists them in its implied schema (which
// the spec uses for "did you mean" and tune blocks), see
// TestGohclSkipsEmbedded. So each online learner's config repeats
// Config's fields, and these two functions keep that repetition the only
// one: SettingsOf copies the fields by name (no hand-written converter to
// forget a field in) and CheckRepeats, called by every online learner's
// tests and by a test over the registered learners, finds a field a
// config lacks or declares differently.

// SettingsOf returns the shared settings held by cfg, a pointer to a
// learner's config struct that repeats Config's fields. A field cfg lacks
// is left unset (CheckRepeats reports it).
func SettingsOf(cfg any) *Config {
	var c Config
	dst := reflect.ValueOf(&c).Elem()
	src := reflect.ValueOf(cfg).Elem()
	for i := 0; i < dst.NumField(); i++ {
		f := src.FieldByName(dst.Type().Field(i).Name)
		if f.IsValid() && f.Type() == dst.Field(i).Type() {
			dst.Field(i).Set(f)
		}
	}
	return &c
}

// CheckRepeats reports every field of Config that cfg, a pointer to a
// learner's config struct, lacks or declares with another type or other
// hcl or json tags.
func CheckRepeats(cfg any) error {
	v := reflect.ValueOf(cfg)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("%T is not a pointer to a struct", cfg)
	}
	have := v.Elem().Type()
	want := reflect.TypeFor[Config]()
	var errs []error
	for i := 0; i < want.NumField(); i++ {
		w := want.Field(i)
		h, ok := have.FieldByName(w.Name)
		switch {
		case !ok || len(h.Index) != 1:
			errs = append(errs, fmt.Errorf("%v lacks the online setting %s (%s)", have, w.Name, w.Tag))
		case h.Type != w.Type:
			errs = append(errs, fmt.Errorf("%v.%s is a %v, online.Config's a %v", have, w.Name, h.Type, w.Type))
		case h.Tag.Get("hcl") != w.Tag.Get("hcl") || h.Tag.Get("json") != w.Tag.Get("json"):
			errs = append(errs, fmt.Errorf("%v.%s has tags %s, online.Config's %s", have, w.Name, h.Tag, w.Tag))
		}
	}
	return errors.Join(errs...)
}
