package main

import (
	"context"
	"errors"
)

// TODO(owner of jobs): replace this placeholder with the real command.
func runJobs(ctx context.Context, std *stdio, args []string) error {
	return errors.New("jobs: not built yet")
}
