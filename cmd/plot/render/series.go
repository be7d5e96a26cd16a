package render

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"lbsweep/experiments"
	"lbsweep/model"
	"lbsweep/results"
)

// maxLines bounds the lines of a timeseries figure: about as many as the legend column holds.
const maxLines = 16

// seriesLine is one line of a timeseries figure: a numeric column, or element elem of a list column (elem ≥ 0).
type seriesLine struct {
	label     string
	col, elem int
}

// drawSeries renders Timeseries figure f of spec s from the time-series rows in t: each column of f.Ys against f.X as
// step lines (a sample's value holds until the next sample's time: queue lengths are piecewise constant), a list
// column as one line per element labelled "name[k]" (k from 0). Its selection must be one run's rows. The lines are
// clipped to the window [XFrom, XTo]; a null or NaN value (or one ≤ 0 on a log y axis) leaves a gap until the next
// sample.
func drawSeries(s *experiments.Spec, f experiments.Figure, t *results.Table, w io.Writer) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("figure %s: %s", f.Name, fmt.Sprintf(format, args...))
	}
	rows := t.Where(f.Where)
	if len(rows) == 0 {
		return fail("no time-series rows match the figure's selection")
	}
	if err := oneRun(s, t, rows); err != nil {
		return fail("%v", err)
	}
	xcol := t.Col(f.X)
	if xcol < 0 {
		return fail("the time-series table has no column %q", f.X)
	}
	// Each sample holds its values from its time x to the next sample's (queue lengths are piecewise constant): lo
	// and hi are the part of that interval inside the window [XFrom, XTo].
	type sample struct {
		x, lo, hi float64
		r         int
	}
	var all []sample
	for _, r := range rows {
		if x := num(t, r, xcol, 0, math.NaN()); !math.IsNaN(x) {
			all = append(all, sample{x: x, r: r})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].x < all[j].x })
	from, to := math.Inf(-1), math.Inf(1)
	if f.XFrom != nil {
		from = *f.XFrom
	}
	if f.XTo != nil {
		to = *f.XTo
	}
	var samples []sample
	for j, sm := range all {
		end := sm.x
		if j+1 < len(all) {
			end = all[j+1].x
		}
		sm.lo, sm.hi = math.Max(sm.x, from), math.Min(end, to)
		if sm.lo < sm.hi || j == len(all)-1 && sm.x >= from && sm.x <= to {
			samples = append(samples, sm)
		}
	}
	if len(samples) == 0 {
		return fail("no samples with %s in the window", f.X)
	}

	var lines []seriesLine
	for _, y := range f.Ys {
		c := t.Col(y)
		if c < 0 {
			return fail("the time-series table has no column %q", y)
		}
		if t.Columns[c].Type != results.Float64List {
			lines = append(lines, seriesLine{y, c, -1})
			continue
		}
		n := 0
		for _, sm := range samples {
			n = max(n, len(t.Rows[sm.r][c].L))
		}
		for k := range n {
			lines = append(lines, seriesLine{fmt.Sprintf("%s[%d]", y, k), c, k})
		}
	}
	if len(lines) > maxLines {
		return fail("%d lines, more than the %d a figure can tell apart: draw fewer columns", len(lines), maxLines)
	}
	value := func(r int, l seriesLine) float64 {
		if l.elem < 0 {
			return num(t, r, l.col, 0, math.NaN())
		}
		return num(t, r, l.col, l.elem+1, math.NaN())
	}
	floor := math.Inf(1) // log y: below the smallest positive value
	for _, l := range lines {
		for _, sm := range samples {
			if y := value(sm.r, l); y > 0 && !math.IsInf(y, 1) {
				floor = math.Min(floor, y)
			}
		}
	}
	floor /= 1.5
	keep := func(y float64) bool { return !math.IsNaN(y) && !math.IsInf(y, 0) && (!f.LogY || y > 0) }

	p := newPlot(f)
	var cols []results.Column
	if m, ok := s.Model.(model.SeriesModel); ok {
		cols = model.SeriesColumns(m)
	}
	if p.X.Label.Text == "" {
		p.X.Label.Text = axisLabel(column(cols, f.X))
	}
	if p.Y.Label.Text == "" {
		p.Y.Label.Text = seriesYLabel(cols, f.Ys)
	}
	if p.Title.Text == "" {
		p.Title.Text = s.Name + ": " + strings.Join(f.Ys, ", ") + " against " + f.X
	}
	leg := newLegend()
	drawn := 0
	var lns []plot.Plotter
	for i, l := range lines {
		style := draw.LineStyle{Color: palette[i%len(palette)], Width: vg.Points(1), Dashes: plotutil.Dashes(i / len(palette))}
		var segs []plotter.XYs
		var seg plotter.XYs
		var hold plotter.XY // where the last sample of seg stops holding
		closeSeg := func() {
			if len(seg) > 0 && hold.X > seg[len(seg)-1].X {
				seg = append(seg, hold)
			}
			if len(seg) > 0 {
				segs, seg = append(segs, seg), nil
			}
		}
		for _, sm := range samples {
			if y := value(sm.r, l); keep(y) {
				seg = append(seg, plotter.XY{X: sm.lo, Y: y})
				hold = plotter.XY{X: sm.hi, Y: y}
				continue
			}
			closeSeg()
		}
		closeSeg()
		for k, pts := range segs {
			ln, err := plotter.NewLine(pts)
			if err != nil {
				return fail("%v", err)
			}
			ln.StepStyle = plotter.PostStep
			ln.LineStyle = style
			lns = append(lns, ln)
			drawn += len(pts)
			if k == 0 {
				leg.add(l.label, ln)
			}
		}
	}
	if drawn == 0 {
		return fail("nothing to draw (no finite values%s in the selected samples)", map[bool]string{true: " > 0 for the log axis", false: ""}[f.LogY])
	}
	p.Add(plotter.NewGrid())
	p.Add(lns...)
	// The y range is padded (no line on the edge of the data area); x is padded only where no window bounds it.
	xmin, xmax := pad(p.X.Min, p.X.Max, false)
	if f.XFrom != nil {
		xmin = *f.XFrom
	}
	if f.XTo != nil {
		xmax = *f.XTo
	}
	p.X.Min, p.X.Max = xmin, xmax
	if f.LogY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logTicks{}
		p.Y.Min = floor
		p.Y.Max = math.Max(p.Y.Max, floor*1.01)
	}
	p.Y.Min, p.Y.Max = pad(p.Y.Min, p.Y.Max, f.LogY)
	return write(p, leg, w)
}

