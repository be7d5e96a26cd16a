// Package sim is lbsweep's simulation core: seeded random streams, the O(1) structure that keeps servers sorted by
// queue length (with exact time averages of every level), per-server FIFO rings of arrival times, and the sojourn-time
// recorder. It knows nothing of dispatch policies or of any particular model.
//
// Units: time is in the calling model's unit, which each model states once in its package doc (the supermarket
// family: mean service times; the fleet: ticks); a time average over [t0, t1) is an integral divided by t1 − t0.
package sim
