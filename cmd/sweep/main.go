// Command sweep runs lbsweep experiments: it decodes a TOML spec, runs its parameter grid on a pool of workers and
// writes the results as Parquet (DIR/NAME/runs.parquet); `sweep check` evaluates a spec's claims on its dataset.
// See `sweep -h` and the README.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"lbsweep/experiments/sweep"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code := sweep.Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
