// Package experiments decodes experiment specs (TOML files, one per experiment, kept beside this package) strictly
// into typed values, validates them against the model they name, and expands their parameter grid into runs with
// deterministic seeds. Past this package nothing is a map[string]any and nothing is a string-typed parameter.
//
// The spec format is the contract in DESIGN.md and the README: top-level name, description, model, seed,
// replications, allow_unstable; [params] (fixed values); [sweep] (axes: a list, or an inclusive range
// {from, to, step} computed as from + i·step); [[figure]], [[table]] and [[expect]] tables for cmd/plot and
// `sweep check`. An [[expect]] decodes into a claims.Expect; package experiments/claims evaluates it on the dataset.
package experiments

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/BurntSushi/toml"

	"lbsweep/experiments/claims"
	"lbsweep/model"
	"lbsweep/model/bins"
	"lbsweep/model/fleet"
	"lbsweep/model/placement"
	"lbsweep/model/policy"
	"lbsweep/model/resilience"
	"lbsweep/model/subsetting"
	"lbsweep/model/supermarket"
	"lbsweep/model/wrrseq"
)

// Models is the registry of models by the name specs use; `sweep -list` prints it.
var Models = map[string]model.Model{
	"supermarket":     supermarket.Model{},
	"bulletin_board":  supermarket.BulletinBoard{},
	"balls_into_bins": bins.New(),
	"wrr_sequence":    wrrseq.Model{},
	"fleet":           fleet.Model{},
	"resilience":      resilience.Model{},
	"placement":       placement.Model{},
	"subsetting":      subsetting.Model{},
}

// ModelNames returns the registered model names, sorted.
func ModelNames() []string {
	names := make([]string, 0, len(Models))
	for k := range Models {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// Assign sets one parameter (index into the model's Params) to a value.
type Assign struct {
	Param int
	Value model.Value
}

// Setting is one value of an axis: the assignments it makes (one, or several for a policy with arguments).
type Setting []Assign

// Axis is one swept key with its values, in file order.
type Axis struct {
	Key    string
	Values []Setting
}

// Spec is a decoded, validated experiment.
type Spec struct {
	File          string // path as given
	Text          string // the file's bytes
	SHA256        string // hex SHA-256 of Text
	Name          string // [a-z0-9-]+; the dataset directory name
	Description   string
	Model         model.Model
	Seed          int64  // root seed ≥ 0
	runsKey       string // RunsKey, once computed
	Replications  int    // ≥ 1
	AllowUnstable bool
	Base          model.Point // fixed parameters and defaults; policy arguments not yet resolved
	Axes          []Axis      // the grid is their cartesian product, first axis slowest
	Figures       []Figure
	Tables        []Table
	Expects       []claims.Expect // [[expect]] claims, in file order; claims.Evaluate judges them on the dataset
	Warnings      []string        // e.g. unstable points allowed by allow_unstable; deduplicated, in grid order
	Peak          Peak            // the point whose run needs the most memory, by its model's estimate

	fixedFrom []string // per parameter: the [params] key that fixed it ("policy" for a policy's arguments), or ""
}

var nameRE = regexp.MustCompile(`^[a-z0-9-]+$`)

// Load reads and decodes the spec at path. Every error is an *Error naming the file, the line where it can be
// found, and the key.
//
// The file is read with bounds before it is decoded: it must be a regular file (a FIFO, a device such as /dev/zero
// or a directory is refused without reading it: a FIFO would block, /dev/zero never ends) of at most MaxSpecBytes,
// with brackets and braces nested at most MaxSpecDepth deep (deeper nesting made the TOML decoder run out of memory).
func Load(path string) (*Spec, error) {
	// O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting for one.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, &Error{File: path, Msg: err.Error()}
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, &Error{File: path, Msg: err.Error()}
	}
	switch {
	case !st.Mode().IsRegular():
		kind := "a special file"
		switch m := st.Mode(); {
		case m.IsDir():
			kind = "a directory"
		case m&os.ModeNamedPipe != 0:
			kind = "a named pipe"
		case m&os.ModeDevice != 0:
			kind = "a device"
		case m&os.ModeSocket != 0:
			kind = "a socket"
		}
		return nil, &Error{File: path, Msg: fmt.Sprintf("%s, not a regular file: a spec is a TOML file", kind)}
	case st.Size() > MaxSpecBytes:
		return nil, &Error{File: path, Msg: fmt.Sprintf("%d bytes: a spec is at most %d bytes (1 MiB; the largest committed spec is about 20 kB)", st.Size(), MaxSpecBytes)}
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxSpecBytes+1))
	if err != nil {
		return nil, &Error{File: path, Msg: err.Error()}
	}
	if len(b) > MaxSpecBytes { // grew while read
		return nil, &Error{File: path, Msg: fmt.Sprintf("more than %d bytes: a spec is at most 1 MiB", MaxSpecBytes)}
	}
	text := string(b)
	if line, dots := keyDots(text); dots > MaxSpecDepth {
		return nil, &Error{File: path, Line: line, Msg: fmt.Sprintf("a key or table header of more than %d dotted segments: a spec's keys have two or three", MaxSpecDepth)}
	}
	if line, depth := nesting(text); depth > MaxSpecDepth {
		return nil, &Error{File: path, Line: line, Msg: fmt.Sprintf("brackets and braces nested more than %d deep: a spec nests a few levels (a list of tables in a list)", MaxSpecDepth)}
	}
	return Parse(path, text)
}

