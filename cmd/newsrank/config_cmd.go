package main

import (
	"context"
	"fmt"
)

func runConfig(ctx context.Context, std *stdio, args []string) error {
	fs := newFlags(std, "config", "config check [-config FILE[,FILE...]] [-set KEY=VALUE]...", `
Check a configuration: load the files over the defaults, apply the -set
overrides, expand ${ENV} references and validate it. Prints the effective
configuration with passwords, tokens and the user names and passwords of
URLs masked; or every problem, one per line, as FILE:LINE: KEY: what is
wrong (-set KEY=VALUE: what is wrong for a flag), with exit status 2.`)
	common := addCommon(fs)
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		fs.Usage()
		if len(args) == 0 {
			return usageError("missing subcommand: config check")
		}
		return nil
	}
	if args[0] != "check" {
		fs.Usage()
		return usageError("unknown subcommand %q: want check", args[0])
	}
	if err := parse(fs, args[1:], false); err != nil {
		return err
	}
	cfg, _, err := common.load(std)
	if err != nil {
		return err
	}
	out, err := cfg.Redacted().YAML()
	if err != nil {
		return err
	}
	fmt.Fprintf(std.out, "# effective configuration from %s: valid\n%s", common.source(), out)
	return nil
}