// seriesYLabel is the y label of a timeseries figure drawing columns ys of cols: their labels (else names), joined
// by ", ", with their unit in parentheses when they all share one.
func seriesYLabel(cols []results.Column, ys []string) string {
	var labels []string
	unit := ""
	for i, y := range ys {
		c := column(cols, y)
		l := c.Label
		if l == "" {
			l = y
		}
		labels = append(labels, l)
		if i == 0 {
			unit = c.Unit
		} else if c.Unit != unit {
			unit = ""
		}
	}
	label := strings.Join(labels, ", ")
	if unit != "" {
		label += " (" + unit + ")"
	}
	return label
}

// oneRun checks that rows of t are the rows of one run (one point, one replication), else names replication and the
// parameters of s's model whose values differ between them.
func oneRun(s *experiments.Spec, t *results.Table, rows []int) error {
	pc, rc := t.Col("point"), t.Col("replication")
	if pc < 0 || rc < 0 {
		return fmt.Errorf("no point and replication columns: not a time-series table")
	}
	runs := map[string]bool{}
	for _, r := range rows {
		runs[fmt.Sprintf("%s#%d", t.Rows[r][pc].S, t.Rows[r][rc].I)] = true
	}
	if len(runs) == 1 {
		return nil
	}
	var names []string
	for _, name := range append([]string{"replication"}, paramNames(s)...) {
		c := t.Col(name)
		for _, r := range rows {
			if c >= 0 && !results.Equal(t.Columns[c].Type, t.Rows[r][c], t.Rows[rows[0]][c]) {
				names = append(names, name)
				break
			}
		}
	}
	return fmt.Errorf("the selection holds %d runs, and a timeseries figure draws one: %s still vary", len(runs), strings.Join(names, ", "))
}

func paramNames(s *experiments.Spec) []string {
	var names []string
	for _, p := range s.Model.Params() {
		names = append(names, p.Name)
	}
	return names
}
