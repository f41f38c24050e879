// Package deploy holds newsrank's deployment files (no Go code): the
// container image (Containerfile) and a compose file with Redis
// (compose.yaml), the Grafana dashboard (grafana/newsrank.json), the
// Prometheus alert rules with their unit tests and a scrape configuration
// (prometheus/), and the systemd units (systemd/, a package of its own).
//
// Its tests check them against the real thing: promtool checks and tests
// the rules; a running daemon's /metrics must carry every metric the
// dashboard and the rules name; and, where podman runs, the image is
// built and its binary run.
package deploy