// MaxSpecBytes bounds a spec file's size, and MaxSpecDepth the nesting of its arrays and inline tables.
const (
	MaxSpecBytes = 1 << 20
	MaxSpecDepth = 32
)

// keyDots returns the most dots in one line's key (the text before its first '=') or table header, and that line:
// BurntSushi/toml's cost grows with a key's segments faster than linearly (a key of 20,000 segments took 37 s and
// 15.5 GB), so Load refuses more than MaxSpecDepth before decoding. Dots inside quotes count too (a bound, not a parse).
func keyDots(text string) (line, most int) {
	for i, l := range strings.Split(text, "\n") {
		key := l
		if t := strings.TrimSpace(l); !strings.HasPrefix(t, "[") {
			j := strings.IndexByte(l, '=')
			if j < 0 {
				continue
			}
			key = l[:j]
		}
		if n := strings.Count(key, "."); n > most {
			most, line = n, i+1
		}
	}
	return line, most
}

// nesting returns the deepest nesting of [ and { in TOML text outside strings and comments, and the line where it is
// first reached (a cheap scan before decoding; table headers such as [[figure]] count 2, which is within the bound).
func nesting(text string) (line, deepest int) {
	depth, ln := 0, 1
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '\n':
			ln++
		case '#':
			for i < len(text) && text[i] != '\n' {
				i++
			}
			i--
		case '"', '\'':
			q := text[i : i+1]
			if strings.HasPrefix(text[i:], q+q+q) { // a multi-line string
				end := strings.Index(text[i+3:], q+q+q)
				if end < 0 {
					return line, deepest
				}
				ln += strings.Count(text[i:i+3+end], "\n")
				i += 3 + end + 2
				continue
			}
			for i++; i < len(text) && text[i] != c && text[i] != '\n'; i++ {
				if c == '"' && text[i] == '\\' {
					i++
				}
			}
		case '[', '{':
			depth++
			if depth > deepest {
				deepest, line = depth, ln
			}
		case ']', '}':
			depth = max(depth-1, 0)
		}
	}
	return line, deepest
}

// decoder carries the file being decoded, for error messages.
type decoder struct {
	file, text  string
	modelParams []model.Param // the model's, once known (for where selections on list-of-tables parameters)
}

