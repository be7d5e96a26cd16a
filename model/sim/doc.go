// Package sim is lbsweep's simulation core: seeded random streams, the future-event list (with handles to cancel or
// move a pending event), the O(1) structure that keeps servers sorted by queue length (with exact time averages of
// every level), per-server FIFO rings of arrival times, and the sojourn-time recorder. It knows nothing of dispatch
// policies or of any particular model.
//
// Units: time is in the model's unit, stated once per model (mean service times for the supermarket family, in
// package model's doc; ticks for the fleet, in its package doc; milliseconds for the request-level world); the core
// only orders, adds and averages times, and a time average over [t0, t1) is an integral divided by t1 − t0.
package sim
