package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"lbsweep/experiments"
	"lbsweep/model"
	"lbsweep/model/policy"
	"lbsweep/results"
)

// listModels is `sweep -list`: every model with its parameters, and every policy with its arguments.
func listModels(w io.Writer) {
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	for _, name := range experiments.ModelNames() {
		m := experiments.Models[name]
		fmt.Fprintf(tw, "model %s\t%s\n", name, m.Doc())
		for _, p := range m.Params() {
			listParam(tw, "  ", p)
			for _, f := range p.Fields {
				listParam(tw, "    "+p.Name+".", f)
			}
		}
	}
	tw.Flush()
	fmt.Fprintln(w, "policies")
	for _, e := range policy.Registry {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", e.Name, e.Signature(), e.Doc)
	}
	tw.Flush()
}

// listParam prints one parameter (or a field of a list-of-tables parameter, with prefix "    servers.") as a -list
// line: name, kind and default, unit ("-" when dimensionless), doc with its range.
func listParam(tw io.Writer, prefix string, p model.Param) {
	def := ""
	if p.Default.Valid {
		def = " (default " + p.Format(p.Default) + ")"
	}
	unit := p.Unit
	if unit == "" {
		unit = "-"
	}
	fmt.Fprintf(tw, "%s%s\t%s%s\t%s\t%s\n", prefix, p.Name, p.Kind, def, unit, p.Doc)
}

// schemaMarkdown renders model m's results columns as the README's Markdown table (`sweep -schema`).
func schemaMarkdown(m model.Model) string { return columnsMarkdown(model.Columns(m)) }

// seriesSchemaMarkdown renders the columns of SeriesModel m's time-series table (model.SeriesColumns) as a Markdown
// table like schemaMarkdown's.
func seriesSchemaMarkdown(m model.SeriesModel) string { return columnsMarkdown(model.SeriesColumns(m)) }

func columnsMarkdown(cols []results.Column) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| column | type | unit | meaning |\n|---|---|---|---|\n")
	for _, c := range cols {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", c.Name, c.Type, c.Unit, strings.ReplaceAll(c.Doc, "|", "\\|"))
	}
	return b.String()
}
