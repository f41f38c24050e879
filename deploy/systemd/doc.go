// Package systemd holds newsrank's systemd units (no Go code): the daemon
// (newsrank.service) and a .service/.timer pair per job (crawl, prune,
// rescore). Its test checks them with systemd-analyze and against the
// newsrank binary and the default job schedules.
package systemd
