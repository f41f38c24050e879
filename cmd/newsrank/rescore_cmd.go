package main

import (
	"context"
	"errors"
)

// TODO(owner of rescore): replace this placeholder with the real command.
func runRescore(ctx context.Context, std *stdio, args []string) error {
	return errors.New("rescore: not built yet")
}
