package config

import (
	"slices"

	"github.com/newsrank/newsrank/internal/rdb"
)

// Options translates the redis section into package rdb's options.
func (r Redis) Options() rdb.Options {
	return rdb.Options{
		URL: r.URL,
		Sentinel: rdb.Sentinel{
			MasterName: r.Sentinel.MasterName,
			Addrs:      slices.Clone(r.Sentinel.Addrs),
			Password:   r.Sentinel.Password,
		},
		Cluster:  rdb.Cluster{Addrs: slices.Clone(r.Cluster.Addrs)},
		Username: r.Username,
		Password: r.Password,
		DB:       r.DB,
		TLS: rdb.TLS{
			Enabled:            r.TLS.Enabled,
			InsecureSkipVerify: r.TLS.InsecureSkipVerify,
			ServerName:         r.TLS.ServerName,
			CAFile:             r.TLS.CAFile,
		},
		KeyPrefix:       r.KeyPrefix,
		DialTimeout:     r.DialTimeout.D(),
		ReadTimeout:     r.ReadTimeout.D(),
		WriteTimeout:    r.WriteTimeout.D(),
		MaxRetries:      r.MaxRetries,
		MinRetryBackoff: r.MinRetryBackoff.D(),
		MaxRetryBackoff: r.MaxRetryBackoff.D(),
		PoolSize:        r.PoolSize,
	}
}

// RedisFromOptions is the redis section that translates to o: the
// defaults come from package rdb, and tests point a configuration at a
// test server with it.
func RedisFromOptions(o rdb.Options) Redis {
	return Redis{
		URL: o.URL,
		Sentinel: RedisSentinel{
			MasterName: o.Sentinel.MasterName,
			Addrs:      slices.Clone(o.Sentinel.Addrs),
			Password:   o.Sentinel.Password,
		},
		Cluster:  RedisCluster{Addrs: slices.Clone(o.Cluster.Addrs)},
		Username: o.Username,
		Password: o.Password,
		DB:       o.DB,
		TLS: RedisTLS{
			Enabled:            o.TLS.Enabled,
			InsecureSkipVerify: o.TLS.InsecureSkipVerify,
			ServerName:         o.TLS.ServerName,
			CAFile:             o.TLS.CAFile,
		},
		KeyPrefix:       o.KeyPrefix,
		DialTimeout:     Duration(o.DialTimeout),
		ReadTimeout:     Duration(o.ReadTimeout),
		WriteTimeout:    Duration(o.WriteTimeout),
		MaxRetries:      o.MaxRetries,
		MinRetryBackoff: Duration(o.MinRetryBackoff),
		MaxRetryBackoff: Duration(o.MaxRetryBackoff),
		PoolSize:        o.PoolSize,
	}
}
