// Command plot renders the [[figure]] tables of lbsweep specs from their datasets as SVG and their [[table]] entries
// as Markdown, and writes the reproduction report figures/REPORT.md. See `plot -h` and the README.
//
// The command is its flags, its usage text and the files it writes; drawing is lbsweep/cmd/plot/render's, claims
// are lbsweep/experiments/claims's.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"lbsweep/cmd/plot/render"
	"lbsweep/experiments"
	"lbsweep/experiments/claims"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

const usage = `usage:
  plot [-results DIR] [-o OUT] SPEC.toml ...
Renders every [[figure]] of each spec from DIR/NAME/*.parquet (a timeseries figure from DIR/NAME/_timeseries/) to
OUT/NAME-FIGURE.svg and every [[table]] to OUT/NAME-TABLE.md, and writes OUT/REPORT.md with those tables and every
[[expect]] claim of the specs given, its measured value and its verdict. A failed claim is reported, not an error: plot exits 0 (sweep check is the gate that
exits 1).
flags:
`

// run is the plot command: it parses args (without the program name) and returns the exit code (0 ok, 1 failure,
// 2 usage). A failed claim is reported in REPORT.md and on stderr but is not a failure of plot (`sweep check` is the
// gate). Files go to the -o directory, "plot: wrote PATH" lines and errors to stderr; nothing goes to stdout.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("plot", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // flag errors are reported below, with the command's prefix
	fs.Usage = func() {}
	resDir := fs.String("results", "results", "results root holding `DIR`/NAME/")
	outDir := fs.String("o", "figures", "`OUT`: where the SVGs and REPORT.md go")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(fs, stderr)
			return 0
		}
		fmt.Fprintf(stderr, "%s: %v (%s -h for usage)\n", "plot", err, "plot")
		return 2
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "plot: give one or more SPEC.toml")
		printUsage(fs, stderr)
		return 2
	}
	if err := os.MkdirAll(*outDir, 0o755); err != nil {
		fmt.Fprintf(stderr, "plot: %v\n", err)
		return 1
	}
	var sections []render.Section
	for _, path := range fs.Args() {
		spec, err := experiments.Load(path)
		if err != nil {
			fmt.Fprintf(stderr, "plot: %v\n", err)
			return 1
		}
		t, err := spec.ReadResults(*resDir)
		if err != nil {
			fmt.Fprintf(stderr, "plot: %v\n", err)
			return 1
		}
		sec := render.Section{Spec: spec, Verdicts: claims.Evaluate(spec.Expects, t)}
		for _, f := range spec.Figures {
			tab := t
			if f.Kind == experiments.Timeseries { // its one run's rows of the time-series table, read only now
				if tab, err = spec.ReadSeries(*resDir, f.Where); err != nil {
					fmt.Fprintf(stderr, "plot: %v\n", err)
					return 1
				}
			}
			var buf bytes.Buffer
			if err := render.Draw(spec, f, tab, &buf); err != nil {
				fmt.Fprintf(stderr, "plot: %s: %v\n", spec.File, err)
				return 1
			}
			name := spec.Name + "-" + f.Name + ".svg"
			if err := writeFile(filepath.Join(*outDir, name), buf.Bytes()); err != nil {
				fmt.Fprintf(stderr, "plot: %v\n", err)
				return 1
			}
			sec.Figures = append(sec.Figures, name)
			fmt.Fprintf(stderr, "plot: wrote %s\n", filepath.Join(*outDir, name))
		}
		for _, tb := range spec.Tables {
			var buf bytes.Buffer
			if err := render.WriteTable(spec, tb, t, &buf); err != nil {
				fmt.Fprintf(stderr, "plot: %s: %v\n", spec.File, err)
				return 1
			}
			name := spec.Name + "-" + tb.Name + ".md"
			if err := writeFile(filepath.Join(*outDir, name), buf.Bytes()); err != nil {
				fmt.Fprintf(stderr, "plot: %v\n", err)
				return 1
			}
			sec.Tables = append(sec.Tables, buf.String())
			fmt.Fprintf(stderr, "plot: wrote %s\n", filepath.Join(*outDir, name))
		}
		for _, v := range sec.Verdicts {
			if note := claims.Format(spec.Name, v, claims.Note); note != "" {
				fmt.Fprintf(stderr, "plot: %s\n", note)
			}
		}
		sections = append(sections, sec)
	}
	var buf bytes.Buffer
	render.Report(&buf, sections)
	if err := writeFile(filepath.Join(*outDir, "REPORT.md"), buf.Bytes()); err != nil {
		fmt.Fprintf(stderr, "plot: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "plot: wrote %s\n", filepath.Join(*outDir, "REPORT.md"))
	return 0
}

// writeFile writes through a temporary name and renames, so a reader never sees half a figure.
func writeFile(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// printUsage writes the usage text and the flags' defaults to w.
func printUsage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprint(w, usage)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}
