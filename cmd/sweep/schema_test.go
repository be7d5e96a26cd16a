package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"lbsweep/experiments"
	"lbsweep/experiments/experimentstest"
	"lbsweep/model"
)

// The README's results tables are generated from the models' declarations: each must match `sweep -schema` exactly,
// so the documentation cannot drift from the schema. A model with a time series has a second table.
func TestREADMESchema(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for name, m := range experiments.Models {
		checkREADMETable(t, text, name, schemaMarkdown(m))
		if sm, ok := m.(model.SeriesModel); ok {
			checkREADMETable(t, text, name+":timeseries", seriesSchemaMarkdown(sm))
		}
	}
}

// checkREADMETable checks that the README's block <!-- schema:KEY --> ... <!-- /schema --> is want.
func checkREADMETable(t *testing.T, text, key, want string) {
	t.Helper()
	begin, end := "<!-- schema:"+key+" -->\n", "<!-- /schema -->"
	i := strings.Index(text, begin)
	if i < 0 {
		t.Errorf("README.md has no %q section; add it with the output of `go run ./cmd/sweep -schema %s`", begin, strings.TrimSuffix(key, ":timeseries"))
		return
	}
	rest := text[i+len(begin):]
	j := strings.Index(rest, end)
	if j < 0 {
		t.Fatalf("README.md: %q is not closed", begin)
	}
	if got := rest[:j]; got != want {
		t.Errorf("README.md schema %s is stale; replace it with the output of `go run ./cmd/sweep -schema %s`:\n%s", key, strings.TrimSuffix(key, ":timeseries"), want)
	}
}

// -schema prints a SeriesModel's time-series columns after its runs columns.
func TestSeriesSchema(t *testing.T) {
	experimentstest.Register(t, experimentstest.Series{})
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"-schema", experimentstest.SeriesName}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	sm := experimentstest.Series{}
	want := schemaMarkdown(sm) + "\nTime series (DIR/NAME/_timeseries/):\n\n" + seriesSchemaMarkdown(sm)
	if stdout.String() != want {
		t.Errorf("-schema %s:\n%s\nwant:\n%s", experimentstest.SeriesName, stdout.String(), want)
	}
	if !strings.Contains(want, "| `queues` | list<double> | jobs |") || !strings.Contains(want, "| `n` | int64 |") {
		t.Errorf("time-series schema lacks its parameter or series columns:\n%s", want)
	}
}
