package registry

import (
	"errors"
	"fmt"
	"slices"
)

// Errors that Register wraps, for callers that register names they do not
// control (a plugin's) and want to tell the two apart.
var (
	ErrEmptyName = errors.New("empty name")
	ErrDuplicate = errors.New("registered twice")
)

// Registry maps names to values of one kind. Fill it before sharing it:
// lookups never write, so concurrent Lookups on a filled registry are
// safe, but Register is not safe alongside anything else.
type Registry[T any] struct {
	kind   string
	values map[string]T
	order  []string // names in registration order
}

// New returns an empty registry. kind names what it holds ("learner type",
// "corpus format") in errors about its entries.
func New[T any](kind string) *Registry[T] {
	return &Registry[T]{kind: kind, values: map[string]T{}}
}

// Kind returns what the registry holds, as given to New.
func (r *Registry[T]) Kind() string { return r.kind }

// Register adds value under name. An empty name could never be written in
// a spec, and a second value for a name would silently shadow the first,
// so both are refused (errors wrapping ErrEmptyName and ErrDuplicate).
func (r *Registry[T]) Register(name string, value T) error {
	if name == "" {
		return fmt.Errorf("%s with an %w", r.kind, ErrEmptyName)
	}
	if _, dup := r.values[name]; dup {
		return fmt.Errorf("%s %q %w", r.kind, name, ErrDuplicate)
	}
	r.values[name] = value
	r.order = append(r.order, name)
	return nil
}

// MustRegister is Register for the one function that fills a registry
// with names fixed in code, where a refused name is a programming error
// that no user can fix: it panics.
func (r *Registry[T]) MustRegister(name string, value T) {
	if err := r.Register(name, value); err != nil {
		panic("registry: " + err.Error())
	}
}

// Lookup returns the value registered under name.
func (r *Registry[T]) Lookup(name string) (T, bool) {
	v, ok := r.values[name]
	return v, ok
}

// Names returns the registered names sorted, so that listings and schemas
// built from them do not depend on map order.
func (r *Registry[T]) Names() []string {
	names := slices.Clone(r.order)
	slices.Sort(names)
	return names
}

// RegistrationOrder returns the registered names in the order they were
// registered: the order the registering function chose to present them in
// (most common first), for messages listing the choices.
func (r *Registry[T]) RegistrationOrder() []string {
	return slices.Clone(r.order)
}

// Suggest returns the registered name closest to name if name looks like a
// typo of it, else "".
func (r *Registry[T]) Suggest(name string) string {
	return Suggest(name, r.order)
}