func (d *decoder) errf(table string, idx int, key, format string, args ...any) *Error {
	line := locate(d.text, table, idx, firstSegment(key))
	if line == 0 && table != "" {
		line = locate(d.text, table, idx, "")
	}
	if line == 0 && table == "" && key != "" { // a top-level key written as a table: its first header
		line = locate(d.text, firstSegment(key), 0, "")
	}
	msg := fmt.Sprintf(format, args...)
	if m := elementRE.FindStringSubmatch(msg); m != nil && table == "params" && line > 0 {
		// Element i of a list of tables in [params] (servers, timeline) is at fault: the line of its inline table.
		if i, err := strconv.Atoi(m[1]); err == nil {
			line = max(line, locateElement(d.text, line, i))
		}
	}
	path := key
	if table != "" {
		t := table
		if idx >= 0 {
			t = fmt.Sprintf("%s[%d]", table, idx)
		}
		path = t
		if key != "" {
			path = t + "." + key
		}
	}
	return &Error{File: d.file, Line: line, Key: path, Msg: msg}
}

func firstSegment(key string) string {
	if i := strings.IndexAny(key, ".["); i >= 0 {
		return key[:i]
	}
	return key
}

var topKeys = []string{"name", "description", "model", "seed", "replications", "allow_unstable", "params", "sweep", "figure", "table", "expect"}

// Parse decodes a spec from its text; file names it in errors.
func Parse(file, text string) (*Spec, error) {
	d := &decoder{file: file, text: text}
	var raw map[string]any
	md, err := toml.Decode(text, &raw)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			// Line and column from the error's byte offset: the lexer's line count has already passed the newline
			// that ends an unclosed header ("[sweep⏎" was reported on the next line), and Position.Col is computed
			// from the offset anyway.
			line, col := pe.Position.Line, pe.Position.Col
			if st := pe.Position.Start; st >= 0 && st <= len(text) {
				line = 1 + strings.Count(text[:st], "\n")
				col = st - strings.LastIndex(text[:st], "\n")
			}
			// LastKey is the last key (or table) read, not necessarily the faulty one: say so.
			last := ""
			if pe.LastKey != "" {
				last = " (last key read: " + printable(pe.LastKey) + ")"
			}
			return nil, &Error{File: file, Line: line, Msg: fmt.Sprintf("TOML syntax (column %d): %s%s", col, pe.Message, last)}
		}
		return nil, &Error{File: file, Msg: "TOML: " + err.Error()}
	}
	for k := range raw {
		if !contains(topKeys, k) {
			return nil, d.errf("", -1, k, "unknown key (valid keys: %s)", strings.Join(topKeys, ", "))
		}
	}
	sum := sha256.Sum256([]byte(text))
	s := &Spec{File: file, Text: text, SHA256: hex.EncodeToString(sum[:]), Replications: 1}

	if s.Name, err = d.str(raw, "", -1, "name", true); err != nil {
		return nil, err
	}
	if len(s.Name) > 200 {
		return nil, d.errf("", -1, "name", "%d bytes: a dataset name is at most 200 bytes (it names a directory and its files)", len(s.Name))
	}
	if !nameRE.MatchString(s.Name) {
		return nil, d.errf("", -1, "name", "%q: a dataset name is lowercase letters, digits and '-' ([a-z0-9-]+)", s.Name)
	}
	if s.Name == "schema" || s.Name == "testdata" {
		return nil, d.errf("", -1, "name", "%q is reserved: results/%s/ holds the project's own files (the results/schema package, test data)", s.Name, s.Name)
	}
	if s.Description, err = d.str(raw, "", -1, "description", false); err != nil {
		return nil, err
	}
	mname, err := d.str(raw, "", -1, "model", true)
	if err != nil {
		return nil, err
	}
	var ok bool
	if s.Model, ok = Models[mname]; !ok {
		return nil, d.errf("", -1, "model", "unknown model %q (models: %s)", mname, strings.Join(ModelNames(), ", "))
	}
	d.modelParams = s.Model.Params()
	if v, present, err := d.integer(raw, "", -1, "seed"); err != nil {
		return nil, err
	} else if !present {
		return nil, d.errf("", -1, "seed", "missing: the root seed (an integer ≥ 0) is required so that results are reproducible")
	} else if v < 0 {
		return nil, d.errf("", -1, "seed", "%d: need an integer ≥ 0", v)
	} else {
		s.Seed = v
	}
	if v, present, err := d.integer(raw, "", -1, "replications"); err != nil {
		return nil, err
	} else if present {
		if v < 1 || v > 1_000_000 {
			return nil, d.errf("", -1, "replications", "%d: need 1 ≤ replications ≤ 1000000", v)
		}
		s.Replications = int(v)
	}
	if v, ok := raw["allow_unstable"]; ok {
		b, isBool := v.(bool)
		if !isBool {
			return nil, d.errf("", -1, "allow_unstable", "expected a boolean, got %s", tomlType(v))
		}
		s.AllowUnstable = b
	}
	if s.Replications < 2 {
		s.Warnings = append(s.Warnings, "fewer than 2 replications: no confidence intervals")
	}

	if err := d.params(s, raw); err != nil {
		return nil, err
	}
	if err := d.sweep(s, raw, md); err != nil {
		return nil, err
	}
	if err := d.figures(s, raw); err != nil {
		return nil, err
	}
	if err := d.tables(s, raw); err != nil {
		return nil, err
	}
	if err := d.expects(s, raw); err != nil {
		return nil, err
	}
	if err := d.checkGrid(s); err != nil {
		return nil, err
	}
	if err := d.checkTimeseries(s); err != nil {
		return nil, err
	}
	if err := d.checkSelections(s); err != nil {
		return nil, err
	}
	return s, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// tomlType names a decoded TOML value's type for messages.
