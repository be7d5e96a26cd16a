package schema

import "fmt"

// Schema is an ordered list of uniquely named columns, declared once. A model builds its metric schema from its
// column declarations when its package is initialized, returns Columns as its metric columns, and fills each run's
// row through a Builder by the same declarations, so the order is written in one place and a cell lands in its
// column by name, not by position. A Schema is read-only after New and safe for concurrent use.
type Schema struct {
	cols  []Column
	index map[string]int // name → position in cols
}

// New returns the schema of cols, in that order (cols is copied). It panics, naming the column, when a name is
// empty or repeated or a type invalid: schemas are declared at package initialization, so a bad one fails every test
// of its package.
func New(cols ...Column) *Schema {
	s := &Schema{cols: append([]Column(nil), cols...), index: make(map[string]int, len(cols))}
	for i, c := range cols {
		switch {
		case c.Name == "":
			panic(fmt.Sprintf("schema: column %d has no name", i))
		case c.Type < Int64 || c.Type > Float64List:
			panic(fmt.Sprintf("schema: column %s has an invalid type (%d)", c.Name, c.Type))
		}
		if _, dup := s.index[c.Name]; dup {
			panic("schema: column " + c.Name + " declared twice")
		}
		s.index[c.Name] = i
	}
	return s
}

// Columns returns the schema's columns in order. The slice is shared: callers must not modify it.
func (s *Schema) Columns() []Column { return s.cols }

// Len is the number of columns.
func (s *Schema) Len() int { return len(s.cols) }

// Index returns the position of the column named name, or -1.
func (s *Schema) Index(name string) int {
	if i, ok := s.index[name]; ok {
		return i
	}
	return -1
}

// NewRow returns a Builder for one row of s with every cell null.
func (s *Schema) NewRow() *Builder {
	return &Builder{s: s, row: make(Row, len(s.cols)), set: make([]bool, len(s.cols))}
}

// Edit returns a Builder that fills row in place: row's valid cells count as set, so Set refuses them and fills only
// the others (a grid point's theory, shared by its replications, filling the cells a run left null). It panics when
// len(row) ≠ s.Len().
func (s *Schema) Edit(row Row) *Builder {
	if len(row) != len(s.cols) {
		panic(fmt.Sprintf("schema: a row of %d cells for a schema of %d columns", len(row), len(s.cols)))
	}
	b := &Builder{s: s, row: row, set: make([]bool, len(s.cols))}
	for i, c := range row {
		b.set[i] = c.Valid
	}
	return b
}

// Builder fills one row of a Schema by column. Cells not set stay null. Its methods panic on a programming error:
// a column not in the schema (or declared differently there), a cell of another type than its column's, a column
// set twice. A Builder is not safe for concurrent use.
type Builder struct {
	s   *Schema
	row Row
	set []bool
}

// position returns c's position in the schema, panicking unless the schema declares exactly c.
func (b *Builder) position(c Column) int {
	i, ok := b.s.index[c.Name]
	if !ok {
		panic("schema: column " + c.Name + " is not in the schema")
	}
	if b.s.cols[i] != c {
		panic("schema: column " + c.Name + " is declared differently in the schema")
	}
	return i
}

// Set stores v in column c. v must fit c (Cell.Fits); Null is allowed and still counts as setting c.
func (b *Builder) Set(c Column, v Cell) {
	i := b.position(c)
	switch {
	case b.set[i]:
		panic("schema: column " + c.Name + " set twice")
	case !v.Fits(c.Type):
		panic(fmt.Sprintf("schema: column %s (%s): got %s", c.Name, c.Type, v))
	}
	b.row[i], b.set[i] = v, true
}

// Get returns the cell of column c (null when not set).
func (b *Builder) Get(c Column) Cell { return b.row[b.position(c)] }

// Row returns the row, aligned with the schema's columns; cells not set are null. The Builder keeps writing to it.
func (b *Builder) Row() Row { return b.row }
