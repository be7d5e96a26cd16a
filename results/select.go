package results

import "math"

// Cond selects rows whose column equals a value (floats within a relative 1e-9, so 0.1+0.2 selects 0.3; a list equals
// a list of the same length whose elements are equal that way, so weights = [5, 1, 1] selects a List parameter).
type Cond struct {
	Column string
	Value  Cell
	Text   string // the value as the spec wrote it, for messages and legends
}

// Equal reports whether cells a and b of type t hold the same value (nulls equal only nulls).
func Equal(t Type, a, b Cell) bool {
	if a.Valid != b.Valid {
		return false
	}
	if !a.Valid {
		return true
	}
	switch t {
	case Int64:
		return a.I == b.I
	case Float64:
		return closeFloat(a.F, b.F)
	case Float64List:
		if len(a.L) != len(b.L) {
			return false
		}
		for i := range a.L {
			if !closeFloat(a.L[i], b.L[i]) {
				return false
			}
		}
		return true
	case Bool:
		return a.B == b.B
	case String:
		return a.S == b.S
	}
	return false
}

// closeFloat reports x = y within a relative 1e-9.
func closeFloat(x, y float64) bool {
	return x == y || math.Abs(x-y) <= 1e-9*math.Max(math.Abs(x), math.Abs(y))
}

// Where returns the indices of the rows matching every condition. A condition on a column the table lacks matches
// nothing.
func (t *Table) Where(conds []Cond) []int {
	idx := make([]int, len(conds))
	for i, c := range conds {
		idx[i] = t.Col(c.Column)
		if idx[i] < 0 {
			return nil
		}
	}
	var rows []int
	for r, row := range t.Rows {
		ok := true
		for i, c := range conds {
			if !Equal(t.Columns[idx[i]].Type, row[idx[i]], c.Value) {
				ok = false
				break
			}
		}
		if ok {
			rows = append(rows, r)
		}
	}
	return rows
}