func tomlType(v any) string {
	switch v.(type) {
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case []any:
		return "an array"
	case []map[string]any:
		return "an array of tables"
	case map[string]any:
		return "a table"
	}
	return fmt.Sprintf("a %T", v)
}

func (d *decoder) str(m map[string]any, table string, idx int, key string, required bool) (string, error) {
	v, ok := m[key]
	if !ok {
		if required {
			return "", d.errf(table, idx, key, "missing (required)")
		}
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", d.errf(table, idx, key, "expected a string, got %s", tomlType(v))
	}
	return s, nil
}

func (d *decoder) integer(m map[string]any, table string, idx int, key string) (int64, bool, error) {
	v, ok := m[key]
	if !ok {
		return 0, false, nil
	}
	i, ok := v.(int64)
	if !ok {
		return 0, true, d.errf(table, idx, key, "expected an integer, got %s", tomlType(v))
	}
	return i, true, nil
}

func (d *decoder) number(m map[string]any, table string, idx int, key string) (float64, bool, error) {
	v, ok := m[key]
	if !ok {
		return 0, false, nil
	}
	switch x := v.(type) {
	case int64:
		return float64(x), true, nil
	case float64:
		return x, true, nil
	}
	return 0, true, d.errf(table, idx, key, "expected a number, got %s", tomlType(v))
}

// value converts one TOML value to parameter p's kind. It returns a message (not an error) so callers can place it.
func value(p model.Param, v any) (model.Value, string) {
	switch p.Kind {
	case model.Int:
		switch x := v.(type) {
		case int64:
			return model.IntValue(x), ""
		case float64:
			if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
				return model.Value{}, fmt.Sprintf("expected an integer, got the float %v (write %d)", x, int64(x))
			}
		}
		return model.Value{}, "expected an integer, got " + tomlType(v)
	case model.Float:
		switch x := v.(type) {
		case int64:
			return model.FloatValue(float64(x)), ""
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return model.Value{}, fmt.Sprintf("%v is not a usable value", x)
			}
			return model.FloatValue(x), ""
		}
		return model.Value{}, "expected a number, got " + tomlType(v)
	case model.Bool:
		if x, ok := v.(bool); ok {
			return model.BoolValue(x), ""
		}
		return model.Value{}, "expected a boolean, got " + tomlType(v)
	case model.Enum:
		x, ok := v.(string)
		if !ok {
			return model.Value{}, "expected a name, got " + tomlType(v)
		}
		for i, c := range p.Choices {
			if c == x {
				return model.IntValue(int64(i)), ""
			}
		}
		return model.Value{}, fmt.Sprintf("unknown %s %q (valid: %s)", p.Name, x, strings.Join(p.Choices, ", "))
	case model.List:
		xs, ok := v.([]any)
		if !ok || len(xs) == 0 {
			return model.Value{}, "expected a non-empty list of numbers [a, b, ...], got " + tomlType(v)
		}
		l := make([]float64, len(xs))
		for i, x := range xs {
			f, msg := value(model.Param{Name: p.Name, Kind: model.Float}, x)
			if msg != "" {
				return model.Value{}, fmt.Sprintf("element %d: %s", i+1, msg)
			}
			l[i] = f.F
		}
		return model.ListValue(l), ""
	case model.Records:
		return records(p, v)
	}
	return model.Value{}, "parameter of an invalid kind"
}

