package main

import (
	"context"
	"fmt"
)

func runConfig(ctx context.Context, std *stdio, args []string) error {
	fs := newFlags(std, "config", "config check [-config FILE]", `
Check a configuration file: load it over the defaults, expand ${ENV}
references and validate it. Prints the effective configuration with
passwords and tokens masked, or the errors, each naming its field.
Exit status 2 when the configuration is invalid.`)
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
	src := common.configPath
	if src == "" {
		src = "built-in defaults"
	}
	fmt.Fprintf(std.out, "# effective configuration from %s: valid\n%s", src, out)
	return nil
}
