// Command floor does nothing but link apache/arrow-go's pqarrow, the Parquet layer the sweep writes and reads its
// datasets with: its CPU time is the start-up floor of any program that uses that library, whatever the program
// does. pqarrow imports arrow's Flight (for its schema serialisation), and through it grpc and protobuf, and
// arrow's compute kernels: 43 arrow packages, 64 of grpc and 34 of protobuf in the sweep binary's 58 MB, whose
// package initialisers all run before main. bench/compare.sh times it beside a sweep that has nothing to run.
package main

import _ "github.com/apache/arrow-go/v18/parquet/pqarrow"

func main() {}
