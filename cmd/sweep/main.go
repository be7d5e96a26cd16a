// Command sweep runs lbsweep experiments: it decodes a TOML spec, runs its parameter grid on a pool of workers and
// writes the results as Parquet (DIR/NAME/runs.parquet); `sweep check` evaluates a spec's claims on its dataset.
// See `sweep -h` and the README.
//
// The first SIGINT, SIGTERM or SIGHUP stops the sweep (runs in progress are abandoned and no dataset file is left);
// a second one exits at once with status 130. A closed stderr pipe does not kill it.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"lbsweep/experiments/sweep"
)

func main() {
	signal.Ignore(syscall.SIGPIPE) // progress written to a closed pipe returns EPIPE instead of killing the sweep
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		<-sigs
		cancel()
		<-sigs
		os.Exit(130)
	}()
	os.Exit(sweep.Main(ctx, os.Args[1:], os.Stdout, os.Stderr))
}
