package experiments

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"lbsweep/model"
	"lbsweep/model/policy"
	"lbsweep/results"
)

// Points is the number of grid points: the product of the axes' lengths (1 with no axes).
func (s *Spec) Points() int {
	n := 1
	for _, a := range s.Axes {
		n *= len(a.Values)
	}
	return n
}

// Runs is the number of runs: Points() × Replications.
func (s *Spec) Runs() int { return s.Points() * s.Replications }

// Point returns grid point i (0 ≤ i < Points()), the first axis varying slowest, with policy arguments resolved:
// defaults for the arguments the policy takes, null for those it does not. It also returns, per parameter, the
// axis index that set it (-1 for [params] or a default).
func (s *Spec) Point(i int) (model.Point, []int) {
	p, from := s.point(i)
	if r, ok := s.Model.(model.Resolver); ok {
		_ = r.Resolve(p) // checkGrid has reported any error
	}
	return p, from
}

// point is Point before the model resolves its determined parameters.
func (s *Spec) point(i int) (model.Point, []int) {
	p := append(model.Point(nil), s.Base...)
	from := make([]int, len(p))
	for k := range from {
		from[k] = -1
	}
	stride := s.Points()
	for ai, a := range s.Axes {
		stride /= len(a.Values)
		for _, as := range a.Values[(i/stride)%len(a.Values)] {
			p[as.Param] = as.Value
			from[as.Param] = ai
		}
	}
	resolvePolicy(s.Model.Params(), p)
	return p, from
}

// resolvePolicy applies the chosen policy's argument defaults (policy.Entry.Args) and nulls the arguments it does not
// take.
func resolvePolicy(ps []model.Param, p model.Point) {
	pi := model.Index(ps, "policy")
	if pi < 0 || !p[pi].Valid {
		return
	}
	entry := policy.Registry[p[pi].I]
	for k, prm := range ps {
		if !prm.Policy || k == pi {
			continue
		}
		arg, takes := entry.Arg(prm.Name)
		switch {
		case !takes:
			p[k] = model.Value{}
		case !p[k].Valid:
			p[k] = arg.Default
		}
	}
}

// Key is the canonical key of a point: name=value for every parameter that is set (not null), in column order,
// comma-separated. It is the dataset's `point` column. Leaving nulls out keeps the keys, and so the seeds, of existing
// points unchanged when a model gains an optional parameter or a policy argument.
func Key(ps []model.Param, p model.Point) string {
	return key(ps, p, func(model.Param) bool { return true })
}

func key(ps []model.Param, p model.Point, keep func(model.Param) bool) string {
	return keyFormat(ps, p, keep, model.Param.Format)
}

