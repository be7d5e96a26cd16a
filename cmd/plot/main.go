// Command plot renders the [[figure]] tables of lbsweep specs from their datasets as SVG and their [[table]] entries
// as Markdown, and writes the reproduction report figures/REPORT.md and its one-page HTML form figures/index.html.
// See `plot -h` and the README.
//
// The first SIGINT, SIGTERM or SIGHUP stops it with status 130 whatever it is doing (a second exits at once); no
// temporary file is left, and one left by a plot killed with SIGKILL is removed by the next plot writing that file.
//
// The command is its flags, its usage text and the files it writes; drawing is lbsweep/cmd/plot/render's, claims
// are lbsweep/experiments/claims's.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"syscall"

	"lbsweep/cmd/plot/render"
	"lbsweep/experiments"
	"lbsweep/experiments/claims"
	"lbsweep/results"
)

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		<-sigs
		cancel()
		<-sigs
		os.Exit(130)
	}()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// errInterrupted is the error of a plot stopped by its context (exit status 130).
var errInterrupted = errors.New("interrupted")

// await is experiments.Await with this command's interruption error.
func await[T any](ctx context.Context, f func() (T, error)) (T, error) {
	return experiments.Await(ctx, errInterrupted, f)
}

const usage = `usage:
  plot [-results DIR] [-o OUT] SPEC.toml ...
Renders every [[figure]] of each spec from DIR/NAME/*.parquet (a timeseries figure from DIR/NAME/_timeseries/) to
OUT/NAME-FIGURE.svg and every [[table]] to OUT/NAME-TABLE.md, and writes OUT/REPORT.md with those tables and every
[[expect]] claim, its measured value and its verdict, for every spec plotted into OUT (this call's and earlier ones',
listed in OUT/.report-specs and rebuilt from their datasets), and the same report as one self-contained page,
OUT/index.html (figures embedded, linking each spec and dataset). A failed claim is reported, not an error: plot
exits 0 (sweep check is the gate that exits 1).
flags:
`

