// Command peakrss runs a command and writes its peak resident set size,
// in bytes, to a file: how tests measure the memory of the newsrank
// binary (proctest.PeakRSS). A Go process starts its children with vfork,
// and the exec folds the parent's own peak into the child's rusage
// maxrss, so a test process (large under the race detector) cannot
// measure a child directly; this small process can.
//
//	peakrss OUTFILE COMMAND [ARG...]
//
// The command's output passes through; peakrss exits with its status.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: peakrss OUTFILE COMMAND [ARG...]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "peakrss:", err)
		os.Exit(127)
	}
	peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
	if runtime.GOOS != "darwin" {
		peak <<= 10 // KiB on Linux and the BSDs, bytes on macOS
	}
	if err := os.WriteFile(os.Args[1], []byte(strconv.FormatInt(peak, 10)), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "peakrss:", err)
		os.Exit(127)
	}
	os.Exit(cmd.ProcessState.ExitCode())
}
