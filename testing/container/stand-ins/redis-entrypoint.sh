#!/bin/sh
# As the official image's entrypoint: arguments alone (`--save ''`) are redis-server's. The
# official Redis is built with protected mode off, as it is reached over the containers' network
# without a password; Debian's is not, so it is turned off here, before the arguments given.
set -e
if [ "${1#-}" != "$1" ]; then set -- redis-server "$@"; fi
if [ "$1" = redis-server ]; then
  shift
  set -- redis-server --protected-mode no "$@"
fi
exec "$@"
