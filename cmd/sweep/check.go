package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"lbsweep/experiments"
	"lbsweep/experiments/claims"
)

// check is `sweep check [-results DIR] SPEC.toml ...`: one line per claim (claims.Format's Line style), then the
// counts; exit 1 when a claim fails (or passes though declared a known failure) or a dataset is missing.
func check(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sweep check", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // flag errors are reported below, with the command's prefix
	fs.Usage = func() {}
	dir := fs.String("results", "results", "results root holding `DIR`/NAME/")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(fs, stderr)
			return 0
		}
		fmt.Fprintf(stderr, "%s: %v (%s -h for usage)\n", "sweep", err, "sweep")
		return 2
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "sweep check: give one or more SPEC.toml")
		return 2
	}
	failed, passed, known := 0, 0, 0
	for _, path := range fs.Args() {
		spec, err := experiments.Load(path)
		if err != nil {
			fmt.Fprintf(stderr, "sweep: %v\n", err)
			return 1
		}
		t, err := spec.ReadResults(*dir)
		if err != nil {
			fmt.Fprintf(stderr, "sweep: %v\n", err)
			return 1
		}
		for _, v := range claims.Evaluate(spec.Expects, t) {
			switch {
			case !v.OK():
				failed++
			case v.Pass:
				passed++
			default:
				known++
			}
			fmt.Fprintln(stdout, claims.Format(spec.Name, v, claims.Line))
		}
	}
	if known > 0 {
		fmt.Fprintf(stdout, "claims: %d declared not to reproduce (known_failure), as declared\n", known)
	}
	fmt.Fprintf(stdout, "claims: %d passed, %d failed\n", passed, failed)
	if failed > 0 {
		return 1
	}
	return 0
}