// records decodes a Records value: a non-empty list of inline tables whose keys are p.Fields, defaults applied.
func records(p model.Param, v any) (model.Value, string) {
	fields := make([]string, len(p.Fields))
	for i, f := range p.Fields {
		fields[i] = f.Name
	}
	example := fmt.Sprintf("[{%s = ...}, ...] with keys %s", fields[0], strings.Join(fields, ", "))
	var tables []map[string]any
	switch x := v.(type) {
	case []map[string]any:
		tables = x
	case []any:
		for _, e := range x {
			t, ok := e.(map[string]any)
			if !ok {
				return model.Value{}, fmt.Sprintf("expected a list of tables %s, got a list holding %s", example, tomlType(e))
			}
			tables = append(tables, t)
		}
	case map[string]any:
		return model.Value{}, fmt.Sprintf("expected a list of tables %s, got one table (in [sweep] each value is itself a list: %s = [[{...}, ...], [{...}]]; to fix one value, put it in [params])", example, p.Name)
	default:
		return model.Value{}, fmt.Sprintf("expected a list of tables %s, got %s", example, tomlType(v))
	}
	if len(tables) == 0 {
		return model.Value{}, "expected a non-empty list of tables " + example
	}
	out := make([]model.Record, len(tables))
	for i, t := range tables {
		for _, k := range sortedKeys(t) {
			if !contains(fields, k) {
				return model.Value{}, fmt.Sprintf("element %d: unknown key %q (keys: %s)", i+1, k, strings.Join(fields, ", "))
			}
		}
		r := make(model.Record, len(p.Fields))
		for j, f := range p.Fields {
			x, present := t[f.Name]
			switch {
			case present:
				val, msg := value(f, x)
				if msg != "" {
					return model.Value{}, fmt.Sprintf("element %d, %s: %s", i+1, f.Name, msg)
				}
				r[j] = val
			case f.Default.Valid || f.Optional:
				r[j] = f.Default
			default:
				return model.Value{}, fmt.Sprintf("element %d: %s is required (%s)", i+1, f.Name, f.Doc)
			}
		}
		out[i] = r
	}
	return model.RecordsValue(out), ""
}

func paramNames(ps []model.Param) string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}

