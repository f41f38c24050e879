package main

import (
	"context"
	"errors"
)

// TODO(owner of prune): replace this placeholder with the real command.
func runPrune(ctx context.Context, std *stdio, args []string) error {
	return errors.New("prune: not built yet")
}
