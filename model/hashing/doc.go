// Package hashing holds the key-to-server placement schemes that load balancers use for affinity: Envoy's ring hash
// (ring.go), Maglev (maglev.go), jump consistent hash (jump.go), rendezvous or highest-random-weight hashing
// (rendezvous.go), multi-probe consistent hashing (multiprobe.go) and consistent hashing with bounded loads
// (bounded.go). Each file cites the implementation or paper it follows, at a pinned version, and states where it
// deviates.
//
// Everything here is a pure data structure: building a table is deterministic in its configuration (a salt stands
// for the hosts' names and seeds every hash), lookups do not allocate and a built table is safe for concurrent
// readers. Keys and servers are integers: a key is any uint64 (the caller hashes it with Key and a salt of its
// choice), servers are indices 0 … N−1.
package hashing
