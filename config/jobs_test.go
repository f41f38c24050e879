package config

import (
	"testing"
)

func TestJobsOptions(t *testing.T) {
	cfg := DefaultConfig().Jobs
	cfg.TimeZone = "Asia/Shanghai"
	o, err := cfg.Options()
	if err != nil || o.Location.String() != "Asia/Shanghai" || o.LockTTL != cfg.LockTTL.D() || !o.CatchUp {
		t.Fatalf("%+v, %v", o, err)
	}
}
