package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
)

// version is set at build time: go build -ldflags "-X main.version=v1.2.3".
var version = "dev"

func runVersion(ctx context.Context, std *stdio, args []string) error {
	fs := newFlags(std, "version", "version", "Print the version and build information.")
	if err := parse(fs, args, false); err != nil {
		return err
	}
	fmt.Fprintf(std.out, "newsrank %s\n", version)
	fmt.Fprintf(std.out, "go: %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if bi, ok := debug.ReadBuildInfo(); ok {
		fmt.Fprintf(std.out, "module: %s %s\n", bi.Main.Path, bi.Main.Version)
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision", "vcs.time", "vcs.modified":
				fmt.Fprintf(std.out, "%s: %s\n", s.Key, s.Value)
			}
		}
	}
	return nil
}
