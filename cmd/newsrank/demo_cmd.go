package main

import (
	"context"
	"errors"
)

// TODO(owner of demo): replace this placeholder with the real command.
func runDemo(ctx context.Context, std *stdio, args []string) error {
	return errors.New("demo: not built yet")
}
