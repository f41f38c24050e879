//go:build !unix

package queue

// processCPU is not measured on this platform.
func processCPU() float64 { return 0 }
