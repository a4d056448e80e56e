#!/bin/sh
# Installs what hangdoc needs to build and test on Debian/Ubuntu.  Uses sudo
# when not run as root.  CUDA and NCCL (for replay/) are not installed here:
# they come with the NVIDIA stack under /usr/local/cuda where GPUs are.
# Chromium renders the HTML report in tests/cli/html-browser.sh; groff
# checks the man page and zsh the zsh completion in tests/cli/docs-options.sh.
# Open MPI builds analyze --mpi, which tests/cli/mpi.sh runs.
set -eu
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
	build-essential autoconf automake autoconf-archive pkg-config \
	libpcre2-dev libzstd-dev zlib1g-dev libarchive-dev libxxhash-dev libssl-dev libglib2.0-dev \
	libcjson-dev libjansson-dev check \
	zstd gzip python3 python3-jsonschema clang clang-format libclang-rt-14-dev \
	valgrind \
	libopenmpi-dev openmpi-bin \
	chromium groff-base zsh \
	>/dev/null
