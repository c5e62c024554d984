#!/bin/sh
# As the official image's entrypoint: a first argument that is an option or not a command is
# given to node; then exec, so the command is PID 1 and receives the container's signals.
set -e
if [ "${1#-}" != "$1" ] || [ -z "$(command -v "$1")" ]; then
  set -- node "$@"
fi
exec "$@"