// params decodes [params] into s.Base and fills defaults.
func (d *decoder) params(s *Spec, raw map[string]any) error {
	ps := s.Model.Params()
	s.Base = make(model.Point, len(ps))
	s.fixedFrom = make([]string, len(ps))
	for i, p := range ps {
		if !p.Policy {
			s.Base[i] = p.Default
		}
	}
	v, ok := raw["params"]
	if !ok {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return d.errf("", -1, "params", "expected a table ([params]), got %s", tomlType(v))
	}
	for _, key := range sortedKeys(m) {
		i := model.Index(ps, key)
		if i < 0 {
			if contains(topKeys, key) {
				return d.errf("params", -1, key, "%s is a top-level key, not a parameter: put it above the tables, next to name and model", key)
			}
			return d.errf("params", -1, key, "unknown parameter of model %s (parameters: %s)", s.Model.Name(), paramNames(ps))
		}
		if ps[i].Kind == model.Enum && ps[i].Name == "policy" {
			set, msg := d.policySetting(ps, m[key])
			if msg != "" {
				return d.errf("params", -1, key, "%s", msg)
			}
			for _, a := range set {
				if _, dup := m[ps[a.Param].Name]; dup && a.Param != i {
					return d.errf("params", -1, key, "%s is set both here and as params.%s: set it in one place", ps[a.Param].Name, ps[a.Param].Name)
				}
				s.Base[a.Param] = a.Value
				s.fixedFrom[a.Param] = key
			}
			continue
		}
		val, msg := value(ps[i], m[key])
		if msg != "" {
			return d.errf("params", -1, key, "%s", msg)
		}
		s.Base[i] = val
		s.fixedFrom[i] = key
	}
	return nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// choiceSetting decodes an axis value written as a table: for a choice (enum) parameter { name = choice, param =
// value, ... }, for any other { value = v, param = value, ... } (v may be "null" for an optional parameter): the
// axis's value together with other parameters that go with it (e.g. { name = "threshold", threshold = 10 } on a
// scheme axis, { value = 10.0, hedge_cancel = true } on a hedge axis), so one axis can hold variants that differ in
// more than one parameter.
func choiceSetting(ps []model.Param, i int, tbl map[string]any) (Setting, string) {
	head := "value"
	if ps[i].Kind == model.Enum {
		head = "name"
	}
	name, ok := tbl[head]
	if !ok {
		if head == "name" {
			return nil, fmt.Sprintf("a %s table needs name = \"...\" (choices: %s)", ps[i].Name, strings.Join(ps[i].Choices, ", "))
		}
		return nil, fmt.Sprintf("a %s table needs value = ... (the axis's value; the other keys set parameters that go with it)", ps[i].Name)
	}
	var val model.Value
	if str, isStr := name.(string); isStr && str == "null" && head == "value" {
		if !ps[i].Optional {
			return nil, fmt.Sprintf("\"null\" leaves a parameter unset, but %s is not optional", ps[i].Name)
		}
	} else {
		var msg string
		if val, msg = value(ps[i], name); msg != "" {
			return nil, msg
		}
	}
	set := Setting{{Param: i, Value: val}}
	for _, k := range sortedKeys(tbl) {
		if k == head {
			continue
		}
		j := model.Index(ps, k)
		if j == i {
			return nil, fmt.Sprintf("%q is this axis's own parameter: its value is the table's %s", k, head)
		}
		if j < 0 {
			return nil, fmt.Sprintf("%q is not another parameter (parameters: %s)", k, paramNames(ps))
		}
		v, msg := value(ps[j], tbl[k])
		if str, isStr := tbl[k].(string); isStr && str == "null" && ps[j].Kind != model.Enum {
			// "null" leaves the bundled parameter unset, as a policy table's and an axis's "null" do.
			if !ps[j].Optional {
				return nil, fmt.Sprintf("%s: \"null\" leaves a parameter unset, but %s is not optional", k, k)
			}
			v, msg = model.Value{}, ""
		}
		if msg != "" {
			return nil, fmt.Sprintf("%s: %s", k, msg)
		}
		set = append(set, Assign{Param: j, Value: v})
	}
	return set, ""
}

// policySetting decodes a policy: a name, or an inline table {name = ..., arg = ...}.
func (d *decoder) policySetting(ps []model.Param, v any) (Setting, string) {
	pi := model.Index(ps, "policy")
	var name string
	var args map[string]any
	switch x := v.(type) {
	case string:
		name = x
	case map[string]any:
		n, ok := x["name"].(string)
		if !ok {
			if _, present := x["name"]; present {
				return nil, "a policy's name must be a string"
			}
			return nil, "a policy table needs name = \"...\" (policies: " + strings.Join(ps[pi].Choices, ", ") + ")"
		}
		name, args = n, x
	default:
		return nil, "expected a policy name or an inline table { name = ..., ... }, got " + tomlType(v)
	}
	val, msg := value(ps[pi], name)
	if msg != "" {
		return nil, msg
	}
	entry := policy.Registry[val.I]
	set := Setting{{Param: pi, Value: val}}
	for _, k := range sortedKeys(args) {
		if k == "name" {
			continue
		}
		if j := model.Index(ps, k); j >= 0 && !ps[j].Policy {
			// Another parameter that goes with this policy, as any axis value may bundle (a balancer-side fix:
			// { name = "round_robin", outlier_consecutive_5xx = 5 }).
			v, msg := value(ps[j], args[k])
			if str, isStr := args[k].(string); isStr && str == "null" && ps[j].Kind != model.Enum {
				if !ps[j].Optional {
					return nil, fmt.Sprintf("policy %s, %s: \"null\" leaves a parameter unset, but %s is not optional", entry.Name, k, k)
				}
				v, msg = model.Value{}, ""
			}
			if msg != "" {
				return nil, fmt.Sprintf("policy %s, %s: %s", entry.Name, k, msg)
			}
			set = append(set, Assign{Param: j, Value: v})
			continue
		}
		if !entry.Takes(k) {
			takes := "no arguments"
			if len(entry.Args) > 0 {
				takes = "arguments: " + strings.Join(entry.ArgNames(), ", ")
			}
			return nil, fmt.Sprintf("policy %s does not take %q (%s)", entry.Name, k, takes)
		}
		ai := model.Index(ps, k)
		av, msg := value(ps[ai], args[k])
		if msg != "" {
			return nil, fmt.Sprintf("policy %s, %s: %s", entry.Name, k, msg)
		}
		set = append(set, Assign{Param: ai, Value: av})
	}
	return set, ""
}

// sweep decodes [sweep] into s.Axes, in file order.
func (d *decoder) sweep(s *Spec, raw map[string]any, md toml.MetaData) error {
	v, ok := raw["sweep"]
	if !ok {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return d.errf("", -1, "sweep", "expected a table ([sweep]), got %s", tomlType(v))
	}
	ps := s.Model.Params()
	// File order of the axes; dotted keys (lambda.from = ...) list only their leaves, so take the second segment
	// of every key under sweep, and keep any key the metadata missed (sorted) rather than dropping an axis.
	var order []string
	for _, k := range md.Keys() {
		if len(k) >= 2 && k[0] == "sweep" && !contains(order, k[1]) {
			order = append(order, k[1])
		}
	}
	for _, k := range sortedKeys(m) {
		if !contains(order, k) {
			order = append(order, k)
		}
	}
	setBy := make(map[int]string) // parameter → the axis that sets it
	for _, key := range order {
		i := model.Index(ps, key)
		if i < 0 {
			if contains(topKeys, key) {
				return d.errf("sweep", -1, key, "%s is a top-level key, not a parameter: put it above the tables, next to name and model", key)
			}
			return d.errf("sweep", -1, key, "unknown parameter of model %s (parameters: %s)", s.Model.Name(), paramNames(ps))
		}
		if f := s.fixedFrom[i]; f != "" {
			where := "also fixed in [params]"
			if f != key {
				where = "also fixed in [params] by params." + f
			}
			return d.errf("sweep", -1, key, "%s: set it in one place", where)
		}
		ax := Axis{Key: key}
		axis := m[key]
		if tbls, ok := axis.([]map[string]any); ok && ps[i].Kind == model.Records {
			// servers = [{...}, {...}] in [sweep]: one value, not an axis; records() explains it element by element.
			_, msg := records(ps[i], tbls[0])
			return d.errf("sweep", -1, key, "element 1: %s", msg)
		}
		switch x := axis.(type) {
		case []any:
			if len(x) == 0 {
				return d.errf("sweep", -1, key, "empty list: an axis needs at least one value")
			}
			for j, e := range x {
				if ps[i].Name == "policy" {
					set, msg := d.policySetting(ps, e)
					if msg != "" {
						return d.errf("sweep", -1, key, "element %d: %s", j+1, msg)
					}
					ax.Values = append(ax.Values, set)
					continue
				}
				if str, ok := e.(string); ok && str == "null" && ps[i].Kind != model.Enum {
					// "null": the parameter left unset at this value of the axis, e.g. queue = ["null", 8]
					// (unbounded, then 8), as a where selection writes null; only for optional parameters, whose
					// null has a meaning. (No choice of an enum is named "null": the enum case is decoded as a name.)
					if !ps[i].Optional {
						return d.errf("sweep", -1, key, "element %d: \"null\" leaves a parameter unset, but %s is not optional", j+1, ps[i].Name)
					}
					ax.Values = append(ax.Values, Setting{{Param: i, Value: model.Value{}}})
					continue
				}
				if tbl, isTable := e.(map[string]any); isTable && ps[i].Kind != model.Records {
					set, msg := choiceSetting(ps, i, tbl)
					if msg != "" {
						return d.errf("sweep", -1, key, "element %d: %s", j+1, msg)
					}
					ax.Values = append(ax.Values, set)
					continue
				}
				val, msg := value(ps[i], e)
				if msg != "" {
					return d.errf("sweep", -1, key, "element %d: %s", j+1, msg)
				}
				ax.Values = append(ax.Values, Setting{{Param: i, Value: val}})
			}
		case map[string]any:
			vals, err := d.rangeAxis(ps[i], key, x)
			if err != nil {
				return err
			}
			for _, val := range vals {
				ax.Values = append(ax.Values, Setting{{Param: i, Value: val}})
			}
		default:
			return d.errf("sweep", -1, key, "expected a list [a, b, ...] or a range { from = ..., to = ..., step = ... }, got %s", tomlType(m[key]))
		}
		for _, set := range ax.Values {
			for _, a := range set {
				name := ps[a.Param].Name
				if f := s.fixedFrom[a.Param]; f != "" {
					return d.errf("sweep", -1, key, "sets %s, which params.%s also sets: set it in one place", name, f)
				}
				if other, ok := setBy[a.Param]; ok && other != key {
					return d.errf("sweep", -1, key, "sets %s, which sweep.%s also sets: set it in one place", name, other)
				}
			}
		}
		for _, set := range ax.Values {
			for _, a := range set {
				setBy[a.Param] = key
			}
		}
		s.Axes = append(s.Axes, ax)
	}
	return nil
}

// maxAxis bounds one axis's length so that a typo (step = 1e-9) is an error, not an hour of allocation.
const maxAxis = 1_000_000

// rangeAxis expands an inclusive range {from, to, step} as from + i·step, i = 0, 1, ... while the value does not
// exceed to (with a relative slack of 1e-9 of a step, so 0.5..0.99 step 0.01 gives exactly 50 values), each value
// rounded to 12 significant digits.
func (d *decoder) rangeAxis(p model.Param, key string, m map[string]any) ([]model.Value, error) {
	for _, k := range sortedKeys(m) {
		if k != "from" && k != "to" && k != "step" {
			return nil, d.errf("sweep", -1, key, "unknown range key %q (a range is { from = ..., to = ..., step = ... })", k)
		}
	}
	if p.Kind != model.Int && p.Kind != model.Float {
		return nil, d.errf("sweep", -1, key, "a range needs a numeric parameter; %s is a %s: give a list", p.Name, p.Kind)
	}
	var f [3]float64
	for j, k := range []string{"from", "to", "step"} {
		v, present := m[k]
		if !present {
			return nil, d.errf("sweep", -1, key, "range is missing %q", k)
		}
		val, msg := value(p, v)
		if msg != "" {
			return nil, d.errf("sweep", -1, key, "range %s: %s", k, msg)
		}
		f[j] = val.F
		if p.Kind == model.Int {
			f[j] = float64(val.I)
		}
	}
	from, to, step := f[0], f[1], f[2]
	if !(step > 0) {
		return nil, d.errf("sweep", -1, key, "range step %v: need step > 0", step)
	}
	if to < from {
		return nil, d.errf("sweep", -1, key, "empty range: to (%v) < from (%v)", to, from)
	}
	count := math.Floor((to-from)/step+1e-9) + 1
	if count > maxAxis {
		return nil, d.errf("sweep", -1, key, "range gives %.0f values; at most %d per axis", count, maxAxis)
	}
	vals := make([]model.Value, int(count))
	for i := range vals {
		x := from + float64(i)*step
		// 12 significant digits drop the arithmetic's noise (0.5 + 7·0.01 = 0.5700000000000001 becomes 0.57), so
		// values print, select (WHERE "lambda" = 0.57) and seed as the spec's author meant them.
		x, _ = strconv.ParseFloat(strconv.FormatFloat(x, 'g', 12, 64), 64)
		if p.Kind == model.Int {
			vals[i] = model.IntValue(int64(math.Round(x)))
		} else {
			vals[i] = model.FloatValue(x)
		}
	}
	return vals, nil
}
