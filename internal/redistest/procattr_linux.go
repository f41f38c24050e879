package redistest

import "syscall"

// procAttr has the kernel kill a test's redis-server when the test
// process dies (a panic, a -timeout, a SIGKILL), so that no server is
// left running behind a killed test run. Go keeps its OS threads for the
// process's life unless a goroutine locked to one exits; this package
// locks none.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
