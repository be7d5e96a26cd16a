// Command floor does nothing but link the libraries a sweep links for its datasets: apache/arrow-go's Parquet column
// layer (parquet/file, with its zstd codec) and DataDog's DDSketch. Its CPU time is the start-up floor of any program
// that uses them, whatever the program does: their package initialisers all run before main. The largest are arrow's
// compute-kernel registry, which parquet's encoders import (about 2.4·10^6 instructions), and the CRC-32C tables that
// klauspost/compress's snappy builds (1.25·10^6). bench/compare.sh times it beside a sweep that has nothing to run.
//
// The sweep no longer links arrow-go's Arrow layer (pqarrow), which imports arrow's Flight and with it grpc and
// protobuf: 2.4·10^6 more instructions, 230 more page faults and 6 MB more memory before main.
package main

import (
	_ "github.com/DataDog/sketches-go/ddsketch"
	_ "github.com/apache/arrow-go/v18/parquet/file"
)

func main() {}
