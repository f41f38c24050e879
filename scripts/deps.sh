#!/usr/bin/env bash
# Installs what newsrank's tests need and Go does not bring: redis-server
# (the tests start their own throwaway servers), redis-sentinel (the
# Sentinel failover tests start three), promtool from Debian's prometheus
# package (the tests of deploy/prometheus run `promtool check rules` and
# `promtool test rules`) and, for the browser test,
# Debian's chromium and chromium-driver, and a CJK font (fonts-wqy-microhei,
# the smallest) so that Chinese titles render instead of empty boxes. As
# root it installs them with apt-get; otherwise it says what to install and
# fails.
set -euo pipefail

need=()
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
command -v redis-cli >/dev/null 2>&1 || need+=(redis-tools)
command -v redis-sentinel >/dev/null 2>&1 || need+=(redis-sentinel)
# promtool has no package of its own; prometheus brings it (and a server
# the tests never start: as with redis-server, Debian's service is left
# alone, and in a container without systemd it does not start at all).
command -v promtool >/dev/null 2>&1 || need+=(prometheus)
if [ "${NEWSRANK_SKIP_BROWSER:-}" != "1" ]; then
  command -v chromium >/dev/null 2>&1 || need+=(chromium)
  command -v chromedriver >/dev/null 2>&1 || need+=(chromium-driver)
  if ! command -v fc-list >/dev/null 2>&1 || [ -z "$(fc-list :lang=zh-cn family 2>/dev/null)" ]; then
    need+=(fonts-wqy-microhei)
  fi
fi

if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "newsrank tests need: ${need[*]}" >&2
  echo "install them as root, e.g.: sudo apt-get install -y ${need[*]}" >&2
  echo "(redis-server is also in Homebrew as 'redis')" >&2
  exit 1
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "newsrank tests need: ${need[*]}; this system has no apt-get, install them with its package manager" >&2
  exit 1
fi

echo "installing: ${need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
# Debian's package starts a system redis-server on 6379; the tests do not
# use it (they start their own on free ports), so it is left alone.
