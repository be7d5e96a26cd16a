// Command plot renders the [[figure]] tables of lbsweep specs from their datasets as SVG and their [[table]] entries
// as Markdown, and writes the reproduction report figures/REPORT.md. See `plot -h` and the README.
package main

import (
	"os"

	"lbsweep/figures/render"
)

func main() { os.Exit(render.Main(os.Args[1:], os.Stdout, os.Stderr)) }
