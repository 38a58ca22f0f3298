#!/bin/sh
# starts.sh [N]: starts /bin/true N times (default 1000), one after another.
# overhead.sh's "process starts" workload: what a tool costs per process image.
n=${1:-1000}
i=0
while [ $i -lt "$n" ]; do /bin/true; i=$((i+1)); done
