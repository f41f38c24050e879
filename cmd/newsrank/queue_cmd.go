package main

import (
	"context"
	"errors"
)

// TODO(owner of queue): replace this placeholder with the real command.
func runQueue(ctx context.Context, std *stdio, args []string) error {
	return errors.New("queue: not built yet")
}
