// Package model defines the contract every lbsweep simulation model meets: its typed parameters, the metric columns
// it reports, and Run. Sub-packages hold the simulation core (model/sim), the dispatch policies shared by every model
// that dispatches (model/policy) and one package per model (model/supermarket, ...).
//
// Units: simulated time is in mean service times (a unit-rate server serves one job per unit time on average); rates
// are per unit time; λ ("lambda") is the arrival rate per server, so λ < 1 is the stability condition for identical
// unit-rate servers.
//
// Nothing in model/ keeps package-level mutable state or uses a global random generator: every run gets its own
// seeded streams (see model/sim.Streams). purity_test.go checks both, as far as a syntactic check can (its doc says
// what it cannot see). Package-level values are declarations (parameter lists, column schemas), built when the
// package is initialized and only read after; what is shared between runs is passed to them (a grid point's Theory).
//
// Columns and cells are those of lbsweep/results/schema, a leaf package: model/ does not link the Parquet writer.
package model

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"lbsweep/results/schema"
)

// Kind is the type of a parameter's value.
type Kind uint8

// Parameter kinds. Enum values are stored as the index into Param.Choices; their column holds the choice's name.
// List is a list of numbers (Value.L; a list<double> column), e.g. nginx weights [5, 1, 1]. Records is a list of
// tables whose keys are Param.Fields (Value.R), e.g. server classes [{count = 20, rate = 0.5}, ...]; its column holds
// the canonical inline-TOML text (Param.Format), which a spec can paste back.
const (
	Int Kind = iota + 1
	Float
	Bool
	Enum
	List
	Records
)

// String names the kind as spec errors show it ("integer", "float", "boolean", "name").
func (k Kind) String() string {
	switch k {
	case Int:
		return "integer"
	case Float:
		return "float"
	case Bool:
		return "boolean"
	case Enum:
		return "name"
	case List:
		return "list of numbers"
	case Records:
		return "list of tables"
	}
	return "invalid kind"
}

// Param declares one parameter of a model. Every parameter becomes a typed results column of the same name.
type Param struct {
	Name    string   // snake_case; the spec key and the column name; never changes once released
	Kind    Kind     // value type
	Unit    string   // e.g. "mean service times"; empty when dimensionless
	Doc     string   // meaning and valid range
	Choices []string // Enum: the valid names, index = Value.I
	// Policy marks a parameter of the dispatch policy (the policy name and its arguments). Runs that differ only in
	// policy parameters share their arrival and service streams (common random numbers).
	Policy bool
	// Default is used when the spec does not set the parameter; Valid = false means the parameter is required, or,
	// for policy arguments, that it is null for policies that do not take it.
	Default Value
	// Optional marks a parameter that may stay unset (a null column); Model.Check says which combinations are valid
	// (e.g. exactly one of m and balls_per_bin).
	Optional bool
	// Fields are a Records parameter's keys, in canonical order: scalar kinds (Int, Float, Bool, Enum) only, each with
	// its Default (or Optional, or required when neither).
	Fields []Param
	// Twin marks a parameter, or a field of a Records parameter, that is left out of the run seed: runs that differ
	// only in twin parameters share every random stream, so they are twin worlds driven by the same random numbers
	// (seed 000 §6.1: flipping a server's health must change no draw, so that any difference in routing is the
	// policy's). A parameter that a Resolver fills in from a twin field must be Twin too. The point's key (its
	// `point` column) still holds every parameter.
	Twin bool
}

// Value is one parameter value; the field matching the parameter's Kind holds it (Enum: I is the choice index; List:
// L; Records: R). Valid = false is "not set" (a null column). Values hold slices, so compare them with Param.Format.
type Value struct {
	Valid bool
	I     int64
	F     float64
	B     bool
	L     []float64
	R     []Record
}

// Record is one table of a Records value: one Value per field of the parameter's Fields, in that order.
type Record []Value

// IntValue, FloatValue, BoolValue build valid values.
func IntValue(v int64) Value     { return Value{Valid: true, I: v} }
func FloatValue(v float64) Value { return Value{Valid: true, F: v} }
func BoolValue(v bool) Value     { return Value{Valid: true, B: v} }

// ListValue and RecordsValue build valid List and Records values.
func ListValue(v []float64) Value   { return Value{Valid: true, L: v} }
func RecordsValue(v []Record) Value { return Value{Valid: true, R: v} }

