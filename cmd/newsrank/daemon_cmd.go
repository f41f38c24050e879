package main

import (
	"context"
	"errors"
)

// TODO(owner of daemon): replace this placeholder with the real command.
func runDaemon(ctx context.Context, std *stdio, args []string) error {
	return errors.New("daemon: not built yet")
}
