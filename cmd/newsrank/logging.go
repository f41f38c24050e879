package main

import (
	"context"
	"fmt"
	"log/slog"
	"reflect"
	"sort"
)

// proseHandler makes log records read like prose whatever their caller
// passed: an attribute whose value is nil (a nil error: "err=<nil>") is
// left out, and a map is written as its pairs in key order
// ("counts.created=116 counts.updated=0", not "counts=map[…]").
type proseHandler struct{ slog.Handler }

func (h proseHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
	r.Attrs(func(a slog.Attr) bool {
		if a, ok := prose(a); ok {
			out.AddAttrs(a)
		}
		return true
	})
	return h.Handler.Handle(ctx, out)
}

func (h proseHandler) WithAttrs(as []slog.Attr) slog.Handler {
	kept := make([]slog.Attr, 0, len(as))
	for _, a := range as {
		if a, ok := prose(a); ok {
			kept = append(kept, a)
		}
	}
	return proseHandler{h.Handler.WithAttrs(kept)}
}

func (h proseHandler) WithGroup(name string) slog.Handler {
	return proseHandler{h.Handler.WithGroup(name)}
}

// prose rewrites one attribute; ok is false to drop it.
func prose(a slog.Attr) (slog.Attr, bool) {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindGroup:
		var as []slog.Attr
		for _, g := range v.Group() {
			if g, ok := prose(g); ok {
				as = append(as, g)
			}
		}
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(as...)}, len(as) > 0
	case slog.KindAny:
	default:
		return slog.Attr{Key: a.Key, Value: v}, true
	}
	x := v.Any()
	if x == nil {
		return a, false
	}
	rv := reflect.ValueOf(x)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return a, false
		}
	case reflect.Map:
		keys := rv.MapKeys()
		as := make([]slog.Attr, 0, len(keys))
		for _, k := range keys {
			as = append(as, slog.Any(fmt.Sprint(k.Interface()), rv.MapIndex(k).Interface()))
		}
		sort.Slice(as, func(i, j int) bool { return as[i].Key < as[j].Key })
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(as...)}, len(as) > 0
	}
	return slog.Attr{Key: a.Key, Value: v}, true
}