// Format renders v canonically for parameter p: integers in base 10, floats in the shortest form that round-trips
// (strconv 'g', -1), booleans as true/false, enums as the choice's name, null as "null"; lists as "[5, 1, 1]";
// records as inline TOML "[{count = 20, rate = 0.5}, {count = 80, rate = 1}]" with the fields in Fields order and
// unset optional fields left out. Canonical keys and seeds are built from it, so it never changes.
func (p Param) Format(v Value) string { return p.format(v, false) }

// SeedFormat is Format without the Twin fields of a Records value: the text a run's seed is derived from.
func (p Param) SeedFormat(v Value) string { return p.format(v, true) }

func (p Param) format(v Value, skipTwins bool) string {
	if !v.Valid {
		return "null"
	}
	switch p.Kind {
	case List:
		var b strings.Builder
		b.WriteByte('[')
		for i, x := range v.L {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
		}
		b.WriteByte(']')
		return b.String()
	case Records:
		var b strings.Builder
		b.WriteByte('[')
		for i, r := range v.R {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteByte('{')
			first := true
			for j, f := range p.Fields {
				if j >= len(r) || !r[j].Valid || skipTwins && f.Twin {
					continue
				}
				if !first {
					b.WriteString(", ")
				}
				first = false
				b.WriteString(f.Name)
				b.WriteString(" = ")
				if f.Kind == Enum {
					b.WriteString(strconv.Quote(f.Format(r[j])))
				} else {
					b.WriteString(f.Format(r[j]))
				}
			}
			b.WriteByte('}')
		}
		b.WriteByte(']')
		return b.String()
	case Int:
		return strconv.FormatInt(v.I, 10)
	case Float:
		return strconv.FormatFloat(v.F, 'g', -1, 64)
	case Bool:
		return strconv.FormatBool(v.B)
	case Enum:
		if v.I >= 0 && int(v.I) < len(p.Choices) {
			return p.Choices[v.I]
		}
	}
	panic(fmt.Sprintf("model: value %+v invalid for parameter %s", v, p.Name))
}

// Cell converts v to the cell of p's column.
func (p Param) Cell(v Value) schema.Cell {
	if !v.Valid {
		return schema.Null()
	}
	switch p.Kind {
	case Int:
		return schema.Int(v.I)
	case Float:
		return schema.Float(v.F)
	case Bool:
		return schema.Boolean(v.B)
	case Enum, Records:
		return schema.Str(p.Format(v))
	case List:
		return schema.List(v.L)
	}
	panic("model: invalid parameter kind for " + p.Name)
}

// ColumnType is the column type of p.
func (p Param) ColumnType() schema.Type {
	switch p.Kind {
	case Int:
		return schema.Int64
	case Float:
		return schema.Float64
	case Bool:
		return schema.Bool
	case Enum, Records:
		return schema.String
	case List:
		return schema.Float64List
	}
	panic("model: invalid parameter kind for " + p.Name)
}

// Point is one grid point: one Value per parameter, aligned with Model.Params().
type Point []Value

// Seed is what a run's random streams are derived from (see model/sim.NewStreams).
type Seed struct {
	Run    uint64 // from (root seed, the point without its policy parameters, replication): arrivals and service
	Policy uint64 // from the policy parameters alone: mixed into the dispatch stream
}

// Issue is a problem with a grid point found by Model.Check: the parameter it concerns and what is wrong.
type Issue struct {
	Param   string
	Message string
}

func (i Issue) Error() string { return i.Param + ": " + i.Message }

// CheckOptions are what a spec says about the points Model.Check accepts.
type CheckOptions struct {
	// AllowUnstable turns "unstable load" (no steady state: queues grow without bound) from an error into a warning,
	// for models that have one (the spec's allow_unstable).
	AllowUnstable bool
}

// Model is one simulation model. Implementations are stateless values; all run state lives inside Run.
type Model interface {
	// Name is the model's registered name (snake_case), as specs write it.
	Name() string
	// Doc is one paragraph: what the model simulates and its source.
	Doc() string
	// Params declares the parameters, in column order.
	Params() []Param
	// Metrics declares the metric and theory columns, in column order (conventionally a schema.Schema's Columns).
	Metrics() []schema.Column
	// Check validates a fully resolved point (defaults applied). It returns warnings to report and an error (an
	// Issue naming the parameter) for an invalid point; o.AllowUnstable turns "unstable load" from an error into a
	// warning.
	Check(p Point, o CheckOptions) (warnings []string, err error)
	// Cost estimates the run's work in simulated events (used for progress and shard balancing), counting a pick
	// that reads many servers as the events its reads are worth. A spec is refused when a point's Cost is not
	// finite or exceeds MaxEvents (see Bounds.Work for the key the refusal names).
	Cost(p Point) float64
	// Bounds estimates the memory one run of p holds and names the parameters its memory and its work grow with,
	// before anything runs, from p's parameters alone (see Bounds). A sweep refuses a point whose estimate exceeds
	// its memory budget, and runs no more points at once than the budget holds.
	Bounds(p Point) Bounds
	// Run simulates one point and returns one cell per Metrics() column, each null or of its column's type; a
	// Theorist leaves its theory columns null (see Theorist; RunRow fills them). It is deterministic in (p, seed).
	// Run checks ctx now and then (every 2^16 events or so, which costs nothing measurable) and returns ctx.Err()
	// once it is done: a long run stops soon after its sweep is interrupted.
	Run(ctx context.Context, p Point, seed Seed) (schema.Row, error)
}

