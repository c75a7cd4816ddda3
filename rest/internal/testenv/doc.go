// Package testenv gives the tests of the rest packages what they share beyond the stores
// (internal/teststore): a clock they move by hand, so that a 24-hour window is crossed in a
// microsecond and a boundary is hit to the nanosecond instead of slept past, and the check of
// every response against the interface description the server serves.
package testenv
