package main

import (
	"context"
	"errors"
)

// TODO(owner of crawl): replace this placeholder with the real command.
func runCrawl(ctx context.Context, std *stdio, args []string) error {
	return errors.New("crawl: not built yet")
}
