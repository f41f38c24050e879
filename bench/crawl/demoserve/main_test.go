package main

import (
	"net"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/newsrank/newsrank/config"
	"github.com/newsrank/newsrank/demosite"
)

func TestWriteSourcesRoundTrip(t *testing.T) {
	site := demosite.New(demosite.Options{Articles: 300, Now: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)})
	for name, sources := range map[string][]config.Source{
		"all":  site.Sources("http://127.0.0.1:8088"),
		"html": site.HTMLSources("http://127.0.0.1:8088"),
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "sources.yaml")
			if err := writeSources(path, sources); err != nil {
				t.Fatal(err)
			}
			cfg, err := config.Load(path)
			if err != nil {
				data, _ := os.ReadFile(path)
				t.Fatalf("Load: %v\n%s", err, data)
			}
			got := cfg.Crawler.Sources
			for i := range sources {
				want := sources[i]
				// Empty collections are dropped from the file.
				if len(want.JSON.Fields) == 0 {
					want.JSON.Fields = got[i].JSON.Fields
				}
				if !reflect.DeepEqual(got[i], want) {
					t.Errorf("source %d after the round trip:\n got %+v\nwant %+v", i, got[i], want)
				}
			}
		})
	}
}

func TestBaseURL(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:8088": "http://127.0.0.1:8088",
		"0.0.0.0:80":     "http://127.0.0.1:80",
		"[::]:9000":      "http://127.0.0.1:9000",
		"[::1]:9000":     "http://[::1]:9000",
	} {
		a, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := baseURL(a); got != want {
			t.Errorf("baseURL(%s) = %s, want %s", addr, got, want)
		}
	}
}
