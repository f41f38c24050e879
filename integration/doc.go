// Package integration holds newsrank's end-to-end tests; it has no code of
// its own.
//
//   - cluster_test.go runs the whole pipeline on a real three-master Redis
//     Cluster: the demo site crawled by several consumer processes, the
//     ranking, votes, rebuild and prune, the leaderboards, the jobs and the
//     web API.
//   - faults_test.go, hostile_test.go, rebuild_fault_test.go and
//     rebuild_writes_test.go are the fault-injection suite (every test
//     named TestFault...; scripts/faults.sh runs them): consumers killed
//     with SIGKILL, Redis restarted mid-crawl and mid-rebuild, Redis
//     unreachable under a running daemon, votes, ingests and refreshes
//     racing rebuilds, and sites that hang, send garbage, truncate, send
//     50 MB, loop redirects or paginate forever. Each case checks that every URL ended done or dead with a
//     reason and that the ranking is consistent (time: and score: hold the
//     same ids and every id has its article hash).
//   - sentinel_test.go runs the newsrank daemon on Redis Sentinel (a
//     master, a replica, three sentinels) while the master is switched,
//     by SENTINEL FAILOVER and by SIGKILL: the crawl, the votes and the
//     rescores lose nothing acknowledged, and /readyz says 503 while no
//     master is known.
//
// Every test starts its own redis-server processes (internal/redistest)
// and HTTP servers; nothing is mocked.
package integration
