package hashing

// Jump returns the bucket in [0, n) of a 64-bit key by jump consistent hash (Lamping & Veach, "A Fast, Minimal
// Memory, Consistent Hash Algorithm", arXiv:1406.2294, 2014, Figure 1): the key seeds a 64-bit linear congruential
// generator (multiplier 2862933555777941757, increment 1) whose draws decide, bucket count by bucket count, where the
// key last jumped; O(ln n) expected steps, no table. Steps returns that number of jumps.
//
// Properties (the paper's §2): every bucket receives a key with probability exactly 1/n, and growing n to n+1 moves
// a key only to the new bucket n, with probability 1/(n+1). Buckets are numbered: only the last one can leave
// without moving other keys, and jump hash has no weights. Call it with a hashed key (Key(k, salt)), since the
// generator is seeded with the key itself. It panics if n < 1.
func Jump(key uint64, n int) (bucket, steps int) {
	if n < 1 {
		panic("hashing: Jump needs n ≥ 1 buckets")
	}
	b, j := int64(-1), int64(0)
	for j < int64(n) {
		b = j
		key = key*2862933555777941757 + 1
		j = int64(float64(b+1) * (float64(int64(1)<<31) / float64((key>>33)+1)))
		steps++
	}
	return int(b), steps
}
