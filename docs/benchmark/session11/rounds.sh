#!/bin/bash
# usage: rounds.sh OUTDIR ROUNDS BUILD_A BUILD_B  (binaries in /work/bench38/op-<build>)
out=$1; rounds=$2; a=$3; b=$4
cd /work/main/test
for r in $(seq 1 $rounds); do
  if [ $((r % 2)) = 1 ]; then order="$a $b"; else order="$b $a"; fi
  for build in $order; do
    for spec in latency:tuned burst:tuned scale:qps-off; do
      p=${spec%%:*}; s=${spec##*:}
      d=$out/r$r/$build/$p; mkdir -p $d
      echo "$(date -u +%T) round $r $build $p/$s load $(cut -d' ' -f1-3 /proc/loadavg)" >> $out/log
      extra=""; [ $p = scale ] && extra="--steady-window=5s"
      /work/bench38/srbench --preset=$p --settings=$s --operator-binary=/work/bench38/op-$build --out=$d $extra > $d/stdout 2>&1 || echo "FAILED $d" >> $out/log
    done
  done
done
echo "$(date -u +%T) done" >> $out/log
