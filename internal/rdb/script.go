package rdb

import (
	"context"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"
)

// Pipeliner is what the script runner needs of a client: pipelines, and
// SCRIPT LOAD for the scripts a server does not know. Every
// redis.UniversalClient is one.
type Pipeliner interface {
	redis.Scripter
	Pipeline() redis.Pipeliner
}

// Pipelined runs the commands fn queues in one pipeline on c. Script
// calls queued by EVALSHA (script.EvalSha) that the server rejects with
// NOSCRIPT (it never loaded the script, or lost it in a restart or a
// SCRIPT FLUSH) did not run: their scripts, looked up among scripts by
// SHA, are loaded and those calls alone are sent again, once, in a second
// pipeline, so commands that did run are never run twice. It returns the
// queued commands and, as go-redis's Pipelined does, the first command
// error.
func Pipelined(ctx context.Context, c Pipeliner, fn func(redis.Pipeliner), scripts ...*redis.Script) ([]redis.Cmder, error) {
	pipe := c.Pipeline()
	fn(pipe)
	cmds, err := pipe.Exec(ctx)
	if err == nil {
		return cmds, nil
	}
	var again []redis.Cmder
	load := map[string]*redis.Script{}
	for _, cmd := range cmds {
		if !IsNoScript(cmd.Err()) {
			continue
		}
		s := scriptOf(cmd, scripts)
		if s == nil {
			return cmds, err
		}
		load[s.Hash()] = s
		again = append(again, cmd)
	}
	if len(again) == 0 {
		return cmds, err
	}
	for _, s := range load {
		if err := s.Load(ctx, c).Err(); err != nil {
			return cmds, fmt.Errorf("load script %.8s: %w", s.Hash(), err)
		}
	}
	pipe = c.Pipeline()
	for _, cmd := range again {
		_ = pipe.Process(ctx, cmd)
	}
	_, _ = pipe.Exec(ctx) // the errors are read per command below
	return cmds, firstErr(cmds)
}

// EvalEach runs script n times in one pipeline, by EVALSHA, with the keys
// and arguments call(i) gives for the i-th call, and returns the n calls
// in order. A server that does not know the script is handled as
// Pipelined does.
func EvalEach(ctx context.Context, c Pipeliner, script *redis.Script, n int, call func(i int) (keys []string, args []any)) ([]*redis.Cmd, error) {
	out := make([]*redis.Cmd, n)
	_, err := Pipelined(ctx, c, func(p redis.Pipeliner) {
		for i := range out {
			keys, args := call(i)
			out[i] = script.EvalSha(ctx, p, keys, args...)
		}
	}, script)
	return out, err
}

// IsNoScript reports whether err is the server's NOSCRIPT reply: the
// script asked for by SHA is not in its script cache.
func IsNoScript(err error) bool {
	return err != nil && redis.HasErrorPrefix(err, "NOSCRIPT")
}

// scriptOf returns the script among scripts that cmd ran by EVALSHA, or
// nil.
func scriptOf(cmd redis.Cmder, scripts []*redis.Script) *redis.Script {
	args := cmd.Args()
	if len(args) < 2 {
		return nil
	}
	name, _ := args[0].(string)
	sha, _ := args[1].(string)
	if !strings.EqualFold(name, "evalsha") && !strings.EqualFold(name, "evalsha_ro") {
		return nil
	}
	for _, s := range scripts {
		if s.Hash() == sha {
			return s
		}
	}
	return nil
}

// firstErr returns the first command error, as a pipeline's Exec does.
func firstErr(cmds []redis.Cmder) error {
	for _, c := range cmds {
		if err := c.Err(); err != nil {
			return err
		}
	}
	return nil
}