// run is the plot command: it parses args (without the program name) and returns the exit code (0 ok, 1 failure,
// 2 usage, 130 interrupted: ctx cancelled). A failed claim is reported in REPORT.md and on stderr but is not a failure of plot (`sweep check` is the
// gate). Files go to the -o directory, "plot: wrote PATH" lines and errors to stderr; nothing goes to stdout.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("plot", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // flag errors are reported below, with the command's prefix
	fs.Usage = func() {}
	resDir := fs.String("results", "results", "results root holding `DIR`/NAME/")
	outDir := fs.String("o", "figures", "`OUT`: where the SVGs, REPORT.md and index.html go")
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
	fail := func(err error) int {
		fmt.Fprintf(stderr, "plot: %v\n", err)
		if errors.Is(err, errInterrupted) {
			return 130
		}
		return 1
	}
	var sections []render.Section
	given := map[string]bool{} // spec names plotted by this call
	var entries []reportEntry
	for _, path := range fs.Args() {
		type loaded struct {
			spec *experiments.Spec
			t    *results.Table
		}
		l, err := await(ctx, func() (loaded, error) {
			spec, err := experiments.Load(path)
			if err != nil {
				return loaded{}, err
			}
			t, err := spec.ReadResults(*resDir)
			return loaded{spec, t}, err
		})
		if err != nil {
			return fail(err)
		}
		spec, t := l.spec, l.t
		given[spec.Name] = true
		entry := entryOf(spec, path, *resDir, *outDir)
		entries = append(entries, entry)
		sec := render.Section{Spec: spec, Verdicts: claims.Evaluate(spec.Expects, t)}
		if err := entry.link(*outDir, &sec); err != nil {
			return fail(err)
		}
		for _, f := range spec.Figures {
			tab := t
			if f.Kind == experiments.Timeseries { // its one run's rows of the time-series table, read only now
				if tab, err = await(ctx, func() (*results.Table, error) { return spec.ReadSeries(*resDir, f.Where) }); err != nil {
					return fail(err)
				}
			}
			buf, err := await(ctx, func() (*bytes.Buffer, error) {
				var buf bytes.Buffer
				return &buf, render.Draw(spec, f, tab, &buf)
			})
			if errors.Is(err, errInterrupted) {
				return fail(err)
			} else if err != nil {
				fmt.Fprintf(stderr, "plot: %s: %v\n", spec.File, err)
				return 1
			}
			name := spec.Name + "-" + f.Name + ".svg"
			if err := writeFile(ctx, filepath.Join(*outDir, name), buf.Bytes()); err != nil {
				return fail(err)
			}
			sec.Figures = append(sec.Figures, name)
			fmt.Fprintf(stderr, "plot: wrote %s\n", filepath.Join(*outDir, name))
		}
		for _, tb := range spec.Tables {
			tab, err := render.MakeTable(spec, tb, t)
			if err != nil {
				fmt.Fprintf(stderr, "plot: %s: %v\n", spec.File, err)
				return 1
			}
			var buf bytes.Buffer
			tab.WriteMarkdown(&buf)
			name := spec.Name + "-" + tb.Name + ".md"
			if err := writeFile(ctx, filepath.Join(*outDir, name), buf.Bytes()); err != nil {
				return fail(err)
			}
			sec.Tables = append(sec.Tables, tab)
			fmt.Fprintf(stderr, "plot: wrote %s\n", filepath.Join(*outDir, name))
		}
		for _, v := range sec.Verdicts {
			if note := claims.Format(spec.Name, v, claims.Note); note != "" {
				fmt.Fprintf(stderr, "plot: %s\n", note)
			}
		}
		sections = append(sections, sec)
	}
	// The report covers every spec plotted into OUT, not only this call's: the sections of the others are rebuilt from
	// their specs and datasets (their figures are not redrawn), in spec-name order.
	old, err := readManifest(*outDir)
	if err != nil {
		return fail(err)
	}
	for _, e := range old {
		if given[e.Name] {
			continue
		}
		sec, err := await(ctx, func() (render.Section, error) { return e.section(*outDir) })
		if errors.Is(err, errInterrupted) {
			return fail(err)
		} else if err != nil {
			fmt.Fprintf(stderr, "plot: REPORT.md and index.html no longer cover %s, plotted here before: %v\n", e.Name, err)
			continue
		}
		sections = append(sections, sec)
		entries = append(entries, e)
	}
	sort.SliceStable(sections, func(i, j int) bool { return sections[i].Spec.Name < sections[j].Spec.Name })
	var buf bytes.Buffer
	render.Report(&buf, sections)
	if err := writeFile(ctx, filepath.Join(*outDir, manifestName), manifestText(entries)); err != nil {
		return fail(err)
	}
	if err := writeFile(ctx, filepath.Join(*outDir, "REPORT.md"), buf.Bytes()); err != nil {
		return fail(err)
	}
	fmt.Fprintf(stderr, "plot: wrote %s\n", filepath.Join(*outDir, "REPORT.md"))
	buf.Reset()
	if err := render.HTMLReport(&buf, sections, os.DirFS(*outDir)); err != nil {
		return fail(err)
	}
	if err := writeFile(ctx, filepath.Join(*outDir, "index.html"), buf.Bytes()); err != nil {
		return fail(err)
	}
	fmt.Fprintf(stderr, "plot: wrote %s\n", filepath.Join(*outDir, "index.html"))
	return 0
}

// writeFile writes b to path through a hidden temporary name (results.TempName: ".NAME.PID.tmp") and renames it, so a
// reader never sees half a figure. On any error, or when ctx is cancelled first, the temporary file is removed and
// path left as it was; the temporary files of killed plots (dead process ids) are removed first.
func writeFile(ctx context.Context, path string, b []byte) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%w before writing %s (%w)", errInterrupted, path, err)
	}
	results.RemoveStaleTemps(path)
	tmp := results.TempName(path)
	err := os.WriteFile(tmp, b, 0o644)
	if err == nil && ctx.Err() != nil {
		err = fmt.Errorf("%w while writing %s (%w)", errInterrupted, path, ctx.Err())
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// printUsage writes the usage text and the flags' defaults to w.
func printUsage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprint(w, usage)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}
