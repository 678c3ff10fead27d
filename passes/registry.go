package passes

import (
	"fmt"
	"slices"
	"strings"
)

// Builtin returns the passes this package defines, by name.
func Builtin() []*Pass { return []*Pass{Stats, Verify} }

// Registry maps names to passes. Registration is explicit: a driver lists
// the passes it offers (hlo-opt does so in one sorted table in
// cmd/hlo-opt/registry.go); no package registers itself as a side effect of
// being imported, and there is no global registry.
type Registry struct {
	passes []*Pass
	byName map[string]*Pass
}

// NewRegistry validates ps (see Validate) and indexes them by name.
func NewRegistry(ps ...*Pass) (*Registry, error) {
	if err := Validate(ps); err != nil {
		return nil, err
	}
	r := &Registry{byName: map[string]*Pass{}}
	for _, p := range ps {
		if q, dup := r.byName[p.Name]; dup {
			if q != p {
				return nil, fmt.Errorf("duplicate pass name %q", p.Name)
			}
			continue
		}
		r.byName[p.Name] = p
		r.passes = append(r.passes, p)
	}
	slices.SortFunc(r.passes, func(a, b *Pass) int { return strings.Compare(a.Name, b.Name) })
	return r, nil
}

// Passes returns the registered passes sorted by name.
func (r *Registry) Passes() []*Pass { return slices.Clone(r.passes) }

// Names returns the registered names, sorted.
func (r *Registry) Names() []string {
	out := make([]string, len(r.passes))
	for i, p := range r.passes {
		out[i] = p.Name
	}
	return out
}

// UnknownPassError reports a name that is not registered.
type UnknownPassError struct {
	Name  string
	Known []string
}

func (e *UnknownPassError) Error() string {
	return fmt.Sprintf("unknown pass %q (known: %s)", e.Name, strings.Join(e.Known, ", "))
}

// Lookup returns the pass called name, or an *UnknownPassError.
func (r *Registry) Lookup(name string) (*Pass, error) {
	if p, ok := r.byName[name]; ok {
		return p, nil
	}
	return nil, &UnknownPassError{Name: name, Known: r.Names()}
}

// Parse resolves a comma-separated list such as "layout,indexing" into
// passes, in order. Empty elements are ignored.
func (r *Registry) Parse(list string) ([]*Pass, error) {
	var out []*Pass
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		p, err := r.Lookup(name)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}
