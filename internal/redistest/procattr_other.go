//go:build !linux

package redistest

import "syscall"

// procAttr is nil where the kernel has no parent-death signal: a killed
// test run may leave its redis-servers running there.
func procAttr() *syscall.SysProcAttr { return nil }