// Bounds is what one run of a point needs, estimated from its parameters before it runs (Model.Bounds).
//
// Bytes is computed in float64 from the parameters (so that no product of counts overflows: n = 10^6 servers times
// 65536 dispatchers is 6.6·10^10 entries, a number, not a wrapped int64) and is +Inf when a parameter makes the
// state unbounded. It estimates the resident memory the run adds to the process: its own state (per-server arrays,
// queues, boards, tables, the time series it returns) at the sizes the engine allocates, beyond the process's
// baseline (about 30 MB for the sweep command). A test per model runs points in a child process and checks the
// estimate against the measured peak RSS increase within a factor of 2 (the collector's slack lies within it).
type Bounds struct {
	Bytes      float64 // estimated peak resident bytes one run adds, ≥ 0 (+Inf: unbounded)
	MemoryBy   string  // the parameter the memory grows with most, e.g. "n": the key a refusal names
	MemoryWhat string  // the dominant memory term in words, e.g. "64 board copies × 100000 servers × 12 B"
	WorkBy     string  // the parameter the work (Cost) grows with most, e.g. "horizon": the key a refusal names
	// SeriesRow is the bytes of one of the run's time-series rows as the sweep's Parquet writer holds it in its
	// builders until a row group (4096 rows) is written: `sweep plan` adds a row group's worth. 0 for a model
	// without a time series or a point that records none.
	SeriesRow float64
	// SeriesRows is the time-series rows one run emits (e.g. horizon/bin + 1), ≥ 0: `sweep plan` counts the
	// writer's work on them. 0 for a model without a time series or a point that records none.
	SeriesRows float64
}

// MaxEvents bounds a run's Cost: 10^13 events is about three days of one worker at 4·10^7 events/s, far beyond any
// experiment of this project (the largest committed run is about 10^9). A point with a larger or non-finite Cost
// (e.g. horizon = 1e308) is refused rather than run until someone kills it.
const MaxEvents = 1e13

// CheckWindow checks a measurement window [warmup, horizon) in the model's time unit: a finite horizon > 0 and
// 0 ≤ warmup < horizon with a window of at least 10^-9 of the horizon. Time averages divide by horizon − warmup,
// which keeps fewer than about 7 significant digits when the window is below 10^-9 of the horizon (float64 has 16),
// so a warm-up within 10^-14 of the horizon gave time averages that disagreed with the counts. It returns an Issue
// naming "horizon" or "warmup", or nil.
func CheckWindow(warmup, horizon float64) error {
	switch {
	case !(horizon > 0) || math.IsInf(horizon, 0):
		return Issue{Param: "horizon", Message: fmt.Sprintf("%v: need a finite horizon > 0", horizon)}
	case !(warmup >= 0) || !(warmup < horizon):
		return Issue{Param: "warmup", Message: fmt.Sprintf("%v: need 0 ≤ warmup < horizon (%v)", warmup, horizon)}
	case horizon-warmup < 1e-9*horizon:
		return Issue{Param: "warmup", Message: fmt.Sprintf("%v: the measurement window horizon − warmup = %.3g is below 10^-9 of the horizon (%v): its time averages would lose their precision; give a warm-up well below the horizon", warmup, horizon-warmup, horizon)}
	}
	return nil
}

// Theorist is implemented by models whose theory columns (closed forms, numerical limits) depend on the grid point
// alone, not on the run's seed. A sweep calls Theory once per grid point and gives the result to every replication
// of the point, so that an expensive limit (the bulletin board's fluid limit takes up to 0.15 s) is computed once,
// not once per run. Run leaves the theory columns null; the Theory fills them.
type Theorist interface {
	Model
	// Theory computes point p's theory. It may return nil when no theory applies (the columns stay null).
	Theory(p Point) Theory
}