func keyFormat(ps []model.Param, p model.Point, keep func(model.Param) bool, format func(model.Param, model.Value) string) string {
	var b strings.Builder
	for i, prm := range ps {
		if !keep(prm) || !p[i].Valid {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(prm.Name)
		b.WriteByte('=')
		b.WriteString(format(prm, p[i]))
	}
	return b.String()
}

// hash64 is the first 8 bytes of SHA-256 over the parts, each length-prefixed, as a uint64.
func hash64(parts ...string) uint64 {
	h := sha256.New()
	for _, s := range parts {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	return binary.BigEndian.Uint64(h.Sum(nil))
}

// RunSeed derives a run's seed from the root seed, the point's key without its policy parameters and its twin
// parameters and fields (model.Param.Twin), and the replication; and the policy part from the policy parameters
// alone. So the seeds of a point do not depend on its index in the grid or on other axes' values, policies compared
// at the same point share arrivals and service streams (common random numbers), and twin worlds share every stream.
// Run is masked to 63 bits so it fits the int64 `seed` column.
func RunSeed(root int64, ps []model.Param, p model.Point, replication int) model.Seed {
	env := keyFormat(ps, p, func(prm model.Param) bool { return !prm.Policy && !prm.Twin }, model.Param.SeedFormat)
	pol := key(ps, p, func(prm model.Param) bool { return prm.Policy })
	return model.Seed{
		Run:    hash64("lbsweep-run-v1", fmt.Sprint(root), env, fmt.Sprint(replication)) >> 1,
		Policy: hash64("lbsweep-policy-v1", pol),
	}
}

// Run is one unit of work: a grid point and a replication.
type Run struct {
	Index       int // position in the dataset, 0 ≤ Index < Runs()
	PointIndex  int
	Replication int
	Point       model.Point
	Key         string
	Seed        model.Seed
}

// Run returns run i: point i / Replications, replication i % Replications.
func (s *Spec) Run(i int) Run {
	pi, rep := i/s.Replications, i%s.Replications
	p, _ := s.Point(pi)
	ps := s.Model.Params()
	return Run{Index: i, PointIndex: pi, Replication: rep, Point: p, Key: Key(ps, p), Seed: RunSeed(s.Seed, ps, p, rep)}
}

func firstPoint(s *Spec, i int) model.Point {
	p, _ := s.Point(i)
	return p
}

// shorten cuts a point key for an error message (a list of 10^5 weights is part of its key) to 300 bytes.
func shorten(key string) string {
	if len(key) <= 300 {
		return key
	}
	cut := 300
	for cut > 0 && !utf8.RuneStart(key[cut]) {
		cut--
	}
	return key[:cut] + "…"
}

// sameSetting reports whether two axis values assign the same parameters the same values (compared canonically:
// values may hold lists).
func sameSetting(ps []model.Param, a, b Setting) bool {
	return slices.EqualFunc(a, b, func(x, y Assign) bool {
		return x.Param == y.Param && ps[x.Param].Format(x.Value) == ps[y.Param].Format(y.Value)
	})
}

// maxPoints bounds the grid so that a mistake is an error rather than a day of computing.
const maxPoints = 10_000_000

// checkGrid validates every grid point with the model (required parameters set, cross-parameter rules) and rejects
// duplicate points; warnings are collected once each.
func (d *decoder) checkGrid(s *Spec) error {
	n := 1
	for _, a := range s.Axes {
		n *= len(a.Values)
		if n > maxPoints {
			return d.errf("", -1, "sweep", "the grid has more than %d points", maxPoints)
		}
	}
	if s.Runs() > maxPoints {
		return d.errf("", -1, "replications", "%d points × %d replications is more than %d runs", n, s.Replications, maxPoints)
	}
	ps := s.Model.Params()
	seen := make(map[uint64]int, n) // key hashes: 8 bytes a point instead of the key string
	warned := make(map[string]bool)
	pi := model.Index(ps, "policy")
	// Policy arguments the spec sets ([params], an axis, or a value's bundle) and whether some point's policy takes
	// them: one that no point's policy takes is nulled at every point (resolvePolicy), so it would be silently ignored.
	argSet, argTaken := make(map[int]int), make(map[int]bool) // parameter → the axis that set it (-1: [params])
	for i := range n {
		p, from := s.point(i)
		for k, prm := range ps {
			if !prm.Policy || k == pi || (from[k] < 0 && s.fixedFrom[k] == "") {
				continue
			}
			if _, ok := argSet[k]; !ok {
				argSet[k] = from[k]
			}
			if pi >= 0 && p[pi].Valid && policy.Registry[p[pi].I].Takes(prm.Name) {
				argTaken[k] = true
			}
		}
		where := func(param int) (string, string) { // table and key that set param
			if param < 0 {
				return "", ""
			}
			if from[param] >= 0 {
				return "sweep", s.Axes[from[param]].Key
			}
			if s.fixedFrom[param] != "" {
				return "params", s.fixedFrom[param]
			}
			return "params", ""
		}
		for k, prm := range ps {
			if p[k].Valid || prm.Optional {
				continue
			}
			if prm.Policy && k != model.Index(ps, "policy") {
				pol := policy.Registry[p[model.Index(ps, "policy")].I]
				if !pol.Requires(prm.Name) {
					continue
				}
				t, key := where(model.Index(ps, "policy"))
				return d.errf(t, -1, key, "policy %s needs %s (e.g. { name = %q, %s = ... }, or %s in [params])", pol.Name, prm.Name, pol.Name, prm.Name, prm.Name)
			}
			return d.errf("params", -1, "", "%s is required: set it in [params] or sweep it in [sweep] (%s)", prm.Name, prm.Doc)
		}
		var err error
		if r, ok := s.Model.(model.Resolver); ok {
			err = r.Resolve(p)
		}
		var warns []string
		if err == nil {
			warns, err = s.Model.Check(p, model.CheckOptions{AllowUnstable: s.AllowUnstable})
		}
		if err != nil {
			if is, ok := err.(model.Issue); ok {
				pk := model.Index(ps, is.Param)
				t, key := where(pk)
				if key != "" && key != is.Param {
					is.Message = fmt.Sprintf("%s %s", is.Param, is.Message)
				}
				return d.errf(t, -1, key, "%s (at point %s)", is.Message, shorten(Key(ps, p)))
			}
			return d.errf("", -1, "", "%v (at point %s)", err, shorten(Key(ps, p)))
		}
		if err := d.checkBounds(s, p, where); err != nil {
			return err
		}
		for _, w := range warns {
			if !warned[w] {
				warned[w] = true
				s.Warnings = append(s.Warnings, w)
			}
		}
		k := Key(ps, p)
		h := hash64(k)
		if j, dup := seen[h]; dup && Key(ps, firstPoint(s, j)) == k {
			// Name the first axis on which the two points' values differ: those two values make the same point.
			stride := n
			for _, a := range s.Axes {
				stride /= len(a.Values)
				vj, vi := (j/stride)%len(a.Values), (i/stride)%len(a.Values)
				if vj == vi {
					continue
				}
				if sameSetting(ps, a.Values[vj], a.Values[vi]) {
					return d.errf("sweep", -1, a.Key, "values %d and %d are the same (grid point %s): remove the duplicate", vj+1, vi+1, k)
				}
				return d.errf("sweep", -1, a.Key, "values %d and %d give the same grid point %s (once policy arguments take their defaults, and are null for a policy that does not take them)", vj+1, vi+1, k)
			}
			return d.errf("sweep", -1, "", "grid points %d and %d are the same point (%s): remove the duplicate value", j, i, k)
		}
		seen[h] = i
	}
	for k, prm := range ps {
		ax, set := argSet[k]
		if !set || argTaken[k] {
			continue
		}
		var takers []string
		for _, e := range policy.Registry {
			if e.Takes(prm.Name) {
				takers = append(takers, e.Name)
			}
		}
		table, key := "params", s.fixedFrom[k]
		if ax >= 0 {
			table, key = "sweep", s.Axes[ax].Key
		}
		what := prm.Name + " is"
		if key != prm.Name {
			what = "sets " + prm.Name + ", which is"
		}
		return d.errf(table, -1, key, "%s an argument of %s, and no policy of this spec takes it (it would be ignored): use one of those policies, or leave %s out", what, strings.Join(takers, ", "), prm.Name)
	}
	return nil
}

// RunsKey is the hex SHA-256 of what determines s's runs and their rows, and nothing else: the experiment's name
// (every row's first column), the model, the root seed, the replications and every grid point's key (all its
// parameters, in canonical text) in grid order. Figures, tables, claims, descriptions and comments do not enter it,
// so they can change without touching the data: a dataset whose lbsweep.runs_sha256 equals it holds the runs this
// spec would simulate (with the same build: the engine's revision is checked apart, results.KeyRevision).
func (s *Spec) RunsKey() string {
	if s.runsKey != "" {
		return s.runsKey
	}
	h := sha256.New()
	fmt.Fprintf(h, "lbsweep runs v1\nexperiment %q\nmodel %q\nseed %d\nreplications %d\npoints %d\n", s.Name, s.Model.Name(), s.Seed, s.Replications, s.Points())
	ps := s.Model.Params()
	for i := range s.Points() {
		p, _ := s.Point(i)
		io.WriteString(h, Key(ps, p))
		io.WriteString(h, "\n")
	}
	s.runsKey = hex.EncodeToString(h.Sum(nil))
	return s.runsKey
}

// SameRuns reports whether a table with metadata meta holds s's runs: its results.KeyRunsSHA256 equals s.RunsKey(),
// or, for a file written before that key existed, its spec text's SHA-256 equals s's.
func (s *Spec) SameRuns(meta []results.KV) bool {
	if k := results.Lookup(meta, results.KeyRunsSHA256); k != "" {
		return k == s.RunsKey()
	}
	return results.Lookup(meta, results.KeySpecSHA256) == s.SHA256
}
