package sweep

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"

	"lbsweep/experiments"
	"lbsweep/experiments/experimentstest"
)

// helperEnv is set, in the environment of this test binary re-executed as a sweep process, to the mode of
// TestSweepHelperProcess: "plain", or "series" to register the fake SeriesModel first, or "lock" to only hold a
// dataset's writer's lock.
const helperEnv = "LBSWEEP_SWEEP_HELPER"

// TestSweepHelperProcess is the sweep process of the kill-and-resume tests (the helper-process pattern of os/exec's
// own tests): this test binary, re-executed with helperEnv set, runs `sweep [-q] -j 2 -o DIR SPEC` as the command
// does (Run with its progress lines on stderr, or none with -q) and exits 0, or 1 after printing the error. It saves
// those tests building the command with its profile, which took most of their time.
func TestSweepHelperProcess(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		t.Skip("the sweep process of the kill-and-resume tests")
	}
	if mode == "series" {
		experimentstest.Register(t, experimentstest.Series{})
	}
	if mode == "lock" { // hold the unsharded writer's lock of the dataset directory flag.Arg(0) until killed
		if _, err := lockShard(flag.Arg(0), Whole); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println("locked")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	args := flag.Args()                                  // the arguments after --: [-q] DIR SPEC
	log, every := io.Writer(os.Stderr), time.Duration(0) // progress lines every 5 s, as the command without -q
	if len(args) == 3 && args[0] == "-q" {
		log, every, args = io.Discard, -1, args[1:]
	}
	if len(args) != 2 {
		fmt.Fprintf(os.Stderr, "helper: want [-q] DIR SPEC, got %q\n", args)
		os.Exit(2)
	}
	spec, err := experiments.Load(args[1])
	if err == nil {
		_, err = Run(context.Background(), spec, Options{Dir: args[0], Workers: 2, Log: log, Every: every})
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "sweep: %v\n", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// helperSweep returns the command that runs TestSweepHelperProcess in mode ("plain" or "series") on spec, writing
// under dir; quiet drops its progress lines.
func helperSweep(mode, dir, spec string, quiet bool) *exec.Cmd {
	args := []string{"-test.run=^TestSweepHelperProcess$", "--", dir, spec}
	if quiet {
		args = []string{"-test.run=^TestSweepHelperProcess$", "--", "-q", dir, spec}
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), helperEnv+"="+mode)
	return cmd
}