// Theory fills the theory cells of one run's metric row (aligned with Metrics(), as Run returned it), e.g. a tail as
// long as the run's measured one. The replications of a point run concurrently and share their Theory: it must only
// read what it captured, and write only the row it is given.
type Theory func(row schema.Row)

// RunRow runs m at p with seed and, for a Theorist, fills the theory columns as a sweep does (computing the point's
// Theory for this one run): the metric row as it appears in a dataset.
func RunRow(ctx context.Context, m Model, p Point, seed Seed) (schema.Row, error) {
	row, err := m.Run(ctx, p, seed)
	if err != nil {
		return nil, err
	}
	if th, ok := m.(Theorist); ok {
		if f := th.Theory(p); f != nil {
			f(row)
		}
	}
	return row, nil
}

// Rater is implemented by models whose runs go at a rate far from the supermarket's, the default that `sweep plan`
// assumes for its time estimates: EventsPerSecond(p) is the Cost units (the model's count of a run's events) that one
// worker does per CPU-second at point p, > 0, measured on the project's machine by the model's benchmarks and by
// bench/plan.sh (which sweeps every committed experiment beside its plan). It may depend on the point (the policy,
// a footprint that leaves the caches). It informs estimates only; nothing computed depends on it.
type Rater interface {
	EventsPerSecond(p Point) float64
}

// TheoryCoster is implemented by models whose theory (Theorist.Theory, computed once per point and shared by its
// replications) costs as much as runs do, e.g. a quadrature or a fluid limit iterated to its cycle: TheoryCost(p) is
// that work in the model's Cost units (so the model's rate turns it into seconds), ≥ 0. It informs estimates only.
type TheoryCoster interface {
	TheoryCost(p Point) float64
}

// Resolver is implemented by models whose parameters determine others (the supermarket's n from its server classes,
// λ from load and load from λ). Resolve fills the determined parameters of p in place, after defaults are applied and
// before Check, so that every column is filled and the point's key names the whole configuration. It returns an Issue
// when the given parameters conflict or one that is needed is missing.
type Resolver interface {
	Resolve(p Point) error
}

// SeriesModel is implemented by models that also emit a time series per run: rows sampled over simulated time at a
// fixed interval (e.g. the bulletin board's queue lengths, to show the herd moving). They go to a second table,
// DIR/NAME/_timeseries/, whose columns are Identity, one column per parameter, then SeriesColumns (SeriesColumns
// assembles them), under the same determinism, resume and shard rules as the runs table.
type SeriesModel interface {
	Model
	// SeriesColumns declares the time-series columns, in column order (the first is conventionally "time").
	SeriesColumns() []schema.Column
	// RunSeries is Run that also returns the run's time-series rows, each aligned with SeriesColumns, in time order.
	RunSeries(ctx context.Context, p Point, seed Seed) (row schema.Row, series []schema.Row, err error)
}

// SeriesColumns is the full schema of a SeriesModel's time-series table: Identity, one column per parameter, then
// m.SeriesColumns().
func SeriesColumns(m SeriesModel) []schema.Column {
	cols := Columns(m)[:IdentityColumns+len(m.Params())]
	return append(append([]schema.Column(nil), cols...), m.SeriesColumns()...)
}

// IdentityColumns is the number of Identity columns.
const IdentityColumns = 4

// Identity returns the leading columns of every dataset (a new slice each call): experiment, point, replication,
// seed.
func Identity() []schema.Column {
	return []schema.Column{
		{Name: "experiment", Type: schema.String, Doc: "the spec's name"},
		{Name: "point", Type: schema.String, Doc: "stable id of the grid point: its set (non-null) parameters as name=value pairs in column order"},
		{Name: "replication", Type: schema.Int64, Doc: "replication index, 0 ≤ replication < replications"},
		{Name: "seed", Type: schema.Int64, Doc: "the run's seed, derived from (root seed, the point without its policy and twin parameters, replication)"},
	}
}

// Columns is the full schema of model m's datasets: Identity, one column per parameter, then m's metrics. It is the
// single place the results schema is assembled.
func Columns(m Model) []schema.Column {
	cols := Identity()
	for _, p := range m.Params() {
		cols = append(cols, schema.Column{Name: p.Name, Type: p.ColumnType(), Unit: p.Unit, Doc: p.Doc})
	}
	return append(cols, m.Metrics()...)
}

// Index returns the position of the parameter named name in params, or -1.
func Index(params []Param, name string) int {
	for i, p := range params {
		if p.Name == name {
			return i
		}
	}
	return -1
}
